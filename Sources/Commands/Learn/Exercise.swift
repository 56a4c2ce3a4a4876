import Domain
import Foundation
import Plumbing

/// One exercise of `learn`: a goal to reach, the state it starts from, hints, the check that says
/// when the goal is met, one solution and one wrong attempt.
///
/// An exercise is a file in the command language:
///
/// ```
/// # Title
/// #: seed 002
/// #: level 1
/// #: goal What state to reach, in words.
/// #: hint One hint; several lines give several hints, vaguest first.
/// #: why What surprises people here, shown when the goal is met.
///
/// ## setup
/// commands that build the starting state
/// ## check
/// commands that only read, with `expect` lines
/// ## solution
/// commands that meet the goal
/// ## wrong
/// a plausible mistake, which must not meet it
/// ```
public struct Exercise: Sendable {
  /// The name `learn start` takes: the file's name without `.ash`.
  public let name: String
  /// The file it was read from.
  public let path: String
  /// The course it comes from: `archsh`, a course added with `--course`, or empty for a file
  /// given by path.
  public var course = ""
  /// The first line's title.
  public let title: String
  /// Whose behaviour it teaches.
  public let seed: Origin
  /// 1 (easy) to 3 (hard).
  public let level: Int
  /// The goal, in words.
  public let goal: String
  /// The hints, vaguest first.
  public let hints: [String]
  /// What surprises people, shown when the goal is met.
  public let why: String?
  /// The commands that build the starting state.
  public let setup: [SourceLine]
  /// The commands that say whether the goal is met: it is when they all succeed.
  public let check: [SourceLine]
  /// One solution.
  public let solution: [SourceLine]
  /// A plausible mistake, which must not meet the goal.
  public let wrong: [SourceLine]

  /// Commands the learner may not type (`#: forbid store limits, store trim`).
  ///
  /// A line that starts with one of them breaks the exercise's rule, and the goal is not met by
  /// that attempt. A word ending in `*` matches every word it begins: `net get /v2*`.
  public let forbidden: [String]
  /// When given (`#: only event send, screen select`), the only commands that may change the
  /// state; commands that only look (`Exercise.looks`), `help` and `learn` stay allowed.
  public let only: [String]
  /// A known shortcut the rules exclude (`## cheat`).
  ///
  /// `learn verify` plays it, and it must not meet the goal. Every exercise with a rule has one.
  public let cheat: [SourceLine]
  /// A state the way to the goal must not pass through (`## never`: commands that only read, and
  /// `expect` lines that hold in that state), checked after every line; `#: never` says it in
  /// words, for the message.
  public let never: [SourceLine]
  /// The words for the `## never` state (`#: never the login flow`).
  public let neverText: String?

  /// The sections a file has, in the order it gives them; `cheat` only with a rule.
  static let sections = ["setup", "check", "solution", "wrong", "cheat", "never"]

  /// The verbs of commands that only look at the state, which `#: only` never forbids.
  static let looks: Set<String> = [
    "show", "list", "tree", "stack", "state", "keys", "entries", "stores", "bytes", "info",
    "check", "path", "count", "render", "graph", "events", "faults", "tags", "status",
  ]
  /// Commands that are never a rule's concern: asking for help, the exercise's own commands.
  static let alwaysAllowed = [
    "help", "learn", "echo", "vars", "history", "expect", "set", "unset", "sleep", "output", "#",
  ]

  /// The rule that being in the `## never` state breaks, in words.
  public var neverRule: String {
    "the way passed through \(neverText ?? "a state this exercise rules out"), which this exercise rules out"
  }

