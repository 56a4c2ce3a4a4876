import Domain
import Foundation

/// `record start FILE.ash` … `record stop`: what is typed at the prompt, kept as a walkthrough and
/// its transcript.
///
/// Each line typed is kept with what it printed, rendered as a script run with `--echo` prints it
/// (no colour, no terminal width, errors as `FILE:line:col`). `#` lines are the narration. A line
/// that failed is followed by the `expect fails` that describes its error, so the walkthrough goes
/// on past it. A secret typed on a line is written as `set NAME --secret`, which asks for it, and
/// the line uses `$NAME`: nothing secret reaches either file.
public final class SessionRecorder {
  /// The walkthrough being recorded.
  public let path: String
  /// Its transcript.
  public var transcriptPath: String { WalkthroughReplay.transcriptPath(for: path) }
  /// The variables that existed when the recording started, which the walkthrough must set
  /// itself if it uses them.
  let variablesAtStart: [String: Variable]

  /// One line typed at the prompt.
  struct Entry {
    /// What the walkthrough holds for it: `set NAME --secret` lines first, then the line.
    var setLines: [String]
    var line: String
    /// Where each byte of the typed line went in `line`, after secrets were replaced.
    var offsets = OffsetMap()
    /// What it printed, as a script prints it; an error is kept apart, to be placed at its line.
    var output: String
    var error: (message: String, description: String, lineOffset: Int, column: Int)?
    /// The message of the first error inside a file that the line sourced.
    var failedInside: String?
    var isComment: Bool
  }

  private(set) var entries: [Entry] = []
  private var current: Entry?
  /// The secrets typed, by the name the walkthrough asks for them with; kept in memory only, for
  /// the replay.
  private(set) var secrets: [String: String] = [:]

  /// Where relative paths typed while recording start, when it is not the walkthrough's folder,
  /// where they start when it is replayed; nil when both are the same.
  public let typedFrom: (current: String, replayed: String)?

  init(path: String, variables: [String: Variable]) {
    self.path = path
    self.variablesAtStart = variables
    typedFrom = Self.folders(of: path)
  }

  /// The current directory and the walkthrough's folder, when they differ.
  static func folders(of path: String) -> (current: String, replayed: String)? {
    let current = FileManager.default.currentDirectoryPath
    let folder = URL(
      fileURLWithPath: path, relativeTo: URL(fileURLWithPath: current, isDirectory: true)
    )
    .deletingLastPathComponent().standardizedFileURL.resolvingSymlinksInPath().path
    let here = URL(fileURLWithPath: current, isDirectory: true).standardizedFileURL
      .resolvingSymlinksInPath().path
    return folder == here ? nil : (here, folder)
  }

  /// The walkthrough's name in its transcript (`WalkthroughReplay.shownName`).
  private var shownName: String { WalkthroughReplay.shownName(of: path) }

  /// How many lines are recorded so far.
  public var lineCount: Int { entries.count }

  // MARK: - Hooks the interpreter calls for each line typed at the prompt

  func begin(_ line: LogicalLine, prepared: PreparedLine, registry: CommandRegistry) {
    let trimmed = line.text.trimmingCharacters(in: .whitespaces)
    if trimmed.isEmpty || trimmed.hasPrefix("#") {
      current = Entry(setLines: [], line: line.text, output: "", error: nil, isComment: true)
      return
    }
    // Lines from a source without a history were not parsed for their secrets yet.
    let checked =
      prepared.wasPreparedForHistory
      ? prepared : PreparedLine(line.text, registry: registry, forHistory: true)
    let (setLines, text, offsets) = replacingSecrets(
      line.text, prepared: checked, registry: registry)
    current = Entry(
      setLines: setLines, line: text, offsets: offsets, output: "", error: nil, isComment: false)
  }

  /// Records a secret the current line asked for at a prompt (a password): the walkthrough asks
  /// for it with `set NAME --secret` and gives it to the line as `"${NAME}"`, so that its replay
  /// needs no terminal.
  func typedAtPrompt(_ value: String, parameter: String) {
    guard var entry = current else { return }
    let name = secretName(value, parameter: parameter)
    if secrets[name] == nil {
      secrets[name] = value
      entry.setLines.append("set \(name) --secret")
    }
    entry.line += " \"${\(name)}\""
    current = entry
  }

  /// Hides the session's secrets (`Session.hidingSecrets`).
  var hideSecrets: (String) -> String = { $0 }

  /// Records what the current line printed, with every secret's value replaced by `<redacted>`:
  /// a recording never holds one (the replay that checks it redacts the same way).
  func output(_ text: String) { current?.output += hideSecrets(text) }

