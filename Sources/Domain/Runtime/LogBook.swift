import Foundation
import GRDB
import Plumbing
import Runtime
import Synchronization

/// One kept log line.
public struct LogLine: Sendable, Equatable {
  /// Its number in the workspace's log, counting from 1.
  public let number: Int64
  /// When it was logged.
  public let date: Date
  /// The logger's tag.
  public let tag: String
  /// Its level.
  public let level: LogLevel
  /// The text, already redacted.
  public let message: String
}

/// A tag's switch and threshold (BDModules keeps them as `LoggerSettings` in user defaults).
public struct LoggerSetting: Sendable, Equatable {
  /// The tag.
  public let tag: String
  /// Whether its lines are kept.
  public var enabled: Bool
  /// The least severe level kept.
  public var threshold: LogLevel
}

/// The workspace's log: every line the Loggers keep (`log_lines`) and each tag's settings
/// (`logger_settings`), so that a script can set a scene and a later session can read it.
///
/// Lines arrive from any thread, event loops included, so they are held in memory and written in
/// one transaction by `flush()`. The shell writes them before each prompt, when a command reads
/// the log, when the session ends, and in a script once `batch` lines are held or the oldest has
/// waited `longestWait` (`flushIfDue()`): like the access times of reads, a crash loses at most
/// those last lines of the log, never data.
public final class LogBook: Sendable {
  /// The tags archsh's loggers use, with what logs under each.
  public static let knownTags: [(tag: String, summary: String)] = [
    ("API", "APISessionManager: [REQUEST] and [RESPONSE] lines"),
    ("OAuth2", "OAuth2Authorization: 401s queued, refreshes, replays"),
    ("Model", "ModelFactory: objects that do not map"),
    ("Application Lifecycle", "the app delegate's launch"),
  ]
  /// A tag's setting until it is changed.
  public static let defaultThreshold = LogLevel.info
  /// How many lines the workspace keeps; older ones are deleted as new ones arrive.
  public static let capacity = 10_000
  /// How many held lines a script writes at once.
  public static let batch = 256
  /// How long a held line waits at most before a script writes it, in seconds.
  public static let longestWait = 0.5

  private let workspace: Workspace
  private let settings: Mutex<[String: LoggerSetting]>
  private let pending = Mutex<[PendingLine]>([])

  /// A line held in memory until `flush()` writes it.
  private struct PendingLine: Sendable {
    var date: Date
    var tag: String
    var level: LogLevel
    var message: String
  }

  /// The stream each line is also published to.
  let events: EventStream?
  /// The session's secrets, hidden in every line kept.
  let secrets: SecretValues

  /// Opens the log in `workspace`, reading the tags' settings; lines are also published to
  /// `events`, and `secrets` are hidden in every one.
  public init(
    workspace: Workspace, events: EventStream? = nil, secrets: SecretValues = SecretValues()
  ) throws {
    self.workspace = workspace
    self.events = events
    self.secrets = secrets
    let rows = try workspace.read { db in
      try Row.fetchAll(db, sql: "SELECT tag, enabled, threshold FROM logger_settings")
    }
    var stored: [String: LoggerSetting] = [:]
    for row in rows {
      let tag: String = row["tag"]
      stored[tag] = LoggerSetting(
        tag: tag, enabled: row["enabled"],
        threshold: LogLevel(rawValue: row["threshold"]) ?? Self.defaultThreshold)
    }
    settings = Mutex(stored)
  }

  /// The tag's setting: the stored one, else enabled at the default threshold.
  public func setting(for tag: String) -> LoggerSetting {
    settings.withLock { $0[tag] }
      ?? LoggerSetting(
        tag: tag, enabled: true, threshold: Self.defaultThreshold)
  }

  /// Changes a tag's switch or threshold and stores it.
  public func update(tag: String, enabled: Bool? = nil, threshold: LogLevel? = nil) {
    try? store(tag: tag, enabled: enabled, threshold: threshold)
  }