  /// The rule a typed line breaks, in words, or nil.
  public func brokenRule(by line: String) -> String? {
    for command in line.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) })
    where !command.isEmpty {
      let words = command.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
      // A rule's word ending in '*' matches any word it begins (`session request GET /v2*`).
      func starts(_ prefix: String) -> Bool {
        let wanted = prefix.split(separator: " ").map(String.init)
        guard words.count >= wanted.count else { return false }
        return zip(wanted, words).allSatisfy { rule, word in
          rule.hasSuffix("*") && rule.count > 1 ? word.hasPrefix(rule.dropLast()) : rule == word
        }
      }
      if let rule = forbidden.first(where: starts) {
        return "'\(rule)' is not allowed in this exercise"
      }
      guard !only.isEmpty, !Self.alwaysAllowed.contains(where: starts),
        !only.contains(where: starts)
      else { continue }
      // A group's verb that only looks (`coord tree`, `screen show`) is always allowed.
      if words.count >= 2, Self.looks.contains(words[1]) { continue }
      return "only " + only.map { "'\($0)'" }.joined(separator: ", ")
        + " may change the state in this exercise, and '\(words.prefix(2).joined(separator: " "))' is not one"
    }
    return nil
  }

  /// Reads an exercise from a file's text; errors name `path:line`.
  public init(text: String, name: String, path: String) throws(ShellError) {
    var title: String?
    var meta: [String: [String]] = [:]
    var lines: [String: [SourceLine]] = [:]
    var section: String?
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let number = index + 1
      let line = String(raw.hasSuffix("\r") ? raw.dropLast() : raw)
      if line.hasPrefix("## ") {
        let name = line.dropFirst(3).trimmingCharacters(in: .whitespaces)
        guard Self.sections.contains(name) else {
          throw ShellError(
            "\(path):\(number):4: unknown section '\(name)'",
            hint: "the sections are \(Self.sections.map { "'## \($0)'" }.joined(separator: ", "))")
        }
        guard lines[name] == nil else {
          throw ShellError(
            "\(path):\(number):1: a second '## \(name)' section",
            hint: "each section appears once")
        }
        section = name
        lines[name] = []
        continue
      }
      if let section {
        lines[section, default: []].append(SourceLine(line, number: number))
        continue
      }
      if line.hasPrefix("#:") {
        let body = line.dropFirst(2).trimmingCharacters(in: .whitespaces)
        let key = String(body.prefix { !$0.isWhitespace })
        let value = body.dropFirst(key.count).trimmingCharacters(in: .whitespaces)
        guard ["seed", "level", "goal", "hint", "why", "forbid", "only", "never"].contains(key)
        else {
          throw ShellError(
            "\(path):\(number):3: unknown field '\(key)'",
            hint:
              "the fields are '#: seed', '#: level', '#: goal', '#: hint', '#: why', '#: forbid', '#: only' and '#: never'"
          )
        }
        meta[key, default: []].append(value)
      } else if title == nil, line.hasPrefix("# ") {
        title = line.dropFirst(2).trimmingCharacters(in: .whitespaces)
      }
    }
    func one(_ key: String, example: String) throws(ShellError) -> String {
      guard let values = meta[key], let value = values.first, !value.isEmpty else {
        throw ShellError("\(path): no '#: \(key)' line", hint: "add one, for example '\(example)'")
      }
      guard values.count == 1 else {
        throw ShellError(
          "\(path): '#: \(key)' is given \(values.count) times", hint: "give it once")
      }
      return value
    }
    let seedText = try one("seed", example: "#: seed 002")
    guard let seed = Origin(rawValue: seedText) else {
      throw ShellError(
        "\(path): unknown seed '\(seedText)'",
        hint: "the seeds are \(Origin.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    let levelText = meta["level"] == nil ? "1" : try one("level", example: "#: level 1")
    guard let level = Int(levelText), (1...3).contains(level) else {
      throw ShellError("\(path): level '\(levelText)' is not 1, 2 or 3", hint: "1 is the easiest")
    }
    for section in Self.sections
    where !["cheat", "never"].contains(section) && lines[section] == nil {
      throw ShellError(
        "\(path): no '## \(section)' section",
        hint: "an exercise has the sections setup, check, solution and wrong")
    }
    func list(_ key: String) -> [String] {
      meta[key, default: []].flatMap { $0.split(separator: ",") }
        .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
    let forbidden = list("forbid")
    let only = list("only")
    let never = lines["never", default: []]
    let hasNever = never.contains(where: { !Self.isBlank($0.text) })
    guard hasNever == (meta["never"] != nil) else {
      throw ShellError(
        hasNever
          ? "\(path): a '## never' section without '#: never', the words for its state"
          : "\(path): '#: never' without a '## never' section that checks its state",
        hint: "give both: '#: never the login flow', and '## never' with its expect lines")
    }
    let hasRule = !forbidden.isEmpty || !only.isEmpty || hasNever
    if hasRule, !lines["cheat", default: []].contains(where: { !Self.isBlank($0.text) }) {
      throw ShellError(
        "\(path): an exercise with a rule ('#: forbid', '#: only' or '#: never') has no '## cheat' section",
        hint: "give the shortcut the rule excludes, which 'learn verify' checks misses the goal")
    }
    if !hasRule, lines["cheat"] != nil {
      throw ShellError(
        "\(path): a '## cheat' section without a rule",
        hint: "add '#: forbid', '#: only' or '#: never'")
    }
    guard lines["check", default: []].contains(where: { !Self.isBlank($0.text) }) else {
      throw ShellError(
        "\(path): the '## check' section has no command",
        hint: "the check reads the state and ends with 'expect' lines")
    }
    self.name = name
    self.path = path
    self.title = title ?? name
    self.seed = seed
    self.level = level
    self.goal = try one("goal", example: "#: goal The list shows two rows.")
    self.hints = meta["hint", default: []]
    self.why = meta["why"]?.first
    self.setup = lines["setup", default: []]
    self.check = lines["check", default: []]
    self.solution = lines["solution", default: []]
    self.wrong = lines["wrong", default: []]
    self.forbidden = forbidden
    self.only = only
    self.cheat = lines["cheat", default: []]
    self.never = hasNever ? never : []
    self.neverText = hasNever ? try one("never", example: "#: never the login flow") : nil
  }

  /// The rule broken by any of `lines`, in words, or nil.
  func brokenRule(in lines: [SourceLine]) -> String? {
    lines.lazy.filter { !Self.isBlank($0.text) }.compactMap { self.brokenRule(by: $0.text) }.first
  }

  /// Whether a line holds no command: blank, or a comment.
  static func isBlank(_ text: String) -> Bool {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    return trimmed.isEmpty || trimmed.hasPrefix("#")
  }

  /// The solution's commands as the learner would type them.
  public var solutionText: [String] {
    solution.map(\.text).filter { !Self.isBlank($0) }
  }
}

/// The exercises that come with archsh, and exercise files given by path.
public enum ExerciseBook {
  /// Where archsh's own exercises are: `share/archsh/exercises` when installed, the build tree's
  /// `Sources/Commands/Learn/Exercises` when run from there (`Installation`).
  static var directory: String? { Installation.directory(for: .exercises) }

  /// The exercises of every course, archsh's own and those added with `--course`, by seed, then
  /// level, then name.
  public static func all() throws(ShellError) -> [Exercise] {
    guard directory != nil || Courses.teachers.contains(where: { $0.exercises != nil }) else {
      throw ShellError(
        "archsh's exercises were not found (looked in "
          + Installation.candidates(for: .exercises).map { "'\($0)'" }.joined(separator: ", ")
          + ")",
        hint: "install archsh with 'make install', or give an exercise file: learn start FILE.ash")
    }
    var exercises: [Exercise] = []
    for course in Courses.all {
      exercises += try of(course)
    }
    return sorted(exercises)
  }

  /// The exercises of one course.
  public static func of(_ course: Course) throws(ShellError) -> [Exercise] {
    var exercises: [Exercise] = []
    for (_, path) in course.files(in: course.exercises) {
      var exercise = try load(path: path)
      exercise.course = course.name
      exercises.append(exercise)
    }
    return sorted(exercises)
  }

  /// By seed, then level, then name.
  static func sorted(_ exercises: [Exercise]) -> [Exercise] {
    let order = Origin.allCases
    return exercises.sorted {
      let left = order.firstIndex(of: $0.seed) ?? 0
      let right = order.firstIndex(of: $1.seed) ?? 0
      return (left, $0.level, $0.name) < (right, $1.level, $1.name)
    }
  }

  /// The largest exercise file read; archsh's own are under 2 KiB.
  static let maximumFileBytes = 256 * 1024

  /// Reads the exercise file at `path`.
  public static func load(path: String) throws(ShellError) -> Exercise {
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    guard size <= maximumFileBytes else {
      throw ShellError(
        "the exercise file '\(path)' holds \(size) bytes, more than an exercise's \(maximumFileBytes)",
        hint: "an exercise is a goal, hints and a few commands; check the path")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw ShellError("cannot read the exercise file '\(path)'", hint: "check the path")
    }
    let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
    return try Exercise(text: String(decoding: data, as: UTF8.self), name: name, path: path)
  }

  /// The exercise `learn start` names: a file when the word is a path, else one of archsh's own.
  public static func find(_ word: String) throws(ShellError) -> Exercise {
    let parts = word.split(separator: "/", maxSplits: 1).map(String.init)
    if parts.count == 2, !FileManager.default.fileExists(atPath: word),
      let course = Courses.all.first(where: { $0.name == parts[0] }),
      let exercise = try of(course).first(where: { $0.name == parts[1] })
    {
      return exercise
    }
    if word.contains("/") || word.hasSuffix(".ash") { return try load(path: word) }
    let all = try all()
    if let exercise = all.first(where: { $0.name == word }) { return exercise }
    let near = Suggestion.nearest(to: word, among: all.map(\.name))
    throw ShellError(
      "no exercise named '\(word)'",
      hint: (near.map { "did you mean '\($0)'? " } ?? "") + "'learn list' shows them all")
  }
}
