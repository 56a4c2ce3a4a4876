import Domain

/// What Tab puts in place of the word being typed: the text from `start` to the end of the line
/// becomes one of `replacements`, or the prefix they share.
public struct Completion: Equatable, Sendable {
  /// Where the word being typed starts, as a UTF-8 offset in the line; the line's length when the
  /// line ends between words.
  public var start: Int
  /// The candidates, sorted, each written as it must be typed: quoted when the lexer would
  /// otherwise split it or read it differently.
  public var replacements: [String]
}

/// Tab completion, computed from the command declarations and live session values.
///
/// Given the line up to the cursor, it finds the word being typed and offers, depending on where
/// that word is: builtins and groups, a group's verbs, a command's options, a choice's words, a
/// parameter's live values, file names for a path and after `@` (`@FILE`, `NAME=@PATH`), or
/// variable names after `$`. `completion(_:)` quotes what needs quoting, in the quotes the word
/// was started with.
public struct Completer {
  /// The session, for live values: during an exercise, the exercise's.
  public var session: Session { currentSession() }
  /// The commands.
  public let registry: CommandRegistry
  private let currentSession: () -> Session

  /// Creates a completer over one session.
  public init(session: Session, registry: CommandRegistry = AllGroups.registry) {
    self.currentSession = { session }
    self.registry = registry
  }

  /// Creates a completer over the session `interpreter` runs commands in, which an exercise
  /// (`learn start`) replaces while it runs.
  public init(interpreter: Interpreter) {
    self.currentSession = { [unowned interpreter] in interpreter.session }
    self.registry = interpreter.registry
  }

  /// The candidates for the word that ends at the end of `line`, sorted, each a whole word.
  ///
  /// The line is read by the same lexer, resolver and signature walk as execution.
  public func complete(_ line: String) -> [String] {
    let (raw, currentWord) = Lexer.partialCommand(line)
    var current = currentWord?.text ?? ""
    if let currentWord, currentWord.hasVariables {
      // `$pro` completes to a variable name: the word as typed, from its `$`.
      current = String(decoding: line.utf8.dropFirst(currentWord.offset), as: UTF8.self)
    }
    let candidates: [String]
    if current.hasPrefix("$") {
      candidates = session.variables.keys.map { "$" + $0 } + ["$?", "$#"]
    } else {
      let words = raw.map { word in
        let text = (try? word.expanded { session.variables[$0]?.value }.text) ?? word.text
        return Word(text, offset: word.offset, isQuoted: word.isQuoted)
      }
      candidates = self.candidates(after: words, current: current)
    }
    var seen = Set<String>()
    return candidates.filter { $0.hasPrefix(current) && seen.insert($0).inserted }.sorted()
  }

  /// What Tab does at the end of `line`: the candidates of `complete(_:)`, each quoted as it must
  /// be typed, to replace the word from where it starts.
  ///
  /// The quotes follow the word as typed: a word started with `'` or `"` stays in those quotes,
  /// and a bare word is single-quoted when any candidate needs quoting (all of them then are, so
  /// that they keep a common prefix). A directory's quote is left open, so that the next Tab
  /// goes on inside it.
  public func completion(_ line: String) -> Completion {
    let values = complete(line)
    let (_, currentWord) = Lexer.partialCommand(line)
    guard let currentWord else { return Completion(start: line.utf8.count, replacements: values) }
    let typed = String(decoding: line.utf8.dropFirst(currentWord.offset), as: UTF8.self)
    if currentWord.hasVariables && typed.hasPrefix("$") {
      return Completion(start: currentWord.offset, replacements: values)
    }
    let style: Quoting
    switch typed.first {
    case "'": style = .single
    case "\"": style = .double
    default:
      if !values.contains(where: Quoting.isNeeded) {
        style = .none
      } else {
        style = typed.contains("\\") ? .backslash : .single
      }
    }
    return Completion(start: currentWord.offset, replacements: values.map(style.quote))
  }

  private func candidates(after words: [Word], current: String) -> [String] {
    let resolution: CommandRegistry.Resolution
    switch registry.lookup(words) {
    case .found(let found): resolution = found
    case .incomplete(_, let candidates):
      // After a group word, `--help` shows the group's help.
      if current.hasPrefix("-") && !words.isEmpty { return ["--help"] }
      // A group offers the verbs its controller's state allows (app: login only in the login
      // flow, logout only in the main flow).
      if words.count == 1, let group = registry.group(named: words[0].text),
        let offered = group.offered(session)
      {
        return candidates.filter { offered.contains($0) }
      }
      return candidates
    case .unknown: return []
    }
    let signature = resolution.command.signature
    let partial = signature.partial(words[resolution.argumentStart...])
    if let start = partial.passthroughStart {
      return candidates(after: Array(words[start...]), current: current)
    }
    if current.hasPrefix("-"), partial.acceptsOption {
      return signature.parameters.filter {
        $0.kind != .positional && !partial.givenNames.contains($0.name)
      }
      .map { "--\($0.name)" } + ["--help"]
    }
    guard let parameter = partial.awaiting else { return [] }
    let context = CompletionContext(
      session: session, previousWords: words.map(\.text), prefix: current, registry: registry)
    var values: [String] = []
    if parameter.type == .path { values += Completions.files(matching: current) }
    // Every value that reads a file takes `@PATH` (`NAME=@PATH` for a request's file part).
    if parameter.type == .text, let at = Completions.fileReference(in: current) {
      values += Completions.files(matching: String(current[at...])).map {
        String(current[..<at]) + $0
      }
    }
    if case .choice(let words) = parameter.type { values += words }
    if let provider = parameter.completion { values += provider(context) }
    return values
  }
}

/// How completion writes a candidate so that the lexer reads it back as the same word.
enum Quoting {
  /// As it is: it holds nothing the lexer treats specially.
  case none
  /// `'…'`, a `'` inside written `'\''`.
  case single
  /// `"…"`, with `\`, `"` and `$` escaped.
  case double
  /// Each special character escaped with `\`.
  case backslash

  /// The characters that end a word or change how it is read.
  static let special: Set<Character> = [" ", "\t", "\n", "'", "\"", "\\", "$", ";"]

  /// Whether `value` must be quoted to be read back as one word with its text.
  static func isNeeded(_ value: String) -> Bool {
    value.isEmpty || value.hasPrefix("#") || value.contains(where: special.contains)
  }

  /// `value` written in this style; a directory (ending in `/`) keeps its quote open.
  func quote(_ value: String) -> String {
    let close = !value.hasSuffix("/")
    switch self {
    case .none:
      return value
    case .single:
      return "'" + value.replacingOccurrences(of: "'", with: "'\\''") + (close ? "'" : "")
    case .double:
      var text = "\""
      for character in value {
        if character == "\\" || character == "\"" || character == "$" { text.append("\\") }
        text.append(character)
      }
      return text + (close ? "\"" : "")
    case .backslash:
      var text = value.hasPrefix("#") ? "\\" : ""
      for character in value {
        if Quoting.special.contains(character) { text.append("\\") }
        text.append(character)
      }
      return text
    }
  }
}
