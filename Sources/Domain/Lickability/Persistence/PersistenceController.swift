import Foundation
import GRDB
import Plumbing
import Runtime

/// Persists and retrieves values by key in named stores, with PINCache's semantics, on SQLite.
///
/// From Lickability's PersistenceController (seed 000), which wraps PINCache:
/// - **Stores** are named by an identifier; the seed's are `Identifier`, and more can be created.
/// - **Entries** keep their value, creation and last access times, an access count, a byte count
///   and an optional age limit of their own.
/// - **Limits**: a byte limit (50 MB by default); a write that goes over it trims the least
///   recently accessed entries. An age limit (30 days by default), counted from creation. In TTL
///   mode an expired entry reads as missing.
/// - **Reads** update the last access time and the access count.
///
/// Deliberate differences, also in the `store` help:
/// - PINCache silently drops an object larger than the byte limit; archsh rejects it with an error.
/// - PINCache forbids two caches with one name; the seed promises that controllers with the same
///   identifier are safe and share data. On SQLite they do: the data lives in the workspace.
/// - The byte count of a key is the length of its value, not its allocated size on disk.
public final class PersistenceController: Sendable {
  /// The seed's store identifiers; a workspace starts with these stores.
  public enum Identifier: String, CaseIterable, Sendable {
    /// General-purpose cache.
    case generalCache
    /// Saved bookmarks.
    case bookmarks
    /// Magazine issues.
    case issues
    /// Assets of magazine issues.
    case issueAssets
    /// Article styles.
    case articleStyles
    /// Assets of articles.
    case articleAssets
    /// The signed-in user.
    case user
    /// Products persisted by ProductUpdater.
    ///
    /// The seed's ProductUpdater uses `.productCache`, which the seed's own enum lacks; archsh
    /// adds it (migration `v2-product-cache`).
    case productCache

    /// The stores the seed's enum lists, which the first migration creates.
    static let seedStores = [
      "generalCache", "bookmarks", "issues", "issueAssets", "articleStyles", "articleAssets",
      "user",
    ]
  }

  /// The seed's errors, plus the precise reasons archsh gives.
  public enum Error: Swift.Error, Equatable, CustomStringConvertible, SubjectError {
    /// The value could not be written.
    case objectFailedToPersist(store: String, reason: String)
    /// No value for the key (or for any of the keys).
    case objectNotFound(store: String, keys: [String])
    /// The key's entry has outlived its age limit in TTL mode: PINCache's TTL cache answers it as
    /// absent, though it is stored (and counted in the byte count) until a trim removes it.
    case expired(store: String, key: String)
    /// No store has that name.
    case unknownStore(String, suggestion: String?)
    /// A store of that name exists already.
    case storeExists(String)
    /// The name cannot be a store name.
    case invalidStoreName(String)
    /// The store is one of the seed's, which cannot be dropped.
    case builtInStore(String)

    /// The input the error concerns.
    public var subject: ErrorSubject? {
      switch self {
      case .objectFailedToPersist: return .value
      case .objectNotFound(let store, let keys):
        return keys.first.map(ErrorSubject.key) ?? .store(store)
      case .expired(_, let key): return .key(key)
      case .unknownStore(let name, _), .storeExists(let name), .invalidStoreName(let name),
        .builtInStore(let name):
        return .store(name)
      }
    }

    /// A one-line description.
    public var description: String {
      switch self {
      case .objectFailedToPersist(_, let reason):
        return reason
      case .objectNotFound(let store, let keys):
        if keys.count == 1 { return "no key '\(keys[0])' in store '\(store)'" }
        return
          "none of the keys \(keys.map { "'\($0)'" }.joined(separator: ", ")) are in store '\(store)'"
      case .expired(let store, let key):
        return
          "'\(key)' in store '\(store)' has expired (TTL): the TTL cache answers it as absent, "
          + "though it stays stored, and counted in the byte count, until a trim removes it"
      case .unknownStore(let name, let suggestion):
        let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
        return "unknown store '\(name)'\(hint)"
      case .storeExists(let name):
        return "store '\(name)' already exists"
      case .invalidStoreName(let name):
        return "'\(name)' cannot name a store (use letters, digits, '_', '-' and '.', at most 64)"
      case .builtInStore(let name):
        return "'\(name)' is one of the seed's stores, which cannot be dropped"
      }
    }
  }

  /// A store's limits: the workspace's (`StoreLimits`).
  public typealias Limits = StoreLimits

  /// The store this controller reads and writes.
  public let identifier: String