  /// Records the error of the current line, placed where its word stands in the recorded line:
  /// a secret replaced before it changes its column.
  func error(_ error: ShellError) {
    guard let entry = current, entry.error == nil else { return }
    let bytes = Array(entry.line.utf8)
    let offset = min(max(entry.offsets.map(error.offset ?? 0), 0), bytes.count)
    let lineStart = bytes[..<offset].lastIndex(of: 10).map { $0 + 1 } ?? 0
    let lineOffset = bytes[..<offset].count(where: { $0 == 10 })
    let column = String(decoding: bytes[lineStart..<offset], as: UTF8.self).count + 1
    current?.error = (error.message, error.description.replacingNewlines(), lineOffset, column)
  }

  /// An error already in script form, inside a file that a typed `source` ran; its include
  /// chain ends at `recordedLineMark`.
  func scriptError(_ text: String, message: String) {
    current?.output += text
    if current?.failedInside == nil { current?.failedInside = message }
  }

  /// Where an include chain reaches the line being recorded; `compose` puts the line's place in
  /// the walkthrough there.
  static let recordedLineMark = "\u{1}recorded line\u{1}"

  /// The name the walkthrough's replay gives a file that a typed `source` opened as `opened`.
  ///
  /// Relative paths start in the walkthrough's folder there. When that names another file, the
  /// name stays the one it was opened by.
  func replayName(of typed: String, openedAs opened: String) -> String {
    let folder = (path as NSString).deletingLastPathComponent
    let replayed = RelativePaths(directory: folder.isEmpty ? "." : folder).resolve(typed)
    let same =
      URL(fileURLWithPath: replayed).standardizedFileURL.resolvingSymlinksInPath().path
      == URL(fileURLWithPath: opened).standardizedFileURL.resolvingSymlinksInPath().path
    // The replay names it as typed, from the walkthrough's folder (`WalkthroughReplay`).
    return same ? typed : opened
  }

  /// Ends the current line; one that Ctrl-C `interrupted` is kept as narration, not as a
  /// command: what it printed, and how far it got, cannot be had again by replaying it.
  func end(interrupted: Bool = false) {
    guard var entry = current else { return }
    current = nil
    // `record …` lines are about the recording, not part of it.
    if !entry.isComment, entry.line.trimmingCharacters(in: .whitespaces).hasPrefix("record ") {
      return
    }
    if interrupted, !entry.isComment {
      let lines = entry.line.split(separator: "\n", omittingEmptySubsequences: false)
      entry = Entry(
        setLines: [],
        line: (["# Interrupted with Ctrl-C while recording, so not replayed:"]
          + lines.map { "#   " + $0 }).joined(separator: "\n"),
        output: "", error: nil, isComment: true)
    }
    entries.append(entry)
  }

  // MARK: - Secrets

