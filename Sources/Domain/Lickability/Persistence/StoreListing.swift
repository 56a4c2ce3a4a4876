import Foundation
import GRDB
import Runtime

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
      let live = liveFilter(limits)
      var sql = "SELECT key FROM entry WHERE store = ? AND key >= ?"
      var arguments: StatementArguments = [identifier, prefix]
      if let upper = Self.prefixUpperBound(prefix) {
        sql += " AND key < ?"
        arguments += [upper]
      }
      sql += " AND \(live.condition) ORDER BY key LIMIT ?"
      arguments += live.arguments + [limit ?? -1]
      return try String.fetchAll(db, sql: sql, arguments: arguments)
    }
  }

  /// The values of the live entries, in key order, without counting as reads: listing a store
  /// does not change which entries are least recently used.
  public func peekObjects(limit: Int? = nil) throws -> [(key: String, value: Data)] {
    try traced("peekObjects", [], sql: "SELECT key, value FROM entry") { db, limits in
      let live = liveFilter(limits)
      let rows = try Row.fetchAll(
        db,
        sql: """
          SELECT key, value FROM entry WHERE store = ? AND \(live.condition)
          ORDER BY key LIMIT ?
          """,
        arguments: [identifier] + live.arguments + [limit ?? -1])
      return rows.map { (key: $0["key"], value: $0["value"]) }
    }
  }

  /// Every entry's metadata, in key order, with the latest access times (expired ones left out
  /// in TTL mode).
  public func entries() throws -> [EntryInfo] {
    // This session's reads and the log are folded in when the write lock is free; what stays in
    // the log (another process writes, or the workspace is read-only) is added in here.
    workspace.foldTouchesIfFree()
    return try traced("entries", [], sql: "SELECT entry") { db, limits in
      let live = liveFilter(limits)
      let logged = try Workspace.loggedReads(db, store: identifier)
      return try Row.fetchAll(
        db,
        sql: """
          SELECT key, bytes, created_at, accessed_at, access_count, age_limit
          FROM entry WHERE store = ? AND \(live.condition)
          ORDER BY key
          """, arguments: [identifier] + live.arguments
      ).map { row in
        let key: String = row["key"]
        let created: Double = row["created_at"]
        var accessed: Double = row["accessed_at"]
        var accessCount: Int = row["access_count"]
        if let reads = logged[Workspace.LoggedKey(store: identifier, key: key, created: created)] {
          accessed = max(accessed, reads.time)
          accessCount += reads.reads
        }
        return EntryInfo(
          key: key, bytes: row["bytes"], created: Date(timeIntervalSince1970: created),
          accessed: Date(timeIntervalSince1970: accessed), accessCount: accessCount,
          ageLimit: row["age_limit"])
      }
    }
  }

  /// The total byte count of the store's values, expired ones included until they are trimmed.
  public func byteCount() throws -> Int {
    try traced("byteCount", [], sql: "SELECT store") { db, _ in
      try workspace.storeTotals(db, store: identifier).bytes
    }
  }

  /// The byte count of one key's value; `objectNotFound` when it is missing (or expired, in TTL
  /// mode).
  public func byteCount(forKey key: String) throws -> Int {
    let bytes: Int? = try traced("byteCount", [("key", key)], sql: "SELECT bytes FROM entry") {
      db, limits in
      let live = liveFilter(limits)
      return try Int.fetchOne(
        db, sql: "SELECT bytes FROM entry WHERE store = ? AND key = ? AND \(live.condition)",
        arguments: [identifier, key] + live.arguments)
    }
    guard let bytes else { throw Error.objectNotFound(store: identifier, keys: [key]) }
    return bytes
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