  /// The workspace whose database holds the store.
  let workspace: Workspace
  /// The store's entries in the workspace: what PINCache's disk cache is to PINCache.
  let storage: EntryStorage
  /// Where the operations' spans go.
  let tracer: Tracing
  /// The clock that creation, access and expiry times come from.
  let now: @Sendable () -> Date

  /// A controller for the store `identifier`, which must exist (see `createStore`).
  ///
  /// Several controllers with one identifier share the same data.
  public init(
    identifier: String, workspace: Workspace, tracer: Tracing,
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.identifier = identifier
    self.workspace = workspace
    self.storage = EntryStorage(store: identifier, workspace: workspace)
    self.tracer = tracer
    self.now = now
  }

  /// A controller for one of the seed's stores.
  public convenience init(identifier: Identifier, workspace: Workspace, tracer: Tracing) {
    self.init(identifier: identifier.rawValue, workspace: workspace, tracer: tracer)
  }

  // MARK: - Persist, retrieve, remove

  /// Persists `value` under `key`, replacing any previous value.
  ///
  /// Returns the keys trimmed to stay within the byte limit. A value larger than the limit is
  /// rejected (PINCache would drop it silently).
  @discardableResult
  public func persist(_ value: Data, forKey key: String, ageLimit: Double? = nil) throws -> [String]
  {
    let trimmed: [String] = try tracer.withSpan(
      "PersistenceController", "persist",
      attributes: [
        (key: "store", value: identifier), (key: "key", value: key),
        (key: "bytes", value: String(value.count)),
      ]
    ) {
      span in
      try workspace.write("persisting a key") { db -> [String] in
        let limits = try cachedLimits(db)
        let unlimited = limits.byteLimit <= 0
        guard unlimited || value.count <= limits.byteLimit else {
          throw Error.objectFailedToPersist(
            store: identifier,
            reason:
              "the value (\(value.count) bytes) is larger than the byte limit of store '\(identifier)' (\(limits.byteLimit) bytes)"
          )
        }
        let time = now().timeIntervalSince1970
        let written = try storage.write(
          db, key: key, value: value, ageLimit: ageLimit, time: time)
        if case .tooLong(let maximum) = written {
          throw Error.objectFailedToPersist(
            store: identifier,
            reason:
              "the value (\(value.count) bytes) is larger than SQLite's limit of \(maximum) bytes"
          )
        }
        span.setAttribute("sql", "INSERT … ON CONFLICT UPDATE entry")
        let expired = try storage.trimExpiredPeriodically(db, limits: limits, time: time)
        if !expired.isEmpty { span.setAttribute("expired", expired.joined(separator: ", ")) }
        guard !unlimited, try storage.mayHoldMore(db, than: limits.byteLimit, added: value.count)
        else { return [] }
        let trimmed = try storage.trimLeastRecentlyUsed(db, toBytes: limits.byteLimit).map(\.key)
        if !trimmed.isEmpty { span.setAttribute("trimmed", trimmed.joined(separator: ", ")) }
        return trimmed
      }
    }
    publish(.write, [key], bytes: value.count)
    publish(.trim, trimmed)
    return trimmed
  }

  /// Publishes what happened to `keys` once it is committed.
  func publish(_ action: StoreChange.Action, _ keys: @autoclosure () -> [String], bytes: Int = 0) {
    guard tracer.events.wants(.store) else { return }
    for key in keys() {
      tracer.events.publish(.store) {
        .store(StoreChange(action: action, store: identifier, key: key, bytes: bytes))
      }
    }
  }

  /// Persists `value` asynchronously.
  @discardableResult
  public func persist(_ value: Data, forKey key: String, ageLimit: Double? = nil) async throws
    -> [String]
  {
    try await offCooperativePool { try self.persist(value, forKey: key, ageLimit: ageLimit) }
  }

  /// The value for `key`; `objectNotFound` when it is missing (or expired, in TTL mode).
  ///
  /// The read updates the entry's access time and count.
  public func retrieve(forKey key: String) throws -> Data {
    try tracer.withSpan(
      "PersistenceController", "retrieve", attributes: [("store", identifier), ("key", key)]
    ) { span in
      // One statement, without a transaction of its own; the limits come from the workspace's
      // cache, once the statement's read has shown whether another connection committed.
      let value = try workspace.readStatement { db in
        try fetchAndTouch(db, key: key) {
          workspace.noteForeignCommits(db)
          return try cachedLimits(db)
        }
      }
      guard let value else {
        // Absent, or expired in TTL mode: the second is said, since it is still stored.
        let stored = try workspace.read { db in try storage.contains(db, key: key) }
        span.setAttribute("result", stored ? "expired" : "objectNotFound")
        if stored { throw Error.expired(store: identifier, key: key) }
        throw Error.objectNotFound(store: identifier, keys: [key])
      }
      span.setAttribute("bytes", String(value.count))
      span.setAttribute("sql", "SELECT entry")
      return value
    }
  }

