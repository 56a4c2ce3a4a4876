import Domain

/// Tab completion, computed from the command declarations and live session values.
///
/// Given the line up to the cursor, it finds the word being typed and offers, depending on where
/// that word is: builtins and groups, a group's verbs, a command's options, a choice's words, a
/// parameter's live values, or variable names after `$`.
public struct Completer {
  /// The session, for live values.
  public let session: Session
  /// The commands.
  public let registry: CommandRegistry

  /// Creates a completer.
  public init(session: Session, registry: CommandRegistry = AllGroups.registry) {
    self.session = session
    self.registry = registry
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

  private func candidates(after words: [Word], current: String) -> [String] {
    let resolution: CommandRegistry.Resolution
    switch registry.lookup(words) {
    case .found(let found): resolution = found
    case .incomplete(_, let candidates):
      // After a group word, `--help` shows the group's help.
      return current.hasPrefix("-") && !words.isEmpty ? ["--help"] : candidates
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
    if case .choice(let words) = parameter.type { values += words }
    if let provider = parameter.completion { values += provider(context) }
    return values
  }
}
