import Foundation
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

/// The workspace's log as the Loggers see it: every line they keep and each tag's settings, so
/// that a script can set a scene and a later session can read it.
///
/// Lines arrive from any thread, event loops included; the runtime's `LogStore` holds them and
/// writes them in batches. The shell writes them before each prompt, when a command reads the
/// log, when the session ends, and in a script once `batch` lines are held or the oldest has
/// waited `longestWait` (`flushIfDue()`): a crash loses at most those last lines, never data.
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
  public static let capacity = LogStore.capacity
  /// How many held lines a script writes at once.
  public static let batch = LogStore.batch
  /// How long a held line waits at most before a script writes it, in seconds.
  public static let longestWait = LogStore.longestWait

  private let store: LogStore
  private let settings: Mutex<[String: LoggerSetting]>

  /// The stream each line is also published to.
  let events: EventStream?
  /// The session's secrets, hidden in every line kept.
  let secrets: SecretValues

  /// Opens the log in `workspace`, reading the tags' settings; lines are also published to
  /// `events`, and `secrets` are hidden in every one.
  public init(
    workspace: Workspace, events: EventStream? = nil, secrets: SecretValues = SecretValues()
  ) throws {
    store = LogStore(workspace: workspace)
    self.events = events
    self.secrets = secrets
    var stored: [String: LoggerSetting] = [:]
    for setting in try store.settings() {
      stored[setting.tag] = LoggerSetting(
        tag: setting.tag, enabled: setting.enabled,
        threshold: LogLevel(rawValue: setting.threshold) ?? Self.defaultThreshold)
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
    try store.store(
      LogStore.Setting(
        tag: setting.tag, enabled: setting.enabled, threshold: setting.threshold.rawValue))
    let changed = setting
    settings.withLock { $0[tag] = changed }
  }

  /// Every tag that has a setting or a line, with the known ones first.
  public func tags() throws -> [(setting: LoggerSetting, lines: Int)] {
    let lines = try store.lineCounts()
    let stored = settings.withLock { Array($0.keys) }
    var names = Self.knownTags.map(\.tag)
    for tag in (stored + Array(lines.keys)).sorted() where !names.contains(tag) {
      names.append(tag)
    }
    return names.map { (setting(for: $0), lines[$0] ?? 0) }
  }

  /// Keeps a line (called by archsh's swift-log handler, from any thread).
  func append(tag: String, level: LogLevel, message: String) {
    store.hold(tag: tag, level: level.rawValue, message: message)
    events?.publish(.log) { .log(LoggedLine(tag: tag, level: level, message: message)) }
  }

  /// Writes the held lines if there are `batch` of them or the oldest has waited `longestWait`.
  public func flushIfDue(now: Date = Date()) throws { try store.flushIfDue(now: now) }

  /// Writes the lines held in memory to the workspace, dropping the oldest past `capacity`.
  ///
  /// A read-only workspace cannot keep them; they stay readable until the process ends.
  public func flush() throws { try store.flush() }

  /// The kept lines, oldest first: of one tag, or after line `afterNumber`, or since `since`,
  /// at most the newest `limit`.
  public func lines(
    tag: String? = nil, afterNumber: Int64? = nil, since: Date? = nil, limit: Int = 1000
  ) throws -> [LogLine] {
    try store.lines(tag: tag, afterNumber: afterNumber, since: since, limit: limit).map {
      LogLine(
        number: $0.number, date: $0.date, tag: $0.tag,
        level: LogLevel(rawValue: $0.level) ?? .info, message: $0.message)
    }
  }

  /// Deletes every kept line; returns how many there were.
  @discardableResult
  public func clear() throws -> Int { try store.clear() }
}
