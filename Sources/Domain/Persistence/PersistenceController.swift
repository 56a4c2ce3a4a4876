import Foundation
import GRDB

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
public final class PersistenceController: @unchecked Sendable {
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
    /// No store has that name.
    case unknownStore(String, suggestion: String?)
    /// A store of that name exists already.
    case storeExists(String)
    /// The name cannot be a store name.
    case invalidStoreName(String)

    /// The input the error concerns.
    public var subject: ErrorSubject? {
      switch self {
      case .objectFailedToPersist: return .value
      case .objectNotFound(let store, let keys):
        return keys.first.map(ErrorSubject.key) ?? .store(store)
      case .unknownStore(let name, _), .storeExists(let name), .invalidStoreName(let name):
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
      case .unknownStore(let name, let suggestion):
        let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
        return "unknown store '\(name)'\(hint)"
      case .storeExists(let name):
        return "store '\(name)' already exists"
      case .invalidStoreName(let name):
        return "'\(name)' cannot name a store (use letters, digits, '_', '-' and '.', at most 64)"
      }
    }
  }

  /// A store's limits.
  public struct Limits: Equatable, Sendable {
    /// The most bytes the store holds; a write beyond it trims the least recently accessed.
    public var byteLimit: Int
    /// Seconds an entry lives after its creation; 0 means no limit.
    public var ageLimit: Double
    /// Whether an expired entry reads as missing.
    public var ttl: Bool

    /// PINCache's defaults: 50 MB, 30 days, no TTL.
    public static let `default` = Limits(
      byteLimit: 50 * 1024 * 1024, ageLimit: 30 * 24 * 3600, ttl: false)

    /// Creates limits.
    public init(byteLimit: Int, ageLimit: Double, ttl: Bool) {
      self.byteLimit = byteLimit
      self.ageLimit = ageLimit
      self.ttl = ttl
    }
  }

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

  /// What a trim removes.
  public enum Trim: Equatable, Sendable {
    /// Largest entries first, until the store holds at most this many bytes (PINCache trimToSize).
    case toBytes(Int)
    /// Least recently accessed first, until at most this many bytes (PINCache trimToSizeByDate).
    case leastRecentlyUsed(toBytes: Int)
    /// Entries created before the date (PINCache trimToDate; archsh counts from creation).
    case toDate(Date)
    /// Entries past their age limit.
    case expired
  }

  /// The store this controller reads and writes.
  public let identifier: String

  private let workspace: Workspace
  private let tracer: Tracing
  private let now: @Sendable () -> Date

  /// A controller for the store `identifier`, which must exist (see `createStore`).
  ///
  /// Several controllers with one identifier share the same data.
  public init(
    identifier: String, workspace: Workspace, tracer: Tracing,
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.identifier = identifier
    self.workspace = workspace
    self.tracer = tracer
    self.now = now
  }

  /// A controller for one of the seed's stores.
  public convenience init(identifier: Identifier, workspace: Workspace, tracer: Tracing) {
    self.init(identifier: identifier.rawValue, workspace: workspace, tracer: tracer)
  }

  // MARK: - Stores

  /// Every store with its totals and limits, by name.
  public static func stores(in workspace: Workspace) throws -> [StoreSummary] {
    try workspace.read { db in
      try Row.fetchAll(
        db,
        sql:
          "SELECT name, entry_count, total_bytes, byte_limit, age_limit, ttl FROM store ORDER BY name"
      ).map { row in
        StoreSummary(
          name: row["name"], entries: row["entry_count"], bytes: row["total_bytes"],
          limits: Limits(byteLimit: row["byte_limit"], ageLimit: row["age_limit"], ttl: row["ttl"]))
      }
    }
  }

  /// The names of the stores, for completion and suggestions.
  public static func storeNames(in workspace: Workspace) throws -> [String] {
    try workspace.read { db in try String.fetchAll(db, sql: "SELECT name FROM store ORDER BY name")
    }
  }

  /// Creates a store with the default limits.
  public static func createStore(_ name: String, in workspace: Workspace, tracer: Tracing) throws {
    guard isValidStoreName(name) else { throw Error.invalidStoreName(name) }
    try tracer.withSpan("PersistenceController", "createStore", attributes: [("store", name)]) {
      span in
      try workspace.write("creating a store") { db in
        guard
          try Int.fetchOne(db, sql: "SELECT 1 FROM store WHERE name = ?", arguments: [name]) == nil
        else {
          throw Error.storeExists(name)
        }
        try db.execute(
          sql: "INSERT INTO store (name, byte_limit, age_limit, ttl) VALUES (?, ?, ?, 0)",
          arguments: [name, Limits.default.byteLimit, Limits.default.ageLimit])
        span.setAttribute("sql", "INSERT store")
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

  /// Changes the store's limits; a lower byte limit trims at once, least recently accessed first.
  public func setLimits(byteLimit: Int?, ageLimit: Double?, ttl: Bool?) throws -> Limits {
    try tracer.withSpan("PersistenceController", "setLimits", attributes: [("store", identifier)]) {
      span in
      try workspace.write("setting a store's limits") { db in
        var limits = try storeLimits(db)
        if let byteLimit { limits.byteLimit = byteLimit }
        if let ageLimit { limits.ageLimit = ageLimit }
        if let ttl { limits.ttl = ttl }
        try db.execute(
          sql: "UPDATE store SET byte_limit = ?, age_limit = ?, ttl = ? WHERE name = ?",
          arguments: [limits.byteLimit, limits.ageLimit, limits.ttl, identifier])
        let removed = try trimLeastRecentlyUsed(db, toBytes: limits.byteLimit)
        span.setAttribute("sql", "UPDATE store")
        if !removed.isEmpty { span.setAttribute("trimmed", removed.joined(separator: ", ")) }
        return limits
      }
    }
  }

  // MARK: - Persist, retrieve, remove

  /// Persists `value` under `key`, replacing any previous value.
  ///
  /// Returns the keys trimmed to stay within the byte limit. A value larger than the limit is
  /// rejected (PINCache would drop it silently).
  @discardableResult
  public func persist(_ value: Data, forKey key: String, ageLimit: Double? = nil) throws -> [String]
  {
    let attributes = [
      (key: "store", value: identifier), (key: "key", value: key),
      (key: "bytes", value: String(value.count)),
    ]
    return try tracer.withSpan("PersistenceController", "persist", attributes: attributes) { span in
      try workspace.write("persisting a key") { db in
        let state = try storeState(db)
        let unlimited = state.limits.byteLimit <= 0
        guard unlimited || value.count <= state.limits.byteLimit else {
          throw Error.objectFailedToPersist(
            store: identifier,
            reason:
              "the value (\(value.count) bytes) is larger than the byte limit of store '\(identifier)' (\(state.limits.byteLimit) bytes)"
          )
        }
        let time = now().timeIntervalSince1970
        let insert = try FastStatement(
          db,
          """
          INSERT INTO entry (store, key, value, bytes, created_at, accessed_at, access_count, age_limit)
          VALUES (?, ?, ?, ?, ?, ?, 0, ?)
          ON CONFLICT (store, key) DO UPDATE SET value = excluded.value, bytes = excluded.bytes,
            created_at = excluded.created_at, accessed_at = excluded.accessed_at,
            age_limit = excluded.age_limit
          """)
        guard value.count <= insert.maximumLength else {
          throw Error.objectFailedToPersist(
            store: identifier,
            reason:
              "the value (\(value.count) bytes) is larger than SQLite's limit of \(insert.maximumLength) bytes"
          )
        }
        try insert.bind(1, identifier)
        try insert.bind(2, key)
        try insert.bind(3, value)
        insert.bind(4, value.count)
        insert.bind(5, time)
        insert.bind(6, time)
        insert.bind(7, ageLimit)
        try insert.step()
        span.setAttribute("sql", "INSERT … ON CONFLICT UPDATE entry")
        try trimExpiredPeriodically(db, limits: state.limits, time: time, span: span)
        // Only a write that may have crossed the limit pays for reading the new total.
        guard !unlimited, state.totalBytes + value.count > state.limits.byteLimit else { return [] }
        let trimmed = try trimLeastRecentlyUsed(db, toBytes: state.limits.byteLimit)
        if !trimmed.isEmpty { span.setAttribute("trimmed", trimmed.joined(separator: ", ")) }
        return trimmed
      }
    }
  }

  /// Persists `value` asynchronously.
  @discardableResult
  public func persist(_ value: Data, forKey key: String, ageLimit: Double? = nil) async throws
    -> [String]
  {
    try await Task.detached { try self.persist(value, forKey: key, ageLimit: ageLimit) }.value
  }

  /// The value for `key`; `objectNotFound` when it is missing (or expired, in TTL mode).
  ///
  /// The read updates the entry's access time and count.
  public func retrieve(forKey key: String) throws -> Data {
    try tracer.withSpan(
      "PersistenceController", "retrieve", attributes: [("store", identifier), ("key", key)]
    ) { span in
      let value = try readOrTouch { db -> Data? in
        let limits = try storeLimits(db)
        return try fetchAndTouch(db, key: key, limits: limits)
      }
      guard let value else {
        span.setAttribute("result", "objectNotFound")
        throw Error.objectNotFound(store: identifier, keys: [key])
      }
      span.setAttribute("bytes", String(value.count))
      span.setAttribute("sql", "SELECT entry")
      return value
    }
  }

  /// Retrieves asynchronously.
  public func retrieve(forKey key: String) async throws -> Data {
    try await Task.detached { try self.retrieve(forKey: key) }.value
  }

  /// The values for `keys`, in key order, skipping missing keys; `objectNotFound` only when every
  /// key is missing (the seed returns nil).
  public func retrieveObjects(forKeys keys: [String]) throws -> [(key: String, value: Data)] {
    try tracer.withSpan(
      "PersistenceController", "retrieveObjects",
      attributes: [("store", identifier), ("keys", String(keys.count))]
    ) { span in
      let found = try readOrTouch { db -> [(key: String, value: Data)] in
        let limits = try storeLimits(db)
        var found: [(key: String, value: Data)] = []
        for key in keys {
          if let value = try fetchAndTouch(db, key: key, limits: limits) {
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
    try await Task.detached { try self.retrieveObjects(forKeys: keys) }.value
  }

  /// Removes `keys`; every key must exist, or nothing is removed.
  public func remove(forKeys keys: [String]) throws {
    try tracer.withSpan(
      "PersistenceController", "remove",
      attributes: [("store", identifier), ("keys", keys.joined(separator: ", "))]
    ) { span in
      try workspace.write("removing keys") { db in
        _ = try storeLimits(db)
        let exists = try db.cachedStatement(sql: "SELECT 1 FROM entry WHERE store = ? AND key = ?")
        for key in keys where try Int.fetchOne(exists, arguments: [identifier, key]) == nil {
          throw Error.objectNotFound(store: identifier, keys: [key])
        }
        let delete = try db.cachedStatement(sql: "DELETE FROM entry WHERE store = ? AND key = ?")
        for key in keys { try delete.execute(arguments: [identifier, key]) }
        span.setAttribute("sql", "DELETE entry")
      }
    }
  }

  /// Removes asynchronously.
  public func remove(forKeys keys: [String]) async throws {
    try await Task.detached { try self.remove(forKeys: keys) }.value
  }

  // MARK: - Listing and bytes

  /// Keys in key order, optionally those starting with `prefix`, at most `limit`.
  ///
  /// The prefix is a range query on the primary key, so it stays fast with many keys. In TTL
  /// mode expired entries are left out, as they read as missing.
  public func keys(prefix: String = "", limit: Int? = nil) throws -> [String] {
    try traced("keys", [("prefix", prefix)], sql: "SELECT key FROM entry") { db, limits in
      var sql = "SELECT key FROM entry WHERE store = ? AND key >= ?"
      var arguments: StatementArguments = [identifier, prefix]
      if let upper = Self.prefixUpperBound(prefix) {
        sql += " AND key < ?"
        arguments += [upper]
      }
      sql += " AND \(Self.liveCondition) ORDER BY key LIMIT ?"
      arguments += liveArguments(limits) + [limit ?? -1]
      return try String.fetchAll(db, sql: sql, arguments: arguments)
    }
  }

  /// The values of the live entries, in key order, without counting as reads: listing a store
  /// does not change which entries are least recently used.
  public func peekObjects(limit: Int? = nil) throws -> [(key: String, value: Data)] {
    try traced("peekObjects", [], sql: "SELECT key, value FROM entry") { db, limits in
      let rows = try Row.fetchAll(
        db,
        sql: """
          SELECT key, value FROM entry WHERE store = ? AND \(Self.liveCondition)
          ORDER BY key LIMIT ?
          """,
        arguments: [identifier] + liveArguments(limits) + [limit ?? -1])
      return rows.map { (key: $0["key"], value: $0["value"]) }
    }
  }

  /// Every entry's metadata, in key order, with the latest access times (expired ones left out
  /// in TTL mode).
  public func entries() throws -> [EntryInfo] {
    try workspace.flushPendingTouches()
    return try traced("entries", [], sql: "SELECT entry") { db, limits in
      try Row.fetchAll(
        db,
        sql: """
          SELECT key, bytes, created_at, accessed_at, access_count, age_limit FROM entry
          WHERE store = ? AND \(Self.liveCondition) ORDER BY key
          """, arguments: [identifier] + liveArguments(limits)
      ).map { row in
        EntryInfo(
          key: row["key"], bytes: row["bytes"],
          created: Date(timeIntervalSince1970: row["created_at"]),
          accessed: Date(timeIntervalSince1970: row["accessed_at"]),
          accessCount: row["access_count"],
          ageLimit: row["age_limit"])
      }
    }
  }

  /// The total byte count of the store's values, expired ones included until they are trimmed.
  public func byteCount() throws -> Int {
    try traced("byteCount", [], sql: "SELECT store") { db, _ in try storeTotals(db).bytes }
  }

  /// The byte count of one key's value; `objectNotFound` when it is missing (or expired, in TTL
  /// mode).
  public func byteCount(forKey key: String) throws -> Int {
    let bytes = try traced("byteCount", [("key", key)], sql: "SELECT bytes FROM entry") {
      db, limits in
      try Int.fetchOne(
        db, sql: "SELECT bytes FROM entry WHERE store = ? AND key = ? AND \(Self.liveCondition)",
        arguments: [identifier, key] + liveArguments(limits))
    }
    guard let bytes else { throw Error.objectNotFound(store: identifier, keys: [key]) }
    return bytes
  }

  /// The SQL condition that an entry has not expired in TTL mode; see `liveArguments`.
  static let liveCondition =
    "NOT (? AND coalesce(age_limit, ?) > 0 AND created_at + coalesce(age_limit, ?) <= ?)"

  private func liveArguments(_ limits: Limits) -> StatementArguments {
    [limits.ttl, limits.ageLimit, limits.ageLimit, now().timeIntervalSince1970]
  }

  /// Runs a read inside a span that names the store, the operation's attributes and its SQL.
  private func traced<T>(
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

  /// Removes entries as `trim` says; returns the removed keys.
  public func trim(_ trim: Trim) throws -> [String] {
    try tracer.withSpan("PersistenceController", "trim", attributes: [("store", identifier)]) {
      span in
      let removed = try workspace.write("trimming a store") { db -> [String] in
        let limits = try storeLimits(db)
        switch trim {
        case .toBytes(let bytes):
          return try trimOrdered(db, toBytes: bytes, order: "bytes DESC, key")
        case .leastRecentlyUsed(let bytes):
          return try trimLeastRecentlyUsed(db, toBytes: bytes)
        case .toDate(let date):
          return try deleteReturningKeys(
            db, condition: "created_at < ?", arguments: [identifier, date.timeIntervalSince1970])
        case .expired:
          let time = now().timeIntervalSince1970
          return try deleteReturningKeys(
            db,
            condition: "coalesce(age_limit, ?) > 0 AND created_at + coalesce(age_limit, ?) <= ?",
            arguments: [identifier, limits.ageLimit, limits.ageLimit, time])
        }
      }
      span.setAttribute("removed", String(removed.count))
      span.setAttribute("sql", "DELETE entry")
      return removed
    }
  }

  // MARK: - Private

  /// Runs a read whose access times are written behind.
  private func readOrTouch<T>(_ body: (Database) throws -> T) throws -> T {
    try workspace.read(body)
  }

  private func storeLimits(_ db: Database) throws -> Limits {
    try storeState(db).limits
  }

  private func storeTotals(_ db: Database) throws -> (bytes: Int, entries: Int) {
    let state = try storeState(db)
    return (state.totalBytes, state.entries)
  }

  /// The store's limits and totals, from one cached statement: this runs on every command.
  private func storeState(_ db: Database) throws -> (limits: Limits, totalBytes: Int, entries: Int)
  {
    let select = try FastStatement(
      db, "SELECT byte_limit, age_limit, ttl, total_bytes, entry_count FROM store WHERE name = ?")
    try select.bind(1, identifier)
    guard try select.step() else {
      let names = try String.fetchAll(db, sql: "SELECT name FROM store")
      throw Error.unknownStore(
        identifier, suggestion: Suggestion.nearest(to: identifier, among: names))
    }
    defer { select.finish() }
    return (
      Limits(byteLimit: select.int(0), ageLimit: select.double(1), ttl: select.int(2) != 0),
      select.int(3),
      select.int(4)
    )
  }

  /// Reads a value; in TTL mode an expired entry reads as missing.
  ///
  /// The access time and count are recorded by the workspace and written behind (see
  /// `Workspace.recordTouch`).
  private func fetchAndTouch(_ db: Database, key: String, limits: Limits) throws -> Data? {
    let time = now().timeIntervalSince1970
    let select = try FastStatement(
      db, "SELECT value, created_at, age_limit FROM entry WHERE store = ? AND key = ?")
    try select.bind(1, identifier)
    try select.bind(2, key)
    guard try select.step() else { return nil }
    defer { select.finish() }
    let ageLimit = select.isNull(2) ? limits.ageLimit : select.double(2)
    if limits.ttl, ageLimit > 0, select.double(1) + ageLimit <= time { return nil }
    let value = select.data(0)
    workspace.recordTouch(store: identifier, key: key, time: time)
    return value
  }

  /// Trims by least recent access to `limit` bytes; a limit of 0 means none, as in PINCache.
  private func trimLeastRecentlyUsed(_ db: Database, toBytes limit: Int) throws -> [String] {
    guard limit > 0 else { return [] }
    return try trimOrdered(db, toBytes: limit, order: "accessed_at, key")
  }

  /// Removes expired entries at the first write to the store, then at most once a minute: the
  /// timer PINCache runs for its age limit, without a timer.
  private func trimExpiredPeriodically(_ db: Database, limits: Limits, time: Double, span: Span)
    throws
  {
    guard limits.ageLimit > 0, workspace.claimAgeTrim(store: identifier, at: time) else { return }
    let removed = try deleteReturningKeys(
      db, condition: "created_at + coalesce(age_limit, ?) <= ? AND coalesce(age_limit, ?) > 0",
      arguments: [identifier, limits.ageLimit, time, limits.ageLimit])
    if !removed.isEmpty { span.setAttribute("expired", removed.joined(separator: ", ")) }
  }

  /// Deletes entries in `order` until the store holds at most `limit` bytes.
  private func trimOrdered(_ db: Database, toBytes limit: Int, order: String) throws -> [String] {
    var total = try storeState(db).totalBytes
    guard total > limit else { return [] }
    var removed: [String] = []
    let rows = try Row.fetchCursor(
      db, sql: "SELECT key, bytes FROM entry WHERE store = ? ORDER BY \(order)",
      arguments: [identifier])
    while total > limit, let row = try rows.next() {
      removed.append(row["key"])
      total -= row["bytes"] as Int
    }
    let delete = try db.cachedStatement(sql: "DELETE FROM entry WHERE store = ? AND key = ?")
    for key in removed { try delete.execute(arguments: [identifier, key]) }
    return removed
  }

  private func deleteReturningKeys(_ db: Database, condition: String, arguments: StatementArguments)
    throws -> [String]
  {
    try String.fetchAll(
      db, sql: "DELETE FROM entry WHERE store = ? AND \(condition) RETURNING key",
      arguments: arguments
    ).sorted()
  }

  /// The smallest string greater than every string that starts with `prefix`, or nil for none.
  static func prefixUpperBound(_ prefix: String) -> String? {
    guard var scalars = Optional(Array(prefix.unicodeScalars)), !scalars.isEmpty else { return nil }
    while let last = scalars.popLast() {
      if last.value < 0x10FFFF, let next = Unicode.Scalar(last.value + 1) ?? Unicode.Scalar(0xE000)
      {
        scalars.append(next)
        return String(String.UnicodeScalarView(scalars))
      }
    }
    return nil
  }
}
