import Foundation
import Plumbing

/// A course's `commands/NAME.ash` files as the commands `NAME`.
///
/// A command file opens with its `#:` lines:
///
/// ```
/// #: summary greet someone by name
/// #: usage greet NAME [--loud]
/// echo "hello, $1"
/// ```
///
/// The summary is its line in `help`; the usage declares its arguments and options, which make
/// its usage line, its checks and its Tab completion. Its words, as typed, are the file's
/// `$1`…`$9`, and `$#` counts them; it runs as `source` runs a file, so an error inside it names
/// the course file's line.
enum CourseCommands {
  /// The commands of `courses`, and a line for each file that could not become one: a name that
  /// is archsh's own (or an earlier course's), a name that is not a word, an unreadable usage.
  static func load(_ courses: [Course], taken: Set<String>) -> (
    commands: [Command], problems: [String]
  ) {
    var commands: [Command] = []
    var problems: [String] = []
    var names = taken
    for course in courses {
      for (name, path) in course.files(in: course.commands) {
        let file = "course '\(course.name)': commands/\(name).ash"
        guard isCommandName(name) else {
          problems.append(
            "\(file) is not added: '\(name)' is not a command name (lower-case letters, digits and '-', starting with a letter)"
          )
          continue
        }
        guard !names.contains(name) else {
          let owner = taken.contains(name) ? "archsh's own command" : "an earlier course's command"
          problems.append(
            "\(file) is not added: a course command cannot shadow '\(name)', \(owner); rename the file"
          )
          continue
        }
        do {
          commands.append(try command(name: name, path: path, course: course.name))
          names.insert(name)
        } catch {
          problems.append("\(file) is not added: \(error.message)")
        }
      }
    }
    return (commands, problems)
  }

  /// Whether `name` can be a command's name.
  static func isCommandName(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.count <= 40
    else { return false }
    return name.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
    }
  }

  /// The largest command file read.
  static let maximumFileBytes = 256 * 1024

  /// The command the file at `path` declares.
  static func command(name: String, path: String, course: String) throws(ShellError) -> Command {
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    guard size <= maximumFileBytes,
      let data = FileManager.default.contents(atPath: path)
    else {
      throw ShellError(
        size > maximumFileBytes
          ? "it holds \(size) bytes, more than a command file's \(maximumFileBytes)"
          : "it cannot be read")
    }
    var summary: String?
    var usage: String?
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n").prefix(40) {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("#: summary ") {
        summary = String(trimmed.dropFirst("#: summary ".count))
      } else if trimmed.hasPrefix("#: usage ") {
        usage = String(trimmed.dropFirst("#: usage ".count))
      }
    }
    let handles = try parameters(usage: usage ?? "\(name) [ARG...]", name: name)
    let file = Word(path)
    return Command(
      name,
      summary: summary ?? "a command of the course '\(course)'",
      discussion: """
        A command of the course '\(course)': it runs the course's commands/\(name).ash as \
        'source' does, with the words typed after its name as $1…$9, and $# their count.
        """,
      signature: Signature(handles), result: .passthrough, isTransparent: true
    ) { invocation in
      let parsed = invocation.parsed
      let words = parsed.words[parsed.resolution.argumentStart...].map(\.text)
      return try invocation.context.source(file, arguments: Array(words))
    }
  }

  /// The parameters a usage line declares after the command's name: `NAME` (an argument),
  /// `[NAME]` (an optional one), `NAME...` (the rest), `--flag`, and `--option VALUE`.
  static func parameters(usage: String, name: String) throws(ShellError) -> [any ParameterHandle] {
    var tokens = usage.split(separator: " ").map(String.init)
    guard tokens.first == name else {
      throw ShellError("its '#: usage' line must start with its name, '\(name)'")
    }
    tokens.removeFirst()
    guard tokens.count <= 32 else {
      throw ShellError("its '#: usage' line declares \(tokens.count) words, more than 32")
    }
    var handles: [any ParameterHandle] = []
    var seen = Set<String>()
    var index = 0
    func isPlaceholder(_ word: String) -> Bool {
      let bare = word.hasSuffix("...") ? String(word.dropLast(3)) : word
      return !bare.isEmpty
        && bare.unicodeScalars.allSatisfy {
          ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
        }
    }
    var sawRest = false
    var positionals = 0
    while index < tokens.count {
      let raw = tokens[index]
      let optional = raw.hasPrefix("[")
      let word = raw.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
      index += 1
      guard !sawRest else {
        throw ShellError("in its '#: usage' line, nothing may follow '...'")
      }
      if word.hasPrefix("--"), word.count > 2 {
        let option = String(word.dropFirst(2))
        // An option is a name as a command is: it is shown in help and offered by Tab.
        guard isCommandName(option) else {
          throw ShellError(
            "in its '#: usage' line, '--\(option)' is not an option name (lower-case letters, digits and '-')"
          )
        }
        guard seen.insert(option).inserted else {
          throw ShellError("its '#: usage' line names --\(option) twice")
        }
        if index < tokens.count, !tokens[index].hasPrefix("["), !tokens[index].hasPrefix("-"),
          isPlaceholder(tokens[index].trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
        {
          let value = tokens[index].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
          index += 1
          handles.append(
            Option(option, .text, value: value, "given to the file as words, where it was typed"))
        } else {
          handles.append(Flag(option, "given to the file as a word, where it was typed"))
        }
      } else if isPlaceholder(word) {
        positionals += 1
        if word.hasSuffix("...") {
          let bare = String(word.dropLast(3))
          handles.append(
            Many.arguments(
              bare, .text, "$\(positionals) and the words after it", optional: optional))
          sawRest = true
        } else if optional {
          handles.append(Option.argument(word, .text, "$\(positionals) in the file, if given"))
        } else {
          handles.append(Argument(word, .text, "$\(positionals) in the file"))
        }
      } else {
        throw ShellError(
          "in its '#: usage' line, '\(raw)' is neither an ARGUMENT in capitals nor an --option"
        )
      }
    }
    return handles
  }
}
