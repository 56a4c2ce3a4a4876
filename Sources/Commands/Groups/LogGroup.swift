import Domain
import Foundation

/// `log`: BDModules' Logger: tags, levels, and the lines kept in the workspace.
enum LogGroup {
  static let group = CommandGroup(
    "log", summary: "the Loggers' tags, thresholds and kept lines (BDModules' Logger)",
    from: [.bdModules],
    discussion: """
      Each Logger has a tag; each tag can be enabled or disabled and has a threshold, one of \
      Verbose < Info < Warning < Error (Info until changed). A line below its tag's threshold, or \
      for a disabled tag, is dropped. The Loggers are built on swift-log with archsh's handler, \
      which redacts bearer tokens, token fields and passwords, and keeps the lines (the newest \
      \(LogBook.capacity)) and the settings in the workspace: a script can set a scene and a \
      later session can read it.
      """,
    commands: [tags, level, enable, disable, show, clear])

  /// A tag: a known one, or one with lines or a setting.
  static let tagArgument = Argument("TAG", .text, "a logger's tag, such as API") { context in
    LogBook.knownTags.map(\.tag).filter { $0.hasPrefix(context.prefix) }
  }
  /// `level TAG LEVEL`.
  static let levelArgument = Argument(
    "LEVEL", Kind<LogLevel>.choice, "Verbose, Info, Warning or Error")
  /// `show --tag T`.
  static let tagOption = Option("tag", .text, value: "TAG", "only this tag's lines")
  /// `show --since N|DURATION`.
  static let sinceOption = Option(
    "since", .text, value: "N|DURATION", "after line N, or within the last DURATION (such as 5m)")
  /// `show --limit N`.
  static let limitOption = Option(
    "limit", .integer(1...100_000), "at most the newest N lines", default: "100")

  static let tags = Command(
    "tags", summary: "each tag: enabled, threshold, kept lines, and what logs under it",
    examples: ["log tags"], result: .rows(["tag", "enabled", "threshold", "lines", "logs"])
  ) { invocation in
    let book = try invocation.session.factory.api.logBook
    return .table(
      Table(
        columns: ["tag", "enabled", "threshold", "lines", "logs"],
        rows: try book.tags().map { entry in
          [
            .string(entry.setting.tag), .bool(entry.setting.enabled),
            .string(entry.setting.threshold.description), .int(entry.lines),
            .string(LogBook.knownTags.first { $0.tag == entry.setting.tag }?.summary ?? "-"),
          ]
        }))
  }

  static let level = Command(
    "level", summary: "set a tag's threshold: lines below it are dropped",
    signature: Signature([tagArgument, levelArgument]),
    examples: ["log level API Warning", "log level OAuth2 Verbose"],
    result: .record(["tag", "threshold"])
  ) { invocation in
    let book = try invocation.session.factory.api.logBook
    let tag = try knownTag(try invocation[tagArgument], in: book)
    let level = try invocation[levelArgument]
    try book.store(tag: tag, threshold: level)
    return .sentence(
      "\(tag): lines at \(level) and above are kept",
      [Field("tag", .string(tag)), Field("threshold", .string(level.description))])
  }

  static let enable = Command(
    "enable", summary: "keep a tag's lines again",
    signature: Signature([tagArgument]), examples: ["log enable API"],
    result: .record(["tag", "enabled"])
  ) { invocation in
    try setEnabled(invocation, true)
  }

  static let disable = Command(
    "disable", summary: "drop every line of a tag",
    signature: Signature([tagArgument]), examples: ["log disable API"],
    result: .record(["tag", "enabled"])
  ) { invocation in
    try setEnabled(invocation, false)
  }

  static let show = Command(
    "show", summary: "the kept lines, oldest first",
    signature: Signature([tagOption, sinceOption, limitOption]),
    examples: [
      "log show", "log show --tag API --limit 10", "log show --since 12", "log show --since 5m",
    ], result: .rows(["n", "time", "tag", "level", "message"])
  ) { invocation in
    let book = try invocation.session.factory.api.logBook
    let tag = try invocation[tagOption].map { try knownTag($0, in: book) }
    var after: Int64?
    var since: Date?
    if let word = invocation[sinceOption] {
      if let number = Int64(word.text), number >= 0 {
        after = number
      } else if let seconds = Quantities.duration(word.text) {
        since = Date().addingTimeInterval(-seconds)
      } else {
        throw ShellError(
          "'\(word.text)' is neither a line number nor a duration",
          hint: "for example --since 12 or --since 5m", at: word.offset)
      }
    }
    let lines = try book.lines(
      tag: tag, afterNumber: after, since: since, limit: invocation[limitOption] ?? 100)
    return .table(
      Table(
        columns: ["n", "time", "tag", "level", "message"],
        rows: lines.map { line in
          [
            .int(Int(line.number)), .string(Self.time(line.date)), .string(line.tag),
            .string(line.level.description), .string(line.message),
          ]
        }))
  }

  static let clear = Command(
    "clear", summary: "delete every kept line (the settings stay)", examples: ["log clear"],
    result: .record(["deleted_lines"])
  ) { invocation in
    let count = try invocation.session.factory.api.logBook.clear()
    return .sentence("deleted \(plural(count, "line"))", [Field("deleted_lines", .int(count))])
  }

  // MARK: - Helpers

  static func setEnabled(_ invocation: Invocation, _ enabled: Bool) throws -> Output {
    let book = try invocation.session.factory.api.logBook
    let tag = try knownTag(try invocation[tagArgument], in: book)
    try book.store(tag: tag, enabled: enabled)
    return .sentence(
      "\(tag): \(enabled ? "enabled" : "disabled")",
      [Field("tag", .string(tag)), Field("enabled", .bool(enabled))])
  }

  /// The tag a word names: a known tag, or one with lines or a setting.
  static func knownTag(_ word: Word, in book: LogBook) throws -> String {
    let names = try book.tags().map(\.setting.tag)
    if names.contains(word.text) { return word.text }
    if let match = names.first(where: { $0.lowercased() == word.text.lowercased() }) {
      return match
    }
    throw ShellError(
      "no logger has the tag '\(word.text)'",
      hint: ShellError.didYouMean(word.text, among: names)
        ?? "the tags are \(names.joined(separator: ", "))",
      at: word.offset)
  }

  /// A log line's time, `HH:mm:ss.SSS` in UTC.
  static func time(_ date: Date) -> String {
    let seconds = date.timeIntervalSince1970
    let day = seconds.truncatingRemainder(dividingBy: 86_400)
    let milliseconds = Int((day * 1000).rounded(.down))
    return String(
      format: "%02d:%02d:%02d.%03d", milliseconds / 3_600_000, milliseconds / 60_000 % 60,
      milliseconds / 1000 % 60, milliseconds % 1000)
  }
}
