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
      let applied = try schema.migrator.appliedMigrations(db).last ?? "none"
      let stores = try allStoreTotals(db).sorted { $0.key < $1.key }
        .map { (store: $0.key, entries: $0.value.entries) }
      let size = path == ":memory:" ? 0 : Self.fileSize(path)
      return Info(
        path: path, fileBytes: size, schemaVersion: applied, journalMode: journal,
        entriesPerStore: stores)
    }
  }

  /// Runs `PRAGMA integrity_check`.
  ///
  /// Returns `["ok"]` when all is sound, and otherwise one problem per element. SQLite reports
  /// at most `integrityCheckLimit` problems.
  /// Triggers and views archsh did not create are problems too: the file is refused for writing
  /// while it holds them.
  public func integrityCheck() throws -> [String] {
    let foreign = foreignSchema.map {
      "\($0) was not created by archsh: the workspace is refused for writing while it holds it"
    }
    return try read { db in
      let lines = try String.fetchAll(db, sql: "PRAGMA integrity_check")
      guard lines == ["ok"] else {
        // SQLite puts a database's problems in one row, one per line, under a line that names
        // the database (`*** in database main ***`).
        return lines.flatMap { $0.split(separator: "\n").map(String.init) }
          .filter { !$0.hasPrefix("*** in database ") } + foreign
      }
      return foreign.isEmpty ? ["ok"] : foreign
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
