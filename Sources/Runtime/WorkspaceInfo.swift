import Foundation
import GRDB
import Plumbing

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
      let problems = try Self.valueTypeProblems(db) + foreign
      return problems.isEmpty ? ["ok"] : problems
    }
  }

  /// The columns holding values of a type archsh does not write there, by their declared type
  /// (a NULL where the column says NOT NULL included): only a file changed outside archsh has
  /// them, and a command that reads one fails with `WorkspaceError.damaged`.
  ///
  /// SQLite's own check looks at neither: a column that is not STRICT takes any value.
  static func valueTypeProblems(_ db: Database) throws -> [String] {
    var problems: [String] = []
    let tables = try String.fetchAll(
      db,
      sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        + "ORDER BY name")
    for table in tables where problems.count < integrityCheckLimit {
      do {
        problems += try valueTypeProblems(db, table: table)
        problems += try countProblems(db, table: table)
      } catch let error as DatabaseError {
        // A table SQLite cannot read (a virtual table of a module this build lacks) is named,
        // and the check goes on.
        problems.append(
          "\(StoredValueError.shownName(table)): cannot be checked ("
            + StoredValueError.shownName(error.message ?? "SQLite error \(error.resultCode)") + ")")
      }
    }
    return Array(problems.prefix(integrityCheckLimit))
  }

  /// The value-type problems of one table's columns.
  private static func valueTypeProblems(_ db: Database, table: String) throws -> [String] {
    var problems: [String] = []
    let columns = try Row.fetchAll(
      db, sql: "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?)",
      arguments: [table])
    for column in columns {
      let info = "pragma_table_info"
      guard let name = try? column.stored("name", of: info, as: String.self),
        let declared = try? column.stored("type", of: info, as: String.self),
        var allowed = Self.storageClasses[declared.uppercased()]
      else { continue }
      // A key column is read as never NULL, although SQLite lets a TEXT PRIMARY KEY of a table
      // with a rowid hold one.
      let notNull = (try? column.stored("notnull", of: info, as: Int.self)) == 1
      let isKey = ((try? column.stored("pk", of: info, as: Int.self)) ?? 0) > 0
      if !notNull, !isKey { allowed.append("null") }
      let classes = allowed.map { "'\($0)'" }.joined(separator: ", ")
      let found = try Row.fetchAll(
        db,
        sql: """
          SELECT typeof(\(identifier(name))) AS kind, count(*) AS count
          FROM \(identifier(table))
          WHERE typeof(\(identifier(name))) NOT IN (\(classes))
          GROUP BY 1 ORDER BY 1
          """)
      for row in found {
        let kind = (try? row.stored("kind", of: table, as: String.self)) ?? "?"
        let count = (try? row.stored("count", of: table, as: Int.self)) ?? 0
        problems.append(
          "\(StoredValueError.shownName(table)).\(StoredValueError.shownName(name)): "
            + "\(count) \(count == 1 ? "row holds" : "rows hold") \(kind), "
            + "where archsh keeps \(Self.storedKinds[declared.uppercased()] ?? declared)")
      }
    }
    return problems
  }

  /// The columns archsh reads as counts (`Row.storedCount`, or summed into one), by table.
  static let countColumns = [
    "ds_block": ["count"], "entry": ["bytes", "access_count"],
    "learner_progress": ["tries", "hints"], "repositories": ["element_count"],
  ]

  /// The integers of a count column outside 0 to 2^53, which the commands that read them refuse.
  private static func countProblems(_ db: Database, table: String) throws -> [String] {
    try (countColumns[table] ?? []).compactMap { column in
      let count =
        try Int.fetchOne(
          db,
          sql: """
            SELECT count(*) FROM \(identifier(table))
            WHERE typeof(\(identifier(column))) = 'integer'
              AND (\(identifier(column)) < 0 OR \(identifier(column)) > \(Row.countLimit))
            """) ?? 0
      guard count > 0 else { return nil }
      return "\(table).\(column): \(count) \(count == 1 ? "row holds" : "rows hold") "
        + "a count below 0 or above 2^53"
    }
  }

  /// A table's or a column's name quoted for SQL, its own double quotes doubled: a name from the
  /// file cannot end the quotes and add SQL of its own. (GRDB's `quotedDatabaseIdentifier` does
  /// not double them.)
  static func identifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  /// What each declared type of archsh's schema holds, in the words `StoredValueError` uses.
  private static let storedKinds = [
    "INTEGER": "an integer", "REAL": "a number", "TEXT": "text", "BLOB": "bytes",
  ]

  /// The storage classes (`typeof`) each declared type of archsh's schema holds.
  private static let storageClasses: [String: [String]] = [
    "INTEGER": ["integer"], "REAL": ["real", "integer"], "TEXT": ["text"], "BLOB": ["blob"],
  ]

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
