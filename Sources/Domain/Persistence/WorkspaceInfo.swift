import Foundation
import GRDB

extension Workspace {
  /// What `db info` shows.
  public struct Info: Sendable {
    /// The path, or `:memory:`.
    public var path: String
    /// The size of the database file in bytes (0 in memory).
    public var fileBytes: Int
    /// The last applied migration.
    public var schemaVersion: String
    /// `wal`, `memory` or `delete`.
    public var journalMode: String
    /// Each store with its number of entries, by name.
    public var entriesPerStore: [(store: String, entries: Int)]
  }

  /// The workspace's path, size, schema version, journal mode and entries per store.
  public func info() throws -> Info {
    try read { db in
      let journal = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?"
      let applied = try Self.migrator.appliedMigrations(db).last ?? "none"
      let stores = try Row.fetchAll(db, sql: "SELECT name, entry_count FROM store ORDER BY name")
        .map { (store: $0["name"] as String, entries: $0["entry_count"] as Int) }
      let size = path == ":memory:" ? 0 : Self.fileSize(path)
      return Info(
        path: path, fileBytes: size, schemaVersion: applied, journalMode: journal,
        entriesPerStore: stores)
    }
  }

  /// Runs `PRAGMA integrity_check`, then checks that each store's entry count and byte total
  /// (kept by triggers) match its entries.
  ///
  /// Returns `["ok"]` when all is sound, and otherwise one problem per element. SQLite reports
  /// at most `integrityCheckLimit` problems.
  public func integrityCheck() throws -> [String] {
    try read { db in
      let lines = try String.fetchAll(db, sql: "PRAGMA integrity_check")
      guard lines == ["ok"] else {
        // SQLite puts a database's problems in one row, one per line, under a line that names
        // the database (`*** in database main ***`).
        return lines.flatMap { $0.split(separator: "\n").map(String.init) }
          .filter { !$0.hasPrefix("*** in database ") }
      }
      let mismatches = try Row.fetchAll(
        db,
        sql: """
          SELECT s.name, s.entry_count, s.total_bytes, count(e.key) AS row_count, coalesce(sum(e.bytes), 0) AS byte_sum
          FROM store s LEFT JOIN entry e ON e.store = s.name
          GROUP BY s.name HAVING s.entry_count != row_count OR s.total_bytes != byte_sum
          """)
      guard !mismatches.isEmpty else { return ["ok"] }
      return mismatches.map { row in
        let name: String = row[0]
        return
          "store '\(name)' counts \(row[1] as Int) entries and \(row[2] as Int) bytes, but holds \(row[3] as Int) and \(row[4] as Int)"
      }
    }
  }

  /// The most problems SQLite's integrity check reports before it stops looking.
  public static let integrityCheckLimit = 100

  /// The size of the database file and its WAL file, in bytes.
  private static func fileSize(_ path: String) -> Int {
    var total = 0
    for suffix in ["", "-wal"] {
      var status = stat()
      if stat(path + suffix, &status) == 0 { total += Int(status.st_size) }
    }
    return total
  }
}
