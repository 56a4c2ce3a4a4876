import Foundation
import GRDB
import Plumbing

/// One store's entries in the workspace (`store` and `entry`): the storage under Lickability's
/// PersistenceController, as PINCache's disk cache is under PINCache.
///
/// Every operation runs inside a transaction the caller opened (`Workspace.write`, `read` or
/// `readStatement`), so that one operation of the controller is one transaction. The hot ones
/// (the write, the read, the limits) are kept statements bound with SQLite's C API
/// (`FastStatement`, docs/performance.md); the rest are GRDB's statements.
///
/// Reads record their access time and count behind, in the workspace's access-time log
/// (`Workspace.recordTouch`), as PINCache updates an object's date asynchronously after a read;
/// a trim by access time writes them first.
package struct EntryStorage: Sendable {
  /// The store's name.
  package let store: String
  /// The workspace that holds it.
  package let workspace: Workspace

  /// The entries of `store` in `workspace`.
  package init(store: String, workspace: Workspace) {
    self.store = store
    self.workspace = workspace
  }

  /// An entry a trim removed: its key and its value's byte count.
  package typealias Removed = (key: String, bytes: Int)

  // MARK: - The store's limits

  /// The store's limits; nil when no store has the name.
  ///
  /// One kept statement: every command runs it.
  package func limits(_ db: Database) throws -> StoreLimits? {
    let select = try FastStatement(
      db, "SELECT byte_limit, age_limit, ttl FROM store WHERE name = ?", slot: .storeLimits,
      in: workspace)
    try select.bindKept(store)
    guard try select.step() else { return nil }
    defer { select.finish() }
    return StoreLimits(
      byteLimit: select.int(0), ageLimit: select.double(1), ttl: select.int(2) != 0)
  }

  /// The store's limits from the workspace's cache (`Workspace.limitsCache`), read and kept when
  /// they are not there; call it in a transaction that has noted other connections' commits.
  package func cachedLimits(_ db: Database) throws -> StoreLimits? {
    if let limits = workspace.limitsCache[store] { return limits }
    guard let limits = try limits(db) else { return nil }
    workspace.limitsCache[store] = limits
    return limits
  }

  // MARK: - Write, read, remove

  /// What a write did.
  package enum Written: Equatable {
    /// The entry is written.
    case written
    /// Nothing is written: the value is longer than SQLite stores (`maximum` bytes).
    case tooLong(maximum: Int)
  }

  /// Writes `value` under `key`, replacing any entry, created and accessed at `time`.
  package func write(_ db: Database, key: String, value: Data, ageLimit: Double?, time: Double)
    throws -> Written
  {
    let insert = try FastStatement(
      db,
      """
      INSERT INTO entry (store, key, value, bytes, created_at, accessed_at, access_count, age_limit)
      VALUES (?, ?, ?, ?, ?, ?, 0, ?)
      ON CONFLICT (store, key) DO UPDATE SET value = excluded.value, bytes = excluded.bytes,
        created_at = excluded.created_at, accessed_at = excluded.accessed_at,
        access_count = 0, age_limit = excluded.age_limit
      """, slot: .persist, in: workspace)
    guard value.count <= insert.maximumLength else {
      return .tooLong(maximum: insert.maximumLength)
    }
    try insert.bindKept(store)
    insert.bind(4, value.count)
    insert.bind(5, time)
    insert.bind(6, time)
    insert.bind(7, ageLimit)
    try insert.bindingInPlace(text: key, at: 2) {
      try insert.bindingInPlace(blob: value, at: 3) { try insert.step() }
    }
    workspace.notePersisted()
    return .written
  }

  /// The value for `key`, read by its key alone, and its access recorded behind; nil when it is
  /// missing or, in TTL mode, expired at `time`.
  ///
  /// `limits` is asked once the read has begun, found or not, so that it can report an unknown
  /// store.
  package func read(
    _ db: Database, key: String, time: Double, limits: () throws -> StoreLimits
  ) throws -> Data? {
    let select = try FastStatement(
      db, "SELECT value, created_at, age_limit FROM entry WHERE store = ? AND key = ?",
      slot: .fetchOne, in: workspace)
    try select.bindKept(store)
    return try select.bindingInPlace(text: key, at: 2) {
      let found = try select.step()
      let limits = try limits()
      guard found else { return nil }
      let created = select.double(1)
      if limits.ttl {
        let entryAgeLimit = select.isNull(2) ? nil : select.double(2)
        let expiry = Expiry(limits: limits, now: time)
        if expiry.isExpired(createdAt: created, entryAgeLimit: entryAgeLimit) { return nil }
      }
      let value = select.data(0)
      recordAccessBehind(key: key, created: created, time: time)
      return value
    }
  }

  /// The access-time policy: a read's time and count are written behind, not by the read.
  ///
  /// This is PINCache's own asynchronous date update (`PINDiskCache` sets an object's date on
  /// its queue after handing the object back). Here the read is kept in the workspace's
  /// access-time log (`Workspace.recordTouch`) and written in batches. A trim by access time
  /// writes them first (`trimLeastRecentlyUsed`), and so does a listing of the entries
  /// (`metadata`). A crash loses at most the last batch of access times, never an entry.
  private func recordAccessBehind(key: String, created: Double, time: Double) {
    workspace.recordTouch(store: store, key: key, created: created, time: time)
  }

  /// Whether `key` has an entry, expired or not.
  package func contains(_ db: Database, key: String) throws -> Bool {
    try Bool.fetchOne(
      db, sql: "SELECT 1 FROM entry WHERE store = ? AND key = ?", arguments: [store, key]) ?? false
  }

  /// Removes `keys` when every one has an entry; else removes nothing and returns the first that
  /// has none.
  package func remove(_ db: Database, keys: [String]) throws -> String? {
    let exists = try db.cachedStatement(sql: "SELECT 1 FROM entry WHERE store = ? AND key = ?")
    for key in keys where try Int.fetchOne(exists, arguments: [store, key]) == nil { return key }
    let delete = try db.cachedStatement(sql: "DELETE FROM entry WHERE store = ? AND key = ?")
    for key in keys { try delete.execute(arguments: [store, key]) }
    return nil
  }

  /// Removes every entry and the store itself (the entries first, so that the drop never depends
  /// on a connection's foreign-key setting).
  package func drop(_ db: Database) throws {
    try db.execute(sql: "DELETE FROM entry WHERE store = ?", arguments: [store])
    try db.execute(sql: "DELETE FROM store WHERE name = ?", arguments: [store])
    workspace.storesChanged()
  }

  /// Stores new limits.
  package func setLimits(_ db: Database, _ limits: StoreLimits) throws {
    try db.execute(
      sql: "UPDATE store SET byte_limit = ?, age_limit = ?, ttl = ? WHERE name = ?",
      arguments: [limits.byteLimit, limits.ageLimit, limits.ttl, store])
    workspace.storesChanged()
  }

  // MARK: - Listing

  /// An entry's metadata, its access time and count with the reads still held behind.
  package typealias Metadata = (
    key: String, bytes: Int, created: Double, accessed: Double, accessCount: Int,
    ageLimit: Double?
  )

  /// The live keys (`liveFilter`) in key order, those starting with `prefix`, at most `limit`: a
  /// range query on the primary key.
  package func keys(
    _ db: Database, prefix: String, limit: Int?, limits: StoreLimits, now: Double
  ) throws -> [String] {
    let live = liveFilter(limits, now: now)
    var sql = "SELECT key FROM entry WHERE store = ? AND key >= ?"
    var arguments: StatementArguments = [store, prefix]
    if let upper = Self.prefixUpperBound(prefix) {
      sql += " AND key < ?"
      arguments += [upper]
    }
    sql += " AND \(live.condition) ORDER BY key LIMIT ?"
    arguments += live.arguments + [limit ?? -1]
    return try String.fetchAll(db, sql: sql, arguments: arguments)
  }

  /// The live values in key order, at most `limit`, without counting as reads.
  package func peek(_ db: Database, limit: Int?, limits: StoreLimits, now: Double) throws
    -> [(key: String, value: Data)]
  {
    let live = liveFilter(limits, now: now)
    return try Row.fetchAll(
      db,
      sql: """
        SELECT key, value FROM entry WHERE store = ? AND \(live.condition)
        ORDER BY key LIMIT ?
        """,
      arguments: [store] + live.arguments + [limit ?? -1]
    ).map { try (key: $0.stored("key", of: "entry"), value: $0.stored("value", of: "entry")) }
  }

  /// Every live entry's metadata in key order, with the reads still in the access-time log.
  package func metadata(_ db: Database, limits: StoreLimits, now: Double) throws -> [Metadata] {
    let live = liveFilter(limits, now: now)
    let logged = try Workspace.loggedReads(db, store: store)
    return try Row.fetchAll(
      db,
      sql: """
        SELECT key, bytes, created_at, accessed_at, access_count, age_limit
        FROM entry WHERE store = ? AND \(live.condition)
        ORDER BY key
        """, arguments: [store] + live.arguments
    ).map { row in
      let key: String = try row.stored("key", of: "entry")
      let created: Double = try row.stored("created_at", of: "entry")
      var accessed: Double = try row.stored("accessed_at", of: "entry")
      var accessCount = try row.storedCount("access_count", of: "entry")
      if let reads = logged[Workspace.LoggedKey(store: store, key: key, created: created)] {
        accessed = max(accessed, reads.time)
        // The logged reads come from the file too: the sum saturates.
        let (sum, overflow) = accessCount.addingReportingOverflow(reads.reads)
        accessCount = overflow ? .max : sum
      }
      return try (
        key, row.storedCount("bytes", of: "entry"), created, accessed, accessCount,
        row.stored("age_limit", of: "entry")
      )
    }
  }

  /// The store's byte count, expired entries included until they are trimmed.
  package func byteCount(_ db: Database) throws -> Int {
    try workspace.storeTotals(db, store: store).bytes
  }

  /// The byte count of a live key's value; nil when it has none.
  package func byteCount(_ db: Database, key: String, limits: StoreLimits, now: Double) throws
    -> Int?
  {
    let live = liveFilter(limits, now: now)
    return try Int.fetchOne(
      db, sql: "SELECT bytes FROM entry WHERE store = ? AND key = ? AND \(live.condition)",
      arguments: [store, key] + live.arguments)
  }

  /// The smallest string greater than every string that starts with `prefix`, or nil for none.
  package static func prefixUpperBound(_ prefix: String) -> String? {
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

  // MARK: - The catalogue of stores

  /// Every store's name and limits, by name.
  package static func stores(_ db: Database) throws -> [(name: String, limits: StoreLimits)] {
    try Row.fetchAll(db, sql: "SELECT name, byte_limit, age_limit, ttl FROM store ORDER BY name")
      .map { row in
        try (
          row.stored("name", of: "store"),
          StoreLimits(
            byteLimit: row.stored("byte_limit", of: "store"),
            ageLimit: row.stored("age_limit", of: "store"), ttl: row.stored("ttl", of: "store"))
        )
      }
  }

  /// Every store's name, by name.
  package static func storeNames(_ db: Database) throws -> [String] {
    try String.fetchAll(db, sql: "SELECT name FROM store ORDER BY name")
  }

  /// Creates the store with `limits`; false when one has the name already.
  package func create(_ db: Database, limits: StoreLimits) throws -> Bool {
    guard try Int.fetchOne(db, sql: "SELECT 1 FROM store WHERE name = ?", arguments: [store]) == nil
    else { return false }
    try db.execute(
      sql: "INSERT INTO store (name, byte_limit, age_limit, ttl) VALUES (?, ?, ?, ?)",
      arguments: [store, limits.byteLimit, limits.ageLimit, limits.ttl])
    workspace.storesChanged()
    return true
  }

  // MARK: - Trims

  /// Whether the store may hold more than `limit` bytes after a write of `added` bytes: the
  /// workspace's totals answer without a scan while they are known.
  package func mayHoldMore(_ db: Database, than limit: Int, added: Int) throws -> Bool {
    try workspace.mayHoldMore(db, store: store, than: limit, added: added)
  }

  /// Removes the least recently accessed entries until the store holds at most `limit` bytes.
  ///
  /// This is PINCache's trim after a write, and its `trimToSizeByDate`. The access times held
  /// behind are written first. A limit of 0 (none) removes nothing.
  package func trimLeastRecentlyUsed(_ db: Database, toBytes limit: Int) throws -> [Removed] {
    guard limit > 0 else { return [] }
    try Workspace.compactTouches(db)
    return try trimOrdered(db, toBytes: limit, order: "accessed_at, key")
  }

  /// Removes the largest entries until the store holds at most `limit` bytes (PINCache's
  /// `trimToSize`).
  package func trimLargestFirst(_ db: Database, toBytes limit: Int) throws -> [Removed] {
    try trimOrdered(db, toBytes: limit, order: "bytes DESC, key")
  }

  /// Removes the entries created before `date` that have no age limit of their own (PINCache's
  /// `trimToDate`); their keys, sorted.
  package func trimToDate(_ db: Database, _ date: Date) throws -> [String] {
    try deleteReturningKeys(
      db, condition: "created_at < ? AND coalesce(age_limit, 0) <= 0",
      arguments: [store, date.timeIntervalSince1970])
  }

  /// Removes the entries expired at `now`; their keys, sorted.
  package func trimExpired(_ db: Database, limits: StoreLimits, now: Double) throws -> [String] {
    let expiry = Expiry(limits: limits, now: now)
    return try deleteReturningKeys(
      db, condition: expiry.sqlCondition, arguments: [store] + expiry.sqlArguments)
  }

  /// Removes the expired entries at most once a while for each store (`claimAgeTrim`), as
  /// PINCache's age-limit timer does; their keys.
  package func trimExpiredPeriodically(_ db: Database, limits: StoreLimits, time: Double) throws
    -> [String]
  {
    guard limits.ageLimit > 0, workspace.claimAgeTrim(store: store, at: time) else { return [] }
    return try trimExpired(db, limits: limits, now: time)
  }

  /// The SQL condition (and its arguments) of an entry that reads as present at `now`: every one,
  /// or in TTL mode those not expired.
  package func liveFilter(_ limits: StoreLimits, now: Double) -> (
    condition: String, arguments: StatementArguments
  ) {
    let expiry = Expiry(limits: limits, now: now)
    let arguments: StatementArguments = [limits.ttl] + expiry.sqlArguments
    return ("NOT (? AND \(expiry.sqlCondition))", arguments)
  }

  private func trimOrdered(_ db: Database, toBytes limit: Int, order: String) throws -> [Removed] {
    var total = try workspace.storeTotals(db, store: store).bytes
    // Counted, and then lowered by each removal: what the store holds when the trim ends.
    defer { workspace.noteCounted(store: store, bytes: total) }
    guard total > limit else { return [] }
    var removed: [Removed] = []
    let rows = try Row.fetchCursor(
      db, sql: "SELECT key, bytes FROM entry WHERE store = ? ORDER BY \(order)",
      arguments: [store])
    while total > limit, let row = try rows.next() {
      let entry: Removed = try (
        row.stored("key", of: "entry"), row.storedCount("bytes", of: "entry")
      )
      removed.append(entry)
      total -= entry.bytes
    }
    let delete = try db.cachedStatement(sql: "DELETE FROM entry WHERE store = ? AND key = ?")
    for entry in removed { try delete.execute(arguments: [store, entry.key]) }
    return removed
  }

  private func deleteReturningKeys(
    _ db: Database, condition: String, arguments: StatementArguments
  ) throws -> [String] {
    try String.fetchAll(
      db, sql: "DELETE FROM entry WHERE store = ? AND \(condition) RETURNING key",
      arguments: arguments
    ).sorted()
  }

  /// When an entry expires: its own age limit, else the store's, counted from its creation.
  package struct Expiry {
    /// The store's age limit, in seconds; 0 means none.
    let storeAgeLimit: Double
    /// The time to judge at.
    let now: Double

    /// The rule for `limits` at `now`.
    package init(limits: StoreLimits, now: Double) {
      self.storeAgeLimit = limits.ageLimit
      self.now = now
    }

    // The Swift predicate and the SQL condition below are the same rule; change them together.

    /// Whether an entry created at `createdAt`, with its own age limit or none, has expired.
    package func isExpired(createdAt: Double, entryAgeLimit: Double?) -> Bool {
      let ageLimit = entryAgeLimit ?? storeAgeLimit
      return ageLimit > 0 && createdAt + ageLimit <= now
    }

    /// The same rule in SQL, with `sqlArguments`.
    var sqlCondition: String {
      "coalesce(age_limit, ?) > 0 AND created_at + coalesce(age_limit, ?) <= ?"
    }

    /// The arguments of `sqlCondition`.
    var sqlArguments: StatementArguments {
      [storeAgeLimit, storeAgeLimit, now]
    }
  }
}