  /// The line with each secret word replaced by `"${NAME}"`, and the `set NAME --secret` lines
  /// that ask for them; `set NAME VALUE --secret` itself becomes `set NAME --secret`.
  private func replacingSecrets(
    _ text: String, prepared: PreparedLine, registry: CommandRegistry
  ) -> ([String], String, OffsetMap) {
    guard prepared.containsSecret, case .success(let raws) = prepared.commands else {
      return ([], text, OffsetMap())
    }
    var replacements: [(range: Range<Int>, with: String)] = []
    var setLines: [String] = []
    let bytes = Array(text.utf8)
    for raw in raws {
      let words = PreparedLine.uninterpolated(raw)
      // A word typed on the line, not a variable, becomes "${NAME}", asked for by the replay.
      func withhold(_ word: Word, parameter: String?) {
        // A secret given as a variable (`$pw`) was not typed on this line: the line stays as it
        // is, and the variable's own `set NAME --secret` asks for it.
        if raw.words.first(where: { $0.offset == word.offset })?.hasVariables == true { return }
        let name = secretName(word.text, parameter: parameter)
        if secrets[name] == nil {
          secrets[name] = word.text
          setLines.append("set \(name) --secret")
        }
        replacements.append((Self.wordRange(in: bytes, at: word.offset), "\"${\(name)}\""))
      }
      // A URL with a password in it, which archsh refuses, is not written either.
      let urlPasswords = words.filter { Redaction.holdsURLPassword($0.text) }
      defer { for word in urlPasswords { withhold(word, parameter: "url") } }
      guard let (parsed, dropped) = Self.parsedLeniently(words, registry: registry) else {
        // A command that takes a secret and does not parse even without its faulty words: which
        // word is the secret cannot be told, so every argument word typed is withheld, but the
        // option names, which the replay needs to fail as the line did.
        guard PreparedLine.takesSecret(words, registry: registry),
          case .found(let resolution) = registry.lookup(words)
        else { continue }
        for word in words[resolution.argumentStart...] where !Self.isOptionName(word) {
          withhold(word, parameter: nil)
        }
        continue
      }
      let offsets = parsed.secretWordOffsets
      if !dropped.isEmpty, PreparedLine.takesSecret(words, registry: registry) {
        // The words the parse could not place may be secrets (an unquoted password's second
        // half, the value of a misspelt option), and so may set's VALUE when `--secret` was
        // misspelt: all are withheld.
        var unplaced = dropped.filter { !Self.isOptionName($0) }
        if parsed.resolution.command === Builtins.set, words.count >= 3, offsets.isEmpty,
          !unplaced.contains(where: { $0.offset == words[2].offset })
        {
          unplaced.append(words[2])
        }
        for word in unplaced { withhold(word, parameter: nil) }
      }
      guard !offsets.isEmpty else { continue }
      if parsed.resolution.command === Builtins.set, words.count >= 3 {
        // `set NAME VALUE --secret`: the walkthrough asks for VALUE.
        for offset in offsets {
          guard let word = words.first(where: { $0.offset == offset }) else { continue }
          secrets[words[1].text] = word.text
          // The value goes with the blanks after it: `set NAME --secret`.
          var range = Self.wordRange(in: bytes, at: offset)
          while range.upperBound < bytes.count, bytes[range.upperBound] == 32 {
            range = range.lowerBound..<(range.upperBound + 1)
          }
          replacements.append((range, ""))
        }
        continue
      }
      let parameters = parsed.arguments.secretParameterNames
      for offset in offsets {
        guard let word = words.first(where: { $0.offset == offset }) else { continue }
        withhold(word, parameter: parameters[offset])
      }
    }
    var edited = bytes
    var offsets = OffsetMap()
    for replacement in replacements.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
      edited.replaceSubrange(replacement.range, with: Array(replacement.with.utf8))
      offsets.replaced(replacement.range, withCount: replacement.with.utf8.count)
    }
    let leading = edited.prefix { $0 == 32 || $0 == 9 }.count
    let trailing = edited.dropFirst(leading).reversed().prefix { $0 == 32 || $0 == 9 }.count
    offsets.replaced(0..<leading, withCount: 0)
    let line = String(decoding: edited[leading..<(edited.count - trailing)], as: UTF8.self)
    return (setLines, line, offsets)
  }

  /// The command parsed as typed or, when it does not parse, without the words its errors point
  /// at (an unknown option, an extra argument, a bad value), so that a secret on a line with a
  /// typo is still found where it was given; with the words it left out.
  private static func parsedLeniently(_ words: [Word], registry: CommandRegistry) -> (
    ParsedCommand, dropped: [Word]
  )? {
    var words = words
    var dropped: [Word] = []
    for _ in 0..<words.count {
      do {
        return (try ParsedCommand.parse(words, registry: registry), dropped)
      } catch {
        guard let offset = error.offset,
          let index = words.firstIndex(where: { $0.offset == offset }),
          index > 0
        else { return nil }
        dropped.append(words.remove(at: index))
      }
    }
    return nil
  }

  /// Whether a word is an option's name as typed (`--full`, `-p`), which holds no value.
  private static func isOptionName(_ word: Word) -> Bool {
    !word.isQuoted && word.text.count > 1 && word.text.hasPrefix("-") && !word.text.contains("=")
  }

  /// A variable name for a secret: the parameter it was given to (`PASSWORD` → `password`,
  /// `--header` → `header`), else `secret`; a different value under a name already used gets a
  /// number.
  private func secretName(_ value: String, parameter: String?) -> String {
    var base = "secret"
    if let parameter {
      let cleaned = String(
        parameter.lowercased().drop { $0 == "-" }.map { $0.isLetter || $0.isNumber ? $0 : "_" })
      if Lexer.isValidVariableName(cleaned) { base = cleaned }
    }
    var name = base
    var number = 2
    while let taken = secrets[name], taken != value {
      name = base + String(number)
      number += 1
    }
    return name
  }

  /// The bytes of the word that starts at `offset`: to the next blank or `;` outside quotes.
  static func wordRange(in bytes: [UInt8], at offset: Int) -> Range<Int> {
    var index = offset
    var quote: UInt8?
    while index < bytes.count {
      let byte = bytes[index]
      if let open = quote {
        if byte == open {
          quote = nil
        } else if byte == UInt8(ascii: "\\"), open == 34 {
          index += 1
        }
      } else if byte == 39 || byte == 34 {
        quote = byte
      } else if byte == UInt8(ascii: "\\") {
        index += 1
      } else if byte == 32 || byte == 9 || byte == 10 || byte == UInt8(ascii: ";") {
        break
      }
      index += 1
    }
    return offset..<min(index, bytes.count)
  }

  /// A message as an argument: in double quotes when nothing in it is special there (a message
  /// often holds single quotes), else as the lexer quotes it.
  static func quoted(_ text: String) -> String {
    text.contains(where: { "\"$\\`".contains($0) }) ? Lexer.quoted(text) : "\"" + text + "\""
  }

  // MARK: - Writing

  /// The walkthrough and its transcript, as `--echo` prints it.
  ///
  /// `secrets` are the names of the secrets the walkthrough asks for, in order.
  func compose(prompt: String, continuationPrompt: String) -> (
    script: String, transcript: String, secrets: [String]
  ) {
    var script = ""
    var transcript = ""
    var number = 0
    func add(_ line: String, shown: String) {
      script += line + "\n"
      number += line.split(separator: "\n", omittingEmptySubsequences: false).count
      transcript += shown
    }
    func echoed(_ line: String) -> String {
      line.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map {
        ($0.offset == 0 ? prompt : continuationPrompt) + $0.element + "\n"
      }.joined()
    }
    // Variables set before the recording started, which the lines use.
    let used = entries.filter { !$0.isComment }.map(\.line).joined(separator: "\n")
    let setInRecording = Set(
      entries.compactMap { entry -> String? in
        let words = entry.line.split(separator: " ")
        return words.first == "set" && words.count >= 2 ? String(words[1]) : nil
      })
    let inherited = variablesAtStart.keys.sorted().filter { name in
      !setInRecording.contains(name)
        && (used.contains("$" + name) || used.contains("${" + name + "}"))
    }
    if !inherited.isEmpty {
      add(
        "# Variables set before the recording started.",
        shown: "# Variables set before the recording started.\n")
      for name in inherited {
        guard let variable = variablesAtStart[name] else { continue }
        let line: String
        if variable.isSecret {
          secrets[name] = variable.value
          line = "set \(name) --secret"
        } else {
          line = "set \(name) \(Lexer.quoted(variable.value))"
        }
        add(line, shown: echoed(line))
      }
    }
    var asked = inherited.filter { variablesAtStart[$0]?.isSecret == true }
    for entry in entries where !entry.isComment {
      for line in entry.setLines + [entry.line] {
        let words = line.split(separator: " ")
        if words.count == 3, words[0] == "set", words[2] == "--secret",
          !asked.contains(String(words[1]))
        {
          asked.append(String(words[1]))
        }
      }
    }
    if !asked.isEmpty {
      let names = asked.joined(separator: ", ")
      let header = """
        # Secrets this walkthrough asks for, in this order: \(names). At a terminal it asks; \
        without one, give them as the lines of standard input, in this order, or as environment \
        variables ARCHSH_SECRET_NAME (for example ARCHSH_SECRET_\(asked[0])).
        """
      for line in header.split(separator: "\n") { add(String(line), shown: line + "\n") }
    }
    for entry in entries {
      if entry.isComment {
        add(entry.line, shown: entry.line + "\n")
        continue
      }
      for line in entry.setLines { add(line, shown: echoed(line)) }
      let first = number + 1
      let output = entry.output.replacingOccurrences(
        of: Self.recordedLineMark, with: "\(shownName):\(first)")
      add(entry.line, shown: echoed(entry.line) + output)
      if let error = entry.error {
        // The replay shows it as expected: the next line, written here, is its `expect fails`.
        transcript +=
          "\(shownName):\(first + error.lineOffset):\(error.column): expected error: \(error.description)\n"
        let expectation = "expect fails \(Self.quoted(error.message))"
        add(expectation, shown: echoed(expectation))
      } else if let message = entry.failedInside {
        let expectation = "expect fails \(Self.quoted(message))"
        add(expectation, shown: echoed(expectation))
      }
    }
    return (script, transcript, asked)
  }
}

/// Where the bytes of a line went after some of its ranges were replaced: an offset in the old
/// line gives the offset of the same byte in the new one, or of the replacement it fell in.
struct OffsetMap {
  /// The replacements, in the order they were made; each range is in the line as it was then.
  private var edits: [(range: Range<Int>, count: Int)] = []

  /// Notes that `range` was replaced by `count` bytes.
  ///
  /// Replacements made from the end of the line towards its start keep the earlier ranges valid,
  /// as `replacingSecrets` makes them.
  mutating func replaced(_ range: Range<Int>, withCount count: Int) {
    edits.append((range, count))
  }

  /// The offset in the new line of the byte at `offset` in the old one.
  func map(_ offset: Int) -> Int {
    var result = offset
    for edit in edits {
      if result >= edit.range.upperBound {
        result += edit.count - edit.range.count
      } else if result > edit.range.lowerBound {
        result = edit.range.lowerBound
      }
    }
    return result
  }
}
