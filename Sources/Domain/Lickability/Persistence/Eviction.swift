import Foundation
import GRDB
import Runtime

/// Eviction: trimming a store by size, by date or by age, and the one rule that decides when an
/// entry has expired.
extension PersistenceController {
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
          return try trimOrdered(db, toBytes: bytes, order: "bytes DESC, key")
        case .leastRecentlyUsed(let bytes):
          return try trimLeastRecentlyUsed(db, toBytes: bytes)
        case .toDate(let date):
          return try deleteReturningKeys(
            db, condition: "created_at < ? AND coalesce(age_limit, 0) <= 0",
            arguments: [identifier, date.timeIntervalSince1970])
        case .expired:
          let expiry = Expiry(limits: limits, now: now().timeIntervalSince1970)
          return try deleteReturningKeys(
            db, condition: expiry.sqlCondition, arguments: [identifier] + expiry.sqlArguments)
        }
      }
      span.setAttribute("removed", String(removed.count))
      span.setAttribute("sql", "DELETE entry")
      publish(trim == .expired ? .expire : .trim, removed)
      return removed
    }
  }

  /// Trims by least recent access to `limit` bytes; a limit of 0 means none, as in PINCache.
  func trimLeastRecentlyUsed(_ db: Database, toBytes limit: Int) throws -> [String] {
    guard limit > 0 else { return [] }
    try Workspace.compactTouches(db)
    return try trimOrdered(db, toBytes: limit, order: "accessed_at, key")
  }

  /// Removes expired entries at the first write to the store, then at most once a minute: the
  /// timer PINCache runs for its age limit, without a timer.
  func trimExpiredPeriodically(_ db: Database, limits: Limits, time: Double, span: Span) throws {
    guard limits.ageLimit > 0, workspace.claimAgeTrim(store: identifier, at: time) else { return }
    let expiry = Expiry(limits: limits, now: time)
    let removed = try deleteReturningKeys(
      db, condition: expiry.sqlCondition, arguments: [identifier] + expiry.sqlArguments)
    if !removed.isEmpty { span.setAttribute("expired", removed.joined(separator: ", ")) }
  }

  /// Deletes entries in `order` until the store holds at most `limit` bytes.
  private func trimOrdered(_ db: Database, toBytes limit: Int, order: String) throws -> [String] {
    try trimOrderedEntries(db, toBytes: limit, order: order).map(\.key)
  }

  /// Deletes the least recently accessed entries until the store holds at most `limit` bytes, and
  /// returns each one removed with its byte count.
  func trimLeastRecentlyUsedEntries(_ db: Database, toBytes limit: Int) throws -> [RemovedEntry] {
    guard limit > 0 else { return [] }
    try Workspace.compactTouches(db)
    return try trimOrderedEntries(db, toBytes: limit, order: "accessed_at, key")
  }

  private func trimOrderedEntries(_ db: Database, toBytes limit: Int, order: String) throws
    -> [RemovedEntry]
  {
    var total = try workspace.storeTotals(db, store: identifier).bytes
    // Counted, and then lowered by each removal: what the store holds when the trim ends.
    defer { workspace.noteCounted(store: identifier, bytes: total) }
    guard total > limit else { return [] }
    var removed: [RemovedEntry] = []
    let rows = try Row.fetchCursor(
      db, sql: "SELECT key, bytes FROM entry WHERE store = ? ORDER BY \(order)",
      arguments: [identifier])
    while total > limit, let row = try rows.next() {
      let entry = RemovedEntry(key: row["key"], bytes: row["bytes"])
      removed.append(entry)
      total -= entry.bytes
    }
    let delete = try db.cachedStatement(sql: "DELETE FROM entry WHERE store = ? AND key = ?")
    for entry in removed { try delete.execute(arguments: [identifier, entry.key]) }
    return removed
  }

  /// Deletes the store's entries that meet `condition` and returns their keys, sorted.
  ///
  /// `arguments` bind the SQL's `?`s in order: the store's name first, then the condition's.
  private func deleteReturningKeys(_ db: Database, condition: String, arguments: StatementArguments)
    throws -> [String]
  {
    try String.fetchAll(
      db, sql: "DELETE FROM entry WHERE store = ? AND \(condition) RETURNING key",
      arguments: arguments
    ).sorted()
  }

  /// The SQL condition that an entry is live, with its arguments in the order of its `?`s.
  ///
  /// In TTL mode an expired entry reads as missing, so a listing leaves it out; otherwise every
  /// entry is live. Expiry is decided by `Expiry`, as for reads and trims.
  func liveFilter(_ limits: Limits) -> (condition: String, arguments: StatementArguments) {
    let expiry = Expiry(limits: limits, now: now().timeIntervalSince1970)
    let arguments: StatementArguments = [limits.ttl] + expiry.sqlArguments
    return ("NOT (? AND \(expiry.sqlCondition))", arguments)
  }

  /// When an entry has expired: its age limit (its own `age_limit`, else the store's) is above 0
  /// and `created_at + that limit <= now`.
  ///
  /// This is the only place the rule is written, once in Swift for a value already read and once
  /// in SQL for queries; reads, listings and trims all go through it.
  struct Expiry {
    /// The store's age limit, which applies to an entry without one of its own.
    let storeAgeLimit: Double
    /// The time, in seconds since 1970, that ages are measured at.
    let now: Double

    /// The rule for a store with `limits`, at `now` (seconds since 1970).
    init(limits: Limits, now: Double) {
      self.storeAgeLimit = limits.ageLimit
      self.now = now
    }

    // The Swift predicate and the SQL condition below are the same rule; change them together.

    /// Whether an entry created at `createdAt`, with its own age limit `entryAgeLimit` (nil when
    /// it has none), has expired.
    func isExpired(createdAt: Double, entryAgeLimit: Double?) -> Bool {
      let ageLimit = entryAgeLimit ?? storeAgeLimit
      return ageLimit > 0 && createdAt + ageLimit <= now
    }

    /// The rule as an SQL condition on the `entry` table; `sqlArguments` binds its `?`s.
    var sqlCondition: String {
      "coalesce(age_limit, ?) > 0 AND created_at + coalesce(age_limit, ?) <= ?"
    }

    /// The values of `sqlCondition`'s `?`s, in order.
    var sqlArguments: StatementArguments {
      [storeAgeLimit, storeAgeLimit, now]
    }
  }
}