  /// Retrieves asynchronously.
  public func retrieve(forKey key: String) async throws -> Data {
    try await offCooperativePool { try self.retrieve(forKey: key) }
  }

  /// The values for `keys`, in key order, skipping missing keys; `objectNotFound` only when every
  /// key is missing (the seed returns nil).
  public func retrieveObjects(forKeys keys: [String]) throws -> [(key: String, value: Data)] {
    try tracer.withSpan(
      "PersistenceController", "retrieveObjects",
      attributes: [("store", identifier), ("keys", String(keys.count))]
    ) { span in
      let found = try workspace.read { db -> [(key: String, value: Data)] in
        let limits = try storeLimits(db)
        var found: [(key: String, value: Data)] = []
        for key in keys {
          if let value = try fetchAndTouch(db, key: key, limits: { limits }) {
            found.append((key, value))
          }
        }
        return found
      }
      span.setAttribute("found", String(found.count))
      span.setAttribute("bytes", String(found.reduce(0) { $0 + $1.value.count }))
      span.setAttribute("sql", "SELECT entry")
      guard !found.isEmpty else { throw Error.objectNotFound(store: identifier, keys: keys) }
      return found
    }
  }

  /// Retrieves several asynchronously; unlike the seed's, the order is the keys' order.
  public func retrieveObjects(forKeys keys: [String]) async throws -> [(key: String, value: Data)] {
    try await offCooperativePool { try self.retrieveObjects(forKeys: keys) }
  }

  /// Removes `keys`; every key must exist, or nothing is removed.
  public func remove(forKeys keys: [String]) throws {
    try tracer.withSpan(
      "PersistenceController", "remove",
      attributes: [("store", identifier), ("keys", keys.joined(separator: ", "))]
    ) { span in
      try workspace.write("removing keys") { db in
        _ = try storeLimits(db)
        if let missing = try storage.remove(db, keys: keys) {
          throw Error.objectNotFound(store: identifier, keys: [missing])
        }
        span.setAttribute("sql", "DELETE entry")
      }
    }
    publish(.remove, keys)
  }

  /// Removes asynchronously.
  public func remove(forKeys keys: [String]) async throws {
    try await offCooperativePool { try self.remove(forKeys: keys) }
  }

  // MARK: - Trims

  /// What a trim removes.
  public enum Trim: Equatable, Sendable {
    /// Largest entries first, until the store holds at most this many bytes (PINCache trimToSize).
    case toBytes(Int)
    /// Least recently accessed first, until at most this many bytes (PINCache trimToSizeByDate).
    case leastRecentlyUsed(toBytes: Int)
    /// Entries created before the date, except those with an age limit of their own, as
    /// PINCache's trimToDate code does (its header speaks of access dates; its code compares
    /// creation dates and skips an object persisted with its own age limit).
    case toDate(Date)
    /// Entries past their age limit.
    case expired
  }

  /// Removes entries as `trim` says; returns the removed keys.
  public func trim(_ trim: Trim) throws -> [String] {
    try tracer.withSpan("PersistenceController", "trim", attributes: [("store", identifier)]) {
      span in
      let removed = try workspace.write("trimming a store") { db -> [String] in
        let limits = try storeLimits(db)
        switch trim {
        case .toBytes(let bytes):
          return try storage.trimLargestFirst(db, toBytes: bytes).map(\.key)
        case .leastRecentlyUsed(let bytes):
          return try storage.trimLeastRecentlyUsed(db, toBytes: bytes).map(\.key)
        case .toDate(let date):
          return try storage.trimToDate(db, date)
        case .expired:
          return try storage.trimExpired(db, limits: limits, now: now().timeIntervalSince1970)
        }
      }
      span.setAttribute("removed", String(removed.count))
      span.setAttribute("sql", "DELETE entry")
      publish(trim == .expired ? .expire : .trim, removed)
      return removed
    }
  }

  /// The time now, as the store's rows hold it.
  var time: Double { now().timeIntervalSince1970 }

  // MARK: - Store state

  /// Runs a read inside a span that names the store, the operation's attributes and its SQL.
  func traced<T>(
    _ operation: String, _ attributes: [(key: String, value: String)], sql: String,
    _ body: (Database, Limits) throws -> T
  ) throws -> T {
    try tracer.withSpan(
      "PersistenceController", operation, attributes: [("store", identifier)] + attributes
    ) { span in
      span.setAttribute("sql", sql)
      return try workspace.read { db in try body(db, storeLimits(db)) }
    }
  }

