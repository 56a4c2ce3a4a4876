import Foundation

/// A walkthrough read as a presenter sees it: chapters (`## Title` comment lines), and steps, each
/// one command with the narration written just above it (the `#` comment lines with no blank line
/// between them and the command) and the `expect` lines that check it.
public struct WalkthroughScript: Sendable {
  /// One command of the walkthrough.
  public struct Step: Sendable, Equatable {
    /// Its number, from 1.
    public var number: Int
    /// The index of its chapter in `chapters`, or nil before the first chapter.
    public var chapter: Int?
    /// The narration: the comment lines just above it, without their `# `.
    public var narration: [String]
    /// Its physical lines with their line numbers: the command (with any `\` continuation lines),
    /// then the `expect` lines that follow it.
    public var lines: [SourceLine]
  }

  /// The one-line summary: the first sentence of the comment the file opens with.
  public var summary: String
  /// The chapter titles, in order.
  public var chapters: [String]
  /// The steps, in order.
  public var steps: [Step]

  /// Reads a walkthrough's text.
  public init(contents: String) {
    var physical = contents.split(separator: "\n", omittingEmptySubsequences: false).map {
      $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
    }
    if physical.last == "" { physical.removeLast() }
    summary = ""
    chapters = []
    steps = []
    var narration: [String] = []
    var index = 0
    while index < physical.count {
      let number = index + 1
      let text = physical[index]
      index += 1
      let trimmed = text.trimmingCharacters(in: .whitespaces)
      if steps.isEmpty, chapters.isEmpty, trimmed.hasPrefix("#"),
        !trimmed.hasPrefix("##"), number == narration.count + 1
      {
        // The opening comment's first sentence is the summary.
        summary += (summary.isEmpty ? "" : " ") + Self.commentText(trimmed)
      }
      if trimmed.isEmpty {
        narration = []
        continue
      }
      if trimmed.hasPrefix("## ") || trimmed == "##" {
        chapters.append(String(trimmed.dropFirst(2)).trimmingCharacters(in: .whitespaces))
        narration = []
        continue
      }
      if trimmed.hasPrefix("#") {
        narration.append(Self.commentText(trimmed))
        continue
      }
      var lines = [SourceLine(text, number: number)]
      var joined = text
      while Lexer.needsContinuation(joined), index < physical.count {
        lines.append(SourceLine(physical[index], number: index + 1))
        joined += "\n" + physical[index]
        index += 1
      }
      let isExpect = trimmed.hasPrefix("expect ") || trimmed == "expect"
      if isExpect, narration.isEmpty, !steps.isEmpty {
        steps[steps.count - 1].lines += lines
        continue
      }
      steps.append(
        Step(
          number: steps.count + 1, chapter: chapters.isEmpty ? nil : chapters.count - 1,
          narration: narration, lines: lines))
      narration = []
    }
    summary = Self.firstSentence(summary)
  }

  /// The first sentence of the opening comment.
  static func firstSentence(_ text: String) -> String {
    guard let end = text.range(of: ". ") else { return text }
    return String(text[..<end.lowerBound]) + "."
  }

  private static func commentText(_ line: String) -> String {
    var text = line.drop { $0 == "#" }
    if text.first == " " { text = text.dropFirst() }
    return String(text)
  }

  /// The first step of chapter `index`, or nil when the chapter holds none.
  public func firstStep(ofChapter index: Int) -> Int? {
    steps.firstIndex { $0.chapter == index }
  }

  /// The chapter that `name` picks: a title, matched without regard to case (a unique prefix is
  /// enough), or a number from 1.
  public func chapter(named name: String) -> Int? {
    if let number = Int(name), number >= 1, number <= chapters.count { return number - 1 }
    let wanted = name.lowercased()
    if let exact = chapters.firstIndex(where: { $0.lowercased() == wanted }) { return exact }
    let prefixed = chapters.indices.filter { chapters[$0].lowercased().hasPrefix(wanted) }
    return prefixed.count == 1 ? prefixed[0] : nil
  }
}

/// The walkthroughs archsh ships, wherever they are: `$ARCHSH_WALKTHROUGHS`, else found
/// relative to the executable (`Installation`).
public enum Walkthroughs {
  /// The folder that holds the walkthroughs, or nil when none is found.
  public static var directory: String? { Installation.directory(for: .walkthroughs) }

  /// The largest walkthrough file `help walkthroughs` reads (archsh's own are under 16 KiB).
  static let maximumFileBytes = 1024 * 1024

  /// The folders looked in, in order, for `help walkthroughs` and errors to name.
  public static var searched: [String] { Installation.candidates(for: .walkthroughs) }

  /// One walkthrough: its name, course, file, summary and chapters.
  public struct Entry: Sendable {
    /// The name `--tour` takes: the file name without `.ash`.
    public var name: String
    /// The course it comes from: `archsh`, or a course added with `--course`.
    public var course: String
    /// The file.
    public var path: String
    /// Its one-line summary.
    public var summary: String
    /// Its chapters.
    public var chapters: [String]
    /// How many steps it has.
    public var steps: Int
  }

  /// Every walkthrough of every course, archsh's own first, each course's by name.
  public static func all() -> [Entry] {
    Courses.all.flatMap { course in
      course.files(in: course.walkthroughs).compactMap { name, path in
        // A course's files come from outside: one larger than any walkthrough is not read.
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= maximumFileBytes, let data = FileManager.default.contents(atPath: path)
        else { return nil }
        let script = WalkthroughScript(contents: String(decoding: data, as: UTF8.self))
        return Entry(
          name: name, course: course.name, path: path, summary: script.summary,
          chapters: script.chapters, steps: script.steps.count)
      }
    }
  }

  /// The name `--tour` takes for `entry`: its name, or COURSE/NAME when an earlier course has a
  /// walkthrough of the same name.
  public static func tourName(of entry: Entry, among entries: [Entry]) -> String {
    let first = entries.first { $0.name == entry.name }
    return first?.path == entry.path ? entry.name : "\(entry.course)/\(entry.name)"
  }

  /// The file of the walkthrough `name` (or `COURSE/NAME`), or an error that lists the names.
  public static func path(of name: String) throws(ShellError) -> String {
    let entries = all()
    if entries.isEmpty, Courses.teachers.isEmpty, directory == nil {
      throw ShellError(
        "archsh's walkthroughs were not found (looked in "
          + searched.map { "'\($0)'" }.joined(separator: ", ") + ")",
        hint: "set ARCHSH_WALKTHROUGHS to the folder that holds basics.ash")
    }
    let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
    let found =
      parts.count == 2
      ? entries.first { $0.course == parts[0] && $0.name == parts[1] }
      : entries.first { $0.name == name }
    guard let found else {
      let names = entries.map { tourName(of: $0, among: entries) }
      let hint =
        ShellError.didYouMean(name, among: names) ?? "one of: " + names.joined(separator: ", ")
      throw ShellError("no walkthrough named '\(name)'", hint: hint)
    }
    return found.path
  }
}