  /// Changes a tag's switch or threshold and stores it, or says why it could not be stored.
  public func store(tag: String, enabled: Bool? = nil, threshold: LogLevel? = nil) throws {
    var setting = self.setting(for: tag)
    if let enabled { setting.enabled = enabled }
    if let threshold { setting.threshold = threshold }
    let changed = setting
    try workspace.write("changing a logger's settings") { db in
      try db.execute(
        sql: """
          INSERT INTO logger_settings (tag, enabled, threshold) VALUES (?, ?, ?)
          ON CONFLICT (tag) DO UPDATE SET enabled = excluded.enabled, threshold = excluded.threshold
          """, arguments: [changed.tag, changed.enabled, changed.threshold.rawValue])
    }
    settings.withLock { $0[tag] = changed }
  }

  /// Every tag that has a setting or a line, with the known ones first.
  public func tags() throws -> [(setting: LoggerSetting, lines: Int)] {
    try flush()
    let counts = try workspace.read { db in
      try Row.fetchAll(db, sql: "SELECT tag, COUNT(*) AS count FROM log_lines GROUP BY tag")
    }
    var lines: [String: Int] = [:]
    for row in counts { lines[row["tag"]] = row["count"] }
    let stored = settings.withLock { Array($0.keys) }
    var names = Self.knownTags.map(\.tag)
    for tag in (stored + Array(lines.keys)).sorted() where !names.contains(tag) {
      names.append(tag)
    }
    return names.map { (setting(for: $0), lines[$0] ?? 0) }
  }

  /// Keeps a line (called by archsh's swift-log handler, from any thread).
  func append(tag: String, level: LogLevel, message: String) {
    pending.withLock {
      $0.append(PendingLine(date: Date(), tag: tag, level: level, message: message))
    }
    events?.publish(.log) { .log(LoggedLine(tag: tag, level: level, message: message)) }
  }

  /// Writes the held lines if there are `batch` of them or the oldest has waited `longestWait`.
  public func flushIfDue(now: Date = Date()) throws {
    let due = pending.withLock { held in
      guard let oldest = held.first else { return false }
      return held.count >= Self.batch || now.timeIntervalSince(oldest.date) >= Self.longestWait
    }
    if due { try flush() }
  }

  /// Writes the lines held in memory to the workspace, dropping the oldest past `capacity`.
  public func flush() throws {
    let lines = pending.withLock { held in
      defer { held = [] }
      return held
    }
    guard !lines.isEmpty else { return }
    do {
      try workspace.write("keeping log lines", alongsideReads: true) { db in
        let insert = try FastStatement(
          db, "INSERT INTO log_lines (logged_at, tag, level, message) VALUES (?, ?, ?, ?)")
        for line in lines {
          insert.bind(1, line.date.timeIntervalSince1970)
          try insert.bind(2, line.tag)
          insert.bind(3, line.level.rawValue)
          try insert.bind(4, line.message)
          try insert.step()
          insert.finish()
        }
        try db.cachedStatement(
          sql: "DELETE FROM log_lines WHERE id <= (SELECT MAX(id) FROM log_lines) - ?"
        ).execute(arguments: [Self.capacity])
      }
    } catch {
      // A read-only workspace cannot keep them; they stay readable until the process ends.
      pending.withLock { $0 = lines + $0 }
      throw error
    }
  }

  /// The kept lines, oldest first: of one tag, or after line `afterNumber`, or since `since`,
  /// at most the newest `limit`.
  public func lines(
    tag: String? = nil, afterNumber: Int64? = nil, since: Date? = nil, limit: Int = 1000
  ) throws -> [LogLine] {
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
    let rows = try workspace.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT * FROM (
            SELECT id, logged_at, tag, level, message FROM log_lines \(filter)
            ORDER BY id DESC LIMIT ?
          ) ORDER BY id
          """, arguments: StatementArguments(arguments))
    }
    return rows.map { row in
      LogLine(
        number: row["id"], date: Date(timeIntervalSince1970: row["logged_at"]), tag: row["tag"],
        level: LogLevel(rawValue: row["level"]) ?? .info, message: row["message"])
    }
  }

  /// Deletes every kept line; returns how many there were.
  @discardableResult
  public func clear() throws -> Int {
    pending.withLock { $0 = [] }
    return try workspace.write("clearing the log") { db in
      try db.execute(sql: "DELETE FROM log_lines")
      return db.changesCount
    }
  }
}

extension LogBook {
  /// The `log_lines` and `logger_settings` tables.
  static let migration = Migration(identifier: "v5-log") { db in
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