  /// The store's limits; `unknownStore` when no store has the controller's identifier.
  func storeLimits(_ db: Database) throws -> Limits {
    guard let limits = try storage.limits(db) else { throw try unknownStore(db) }
    return limits
  }

  /// `unknownStore` for the controller's identifier, with the nearest store's name.
  private func unknownStore(_ db: Database) throws -> Error {
    Error.unknownStore(
      identifier,
      suggestion: Suggestion.nearest(to: identifier, among: try EntryStorage.storeNames(db)))
  }

  /// The store's limits, from the workspace's cache, inside a transaction that has noted other
  /// connections' commits; `unknownStore` when no store has the identifier.
  private func cachedLimits(_ db: Database) throws -> Limits {
    guard let limits = try storage.cachedLimits(db) else { throw try unknownStore(db) }
    return limits
  }

  /// The value for `key`, its access recorded behind; nil when it is missing or, in TTL mode,
  /// expired.
  ///
  /// Writing the access behind is PINCache's asynchronous date update. `limits` is asked once the
  /// read has begun, so that an unknown store is reported.
  private func fetchAndTouch(_ db: Database, key: String, limits: () throws -> Limits) throws
    -> Data?
  {
    try storage.read(db, key: key, time: now().timeIntervalSince1970, limits: limits)
  }
}

// MARK: - Listing a store

/// Listing a store: its keys, values, entries' metadata and byte counts. In TTL mode expired
/// entries are left out, as they read as missing.
extension PersistenceController {
  /// One entry's metadata, as `store entries` lists it.
  public struct EntryInfo: Equatable, Sendable {
    /// The key.
    public var key: String
    /// The value's length in bytes.
    public var bytes: Int
    /// When it was created (persisted for the first time or replaced).
    public var created: Date
    /// When it was last read or written.
    public var accessed: Date
    /// How many times it was read.
    public var accessCount: Int
    /// Its own age limit in seconds, if it has one.
    public var ageLimit: Double?
  }

  /// Keys in key order, optionally those starting with `prefix`, at most `limit`.
  ///
  /// The prefix is a range query on the primary key, so it stays fast with many keys. In TTL
  /// mode expired entries are left out, as they read as missing.
  public func keys(prefix: String = "", limit: Int? = nil) throws -> [String] {
    try traced("keys", [("prefix", prefix)], sql: "SELECT key FROM entry") { db, limits in
      try storage.keys(db, prefix: prefix, limit: limit, limits: limits, now: time)
    }
  }

  /// The values of the live entries, in key order, without counting as reads: listing a store
  /// does not change which entries are least recently used.
  public func peekObjects(limit: Int? = nil) throws -> [(key: String, value: Data)] {
    try traced("peekObjects", [], sql: "SELECT key, value FROM entry") { db, limits in
      try storage.peek(db, limit: limit, limits: limits, now: time)
    }
  }

  /// Every entry's metadata, in key order, with the latest access times (expired ones left out
  /// in TTL mode).
  public func entries() throws -> [EntryInfo] {
    // This session's reads and the log are folded in when the write lock is free; what stays in
    // the log (another process writes, or the workspace is read-only) is added in here.
    workspace.foldTouchesIfFree()
    return try traced("entries", [], sql: "SELECT entry") { db, limits in
      try storage.metadata(db, limits: limits, now: time).map {
        EntryInfo(
          key: $0.key, bytes: $0.bytes, created: Date(timeIntervalSince1970: $0.created),
          accessed: Date(timeIntervalSince1970: $0.accessed), accessCount: $0.accessCount,
          ageLimit: $0.ageLimit)
      }
    }
  }

  /// The total byte count of the store's values, expired ones included until they are trimmed.
  public func byteCount() throws -> Int {
    try traced("byteCount", [], sql: "SELECT store") { db, _ in try storage.byteCount(db) }
  }

  /// The byte count of one key's value; `objectNotFound` when it is missing (or expired, in TTL
  /// mode).
  public func byteCount(forKey key: String) throws -> Int {
    let bytes: Int? = try traced("byteCount", [("key", key)], sql: "SELECT bytes FROM entry") {
      db, limits in try storage.byteCount(db, key: key, limits: limits, now: time)
    }
    guard let bytes else { throw Error.objectNotFound(store: identifier, keys: [key]) }
    return bytes
  }
}

// MARK: - The catalogue of stores (archsh's; the seed's stores are fixed)

