import Foundation
import GRDB
import Plumbing
import Synchronization

/// Where the Logger's lines and each tag's settings are kept: the workspace's `log_lines` and
/// `logger_settings` tables, and the lines held in memory until they are written.
///
/// Lines arrive from any thread, event loops included, so they are held and written in one
/// transaction by `flush()`: like the access times of reads, a crash loses at most those last
/// lines, never data. Levels are their raw values; Domain's `LogBook` names them.
package final class LogStore: Sendable {
  /// One kept line, as stored.
  package struct Line: Sendable {
    /// Its number in the log, counting from 1.
    package let number: Int64
    /// When it was logged.
    package let date: Date
    /// The logger's tag.
    package let tag: String
    /// Its level's raw value.
    package let level: Int
    /// The text.
    package let message: String
  }

  /// A tag's stored switch and threshold (a level's raw value).
  package struct Setting: Sendable {
    /// The tag.
    package let tag: String
    /// Whether its lines are kept.
    package let enabled: Bool
    /// The least severe level kept, as a raw value.
    package let threshold: Int

    /// A setting to store.
    package init(tag: String, enabled: Bool, threshold: Int) {
      self.tag = tag
      self.enabled = enabled
      self.threshold = threshold
    }
  }

  /// How many lines the workspace keeps; older ones are deleted as new ones arrive.
  package static let capacity = 10_000
  /// How many held lines a script writes at once.
  package static let batch = 256
  /// How long a held line waits at most before a script writes it, in seconds.
  package static let longestWait = 0.5

  /// How many lines one INSERT writes at most.
  static let rowsPerInsert = 32
  /// The INSERT of 1 to `rowsPerInsert` lines, by count less one.
  private static let insertSQL = (1...rowsPerInsert).map { count in
    "INSERT INTO log_lines (logged_at, tag, level, message) VALUES "
      + Array(repeating: "(?, ?, ?, ?)", count: count).joined(separator: ", ")
  }

  private let workspace: Workspace
  private let pending = Mutex<[Line]>([])

  /// The log of `workspace`.
  package init(workspace: Workspace) { self.workspace = workspace }

  /// Every tag's stored setting.
  package func settings() throws -> [Setting] {
    try workspace.read { db in
      try Row.fetchAll(db, sql: "SELECT tag, enabled, threshold FROM logger_settings").map {
        try Setting(
          tag: $0.stored("tag", of: "logger_settings"),
          enabled: $0.stored("enabled", of: "logger_settings"),
          threshold: $0.stored("threshold", of: "logger_settings"))
      }
    }
  }

  /// Stores a tag's setting.
  package func store(_ setting: Setting) throws {
    try workspace.write("changing a logger's settings") { db in
      try db.execute(
        sql: """
          INSERT INTO logger_settings (tag, enabled, threshold) VALUES (?, ?, ?)
          ON CONFLICT (tag) DO UPDATE SET enabled = excluded.enabled, threshold = excluded.threshold
          """, arguments: [setting.tag, setting.enabled, setting.threshold])
    }
  }

  /// How many lines each tag has, those held included.
  package func lineCounts() throws -> [String: Int] {
    try flush()
    return try workspace.read { db in
      var counts: [String: Int] = [:]
      for row in try Row.fetchAll(
        db, sql: "SELECT tag, COUNT(*) AS count FROM log_lines GROUP BY tag")
      {
        counts[try row.stored("tag", of: "log_lines")] = try row.stored("count", of: "log_lines")
      }
      return counts
    }
  }

  /// Holds a line until the next write (from any thread).
  package func hold(tag: String, level: Int, message: String) {
    pending.withLock {
      $0.append(Line(number: 0, date: Date(), tag: tag, level: level, message: message))
    }
  }

  /// Writes the held lines if there are `batch` of them or the oldest has waited `longestWait`.
  package func flushIfDue(now: Date = Date()) throws {
    let due = pending.withLock { held in
      guard let oldest = held.first else { return false }
      return held.count >= Self.batch || now.timeIntervalSince(oldest.date) >= Self.longestWait
    }
    if due { try flush() }
  }

  /// Writes the held lines, dropping the oldest past `capacity`; a workspace that cannot keep
  /// them (read-only) leaves them held, readable until the process ends.
  package func flush() throws {
    let lines = pending.withLock { held in
      defer { held = [] }
      return held
    }
    guard !lines.isEmpty else { return }
    do {
      try workspace.write("keeping log lines", alongsideReads: true) { db in
        // Up to `rowsPerInsert` lines go in one INSERT: SQLite's work at the end of a statement
        // (the AUTOINCREMENT counter in `sqlite_sequence`, the statement's close) is then paid
        // once for them, not once a line (docs/performance.md, "P9's log lines").
        var start = 0
        while start < lines.count {
          let rows = lines[start..<min(start + Self.rowsPerInsert, lines.count)]
          let insert = try FastStatement(db, Self.insertSQL[rows.count - 1])
          var parameter: Int32 = 1
          for line in rows {
            insert.bind(parameter, line.date.timeIntervalSince1970)
            try insert.bind(parameter + 1, line.tag)
            insert.bind(parameter + 2, line.level)
            try insert.bind(parameter + 3, line.message)
            parameter += 4
          }
          try insert.step()
          insert.finish()
          start += rows.count
        }
        try db.cachedStatement(
          sql: "DELETE FROM log_lines WHERE id <= (SELECT MAX(id) FROM log_lines) - ?"
        ).execute(arguments: [Self.capacity])
      }
    } catch {
      pending.withLock { $0 = lines + $0 }
      throw error
    }
  }

  /// The kept lines, oldest first: of one tag, or after line `afterNumber`, or since `since`, at
  /// most the newest `limit`.
  package func lines(
    tag: String? = nil, afterNumber: Int64? = nil, since: Date? = nil, limit: Int = 1000
  ) throws -> [Line] {
    try? flush()
    var conditions: [String] = []
    var arguments: [(any DatabaseValueConvertible)?] = []
    if let tag {
      conditions.append("tag = ?")
      arguments.append(tag)
    }
    if let afterNumber {
      conditions.append("id > ?")
      arguments.append(afterNumber)
    }
    if let since {
      conditions.append("logged_at >= ?")
      arguments.append(since.timeIntervalSince1970)
    }
    let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
    arguments.append(limit)
    return try workspace.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT * FROM (
            SELECT id, logged_at, tag, level, message FROM log_lines \(filter)
            ORDER BY id DESC LIMIT ?
          ) ORDER BY id
          """, arguments: StatementArguments(arguments)
      ).map { row in
        let table = "log_lines"
        return try Line(
          number: row.stored("id", of: table),
          date: Date(timeIntervalSince1970: row.stored("logged_at", of: table)),
          tag: row.stored("tag", of: table), level: row.stored("level", of: table),
          message: row.stored("message", of: table))
      }
    }
  }

  /// Deletes every line, those held included; returns how many were kept.
  package func clear() throws -> Int {
    pending.withLock { $0 = [] }
    return try workspace.write("clearing the log") { db in
      try db.execute(sql: "DELETE FROM log_lines")
      return db.changesCount
    }
  }

  /// The `log_lines` and `logger_settings` tables.
  package static let migration = Migration(identifier: "v5-log") { db in
    try db.execute(
      sql: """
        CREATE TABLE log_lines (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          logged_at REAL NOT NULL,
          tag TEXT NOT NULL,
          level INTEGER NOT NULL,
          message TEXT NOT NULL
        );
        CREATE INDEX log_lines_by_tag ON log_lines (tag, id);
        CREATE TABLE logger_settings (
          tag TEXT PRIMARY KEY,
          enabled INTEGER NOT NULL,
          threshold INTEGER NOT NULL
        );
        """)
  }
}
