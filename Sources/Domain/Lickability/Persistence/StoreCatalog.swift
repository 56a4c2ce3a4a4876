import GRDB
import Runtime

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
      return try Row.fetchAll(
        db, sql: "SELECT name, byte_limit, age_limit, ttl FROM store ORDER BY name"
      ).map { row in
        let name: String = row["name"]
        let total = totals[name] ?? Workspace.StoreTotals(bytes: 0, entries: 0)
        return StoreSummary(
          name: name, entries: total.entries, bytes: total.bytes,
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
        workspace.storesChanged()
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