/// The store catalog: which stores exist, creating them, and each store's limits.
extension PersistenceController {
  /// One store as `store stores` lists it.
  public struct StoreSummary: Equatable, Sendable {
    /// Its name.
    public var name: String
    /// How many entries it holds.
    public var entries: Int
    /// How many bytes its values take.
    public var bytes: Int
    /// Its limits.
    public var limits: Limits
  }

  /// Every store with its totals and limits, by name.
  public static func stores(in workspace: Workspace) throws -> [StoreSummary] {
    try workspace.read { db in
      let totals = try workspace.allStoreTotals(db)
      return try EntryStorage.stores(db).map { store in
        let total = totals[store.name] ?? Workspace.StoreTotals(bytes: 0, entries: 0)
        return StoreSummary(
          name: store.name, entries: total.entries, bytes: total.bytes, limits: store.limits)
      }
    }
  }

  /// The names of the stores, for completion and suggestions.
  public static func storeNames(in workspace: Workspace) throws -> [String] {
    try workspace.read { db in try EntryStorage.storeNames(db) }
  }

  /// Creates a store with the default limits.
  public static func createStore(_ name: String, in workspace: Workspace, tracer: Tracing) throws {
    guard isValidStoreName(name) else { throw Error.invalidStoreName(name) }
    try tracer.withSpan("PersistenceController", "createStore", attributes: [("store", name)]) {
      span in
      try workspace.write("creating a store") { db in
        let storage = EntryStorage(store: name, workspace: workspace)
        guard try storage.create(db, limits: .default) else { throw Error.storeExists(name) }
        span.setAttribute("sql", "INSERT store")
      }
    }
  }

  /// Drops this controller's store, which a user created, with its entries, and returns what it
  /// held.
  ///
  /// The seed's stores (`Identifier`) are refused: the controllers that the factories build
  /// persist into them.
  @discardableResult
  public func dropStore() throws -> StoreSummary {
    let name = identifier
    guard Identifier(rawValue: name) == nil else { throw Error.builtInStore(name) }
    return try tracer.withSpan("PersistenceController", "dropStore", attributes: [("store", name)])
    { span in
      try workspace.write("dropping a store") { db in
        let limits = try storeLimits(db)
        let totals = try workspace.storeTotals(db, store: name)
        try storage.drop(db)
        span.setAttribute("sql", "DELETE entry, store")
        span.setAttribute("entries", String(totals.entries))
        return StoreSummary(
          name: name, entries: totals.entries, bytes: totals.bytes, limits: limits)
      }
    }
  }

  /// Whether `name` can name a store.
  public static func isValidStoreName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.count <= 64
      && name.unicodeScalars.allSatisfy {
        $0.isASCII
          && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
            || "_-.".unicodeScalars.contains($0))
      }
  }

  /// The store's limits.
  public func limits() throws -> Limits {
    try traced("limits", [], sql: "SELECT store") { _, limits in limits }
  }

  /// Changes the store's limits and returns them with the entries that a lower byte limit
  /// trimmed at once, least recently accessed first.
  public func changeLimits(byteLimit: Int?, ageLimit: Double?, ttl: Bool?) throws -> LimitsChange {
    try tracer.withSpan("PersistenceController", "setLimits", attributes: [("store", identifier)]) {
      span in
      try workspace.write("setting a store's limits") { db in
        var limits = try storeLimits(db)
        if let byteLimit { limits.byteLimit = byteLimit }
        if let ageLimit { limits.ageLimit = ageLimit }
        if let ttl { limits.ttl = ttl }
        try storage.setLimits(db, limits)
        let removed = try storage.trimLeastRecentlyUsed(db, toBytes: limits.byteLimit).map {
          RemovedEntry(key: $0.key, bytes: $0.bytes)
        }
        span.setAttribute("sql", "UPDATE store")
        if !removed.isEmpty {
          span.setAttribute("trimmed", removed.map(\.key).joined(separator: ", "))
        }
        return LimitsChange(limits: limits, trimmed: removed)
      }
    }
  }
}

/// An entry that a trim removed: its key and how many bytes its value held.
public struct RemovedEntry: Equatable, Sendable {
  /// The key.
  public var key: String
  /// The value's byte count.
  public var bytes: Int
}

/// New limits, and what they trimmed at once.
public struct LimitsChange: Equatable, Sendable {
  /// The limits now in force.
  public var limits: PersistenceController.Limits
  /// The entries removed to fit a lower byte limit, in the order they were removed.
  public var trimmed: [RemovedEntry]

  /// Creates a change.
  public init(limits: PersistenceController.Limits, trimmed: [RemovedEntry]) {
    self.limits = limits
    self.trimmed = trimmed
  }
}
