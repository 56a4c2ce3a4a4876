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
  public func complete(_ line: String) -> [String] {
    let (previous, current) = split(line)
    let candidates = self.candidates(previous: previous, current: current)
    var seen = Set<String>()
    return candidates.filter { $0.hasPrefix(current) && seen.insert($0).inserted }.sorted()
  }

  private func candidates(previous: [String], current: String) -> [String] {
    if current.hasPrefix("$") {
      return (session.variables.keys.map { "$" + $0 }) + ["$?", "$#"]
    }
    guard let first = previous.first else { return registry.topLevelNames }
    if let group = registry.group(named: first) {
      guard previous.count >= 2 else { return group.verbs }
      if let command = group.commands.first(where: {
        $0.name == previous[1] || $0.aliases.contains(previous[1])
      }) {
        return arguments(of: command, previous: previous, consumed: 2, current: current)
      }
      let subverbs = group.subverbs(of: previous[1])
      guard !subverbs.isEmpty else { return [] }
      guard previous.count >= 3 else { return subverbs }
      guard
        let command = group.commands.first(where: { $0.name == previous[1] + " " + previous[2] })
      else { return [] }
      return arguments(of: command, previous: previous, consumed: 3, current: current)
    }
    guard let command = registry.builtin(named: first) else { return [] }
    if command.signature.parameters.first?.isPassthrough == true {
      return complete(
        previous.dropFirst().joined(separator: " ") + (previous.count > 1 ? " " : "") + current)
    }
    return arguments(of: command, previous: previous, consumed: 1, current: current)
  }

  private func arguments(of command: Command, previous: [String], consumed: Int, current: String)
    -> [String]
  {
    let parameters = command.signature.parameters
    let context = CompletionContext(
      session: session, previousWords: previous, prefix: current, registry: registry)
    if let last = previous.last, previous.count > consumed, last.hasPrefix("--"),
      let option = parameters.first(where: { $0.kind == .option && "--\($0.name)" == last })
    {
      return values(for: option, context: context)
    }
    if current.hasPrefix("-") {
      let used = Set(previous)
      return parameters.filter {
        $0.kind != .positional && ($0.isVariadic || !used.contains("--\($0.name)"))
      }
      .map { "--\($0.name)" }
    }
    var position = 0
    var index = consumed
    while index < previous.count {
      let word = previous[index]
      if word.hasPrefix("--"),
        let named = parameters.first(where: { "--\($0.name)" == word && $0.kind != .positional })
      {
        index += named.kind == .option ? 2 : 1
        continue
      }
      position += 1
      index += 1
    }
    let positionals = parameters.filter { $0.kind == .positional }
    guard !positionals.isEmpty else { return [] }
    let parameter: Parameter
    if position < positionals.count {
      parameter = positionals[position]
    } else if let last = positionals.last, last.isVariadic {
      parameter = last
    } else {
      return []
    }
    return values(for: parameter, context: context)
  }

  private func values(for parameter: Parameter, context: CompletionContext) -> [String] {
    var values: [String] = []
    if case .choice(let words) = parameter.type { values += words }
    if let provider = parameter.completion { values += provider(context) }
    return values
  }

  /// Splits the line into the complete words of the current command and the word being typed.
  private func split(_ line: String) -> (previous: [String], current: String) {
    var words: [String] = []
    var current = ""
    var quote: Character?
    for character in line {
      if let open = quote {
        if character == open { quote = nil } else { current.append(character) }
        continue
      }
      switch character {
      case "'", "\"":
        quote = character
      case " ", "\t":
        if !current.isEmpty { words.append(current) }
        current = ""
      case ";":
        if !current.isEmpty { words.append(current) }
        words = []
        current = ""
      default:
        current.append(character)
      }
    }
    return (words, current)
  }
}
