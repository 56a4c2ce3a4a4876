import Domain

/// Every command group, indexed for dispatch: a dictionary lookup for the first word, and one for
/// the verb.
public final class CommandRegistry: Sendable {
  /// The groups in the order the help lists them; the builtins come first.
  public let groups: [CommandGroup]

  private enum Entry {
    case builtin(Command)
    case group(Int)
  }

  private let top: [String: Entry]
  private let verbs: [[String: Command]]

  /// A command found for a command line, with where its arguments start.
  public struct Resolution {
    /// The command to run.
    public let command: Command
    /// The group it belongs to, or nil for a builtin.
    public let group: CommandGroup?
    /// Its full name, for example `store keys`.
    public let name: String
    /// The index of the first argument word.
    public let argumentStart: Int
  }

  /// Indexes `groups`.
  ///
  /// A group's name and a builtin's name must not collide.
  public init(groups: [CommandGroup]) {
    self.groups = groups
    var top: [String: Entry] = [:]
    var verbs: [[String: Command]] = []
    for (index, group) in groups.enumerated() {
      var table: [String: Command] = [:]
      for command in group.commands {
        for name in [command.name] + command.aliases {
          if group.isBuiltins { top[name] = .builtin(command) } else { table[name] = command }
        }
      }
      if !group.isBuiltins { top[group.name] = .group(index) }
      verbs.append(table)
    }
    self.top = top
    self.verbs = verbs
  }

  /// The names that can start a command line: builtins and group words.
  public var topLevelNames: [String] {
    groups.flatMap { group in group.isBuiltins ? group.commands.map(\.name) : [group.name] }
  }

  /// The group named `name`.
  public func group(named name: String) -> CommandGroup? {
    groups.first { !$0.isBuiltins && $0.name == name }
  }

  /// The builtin named `name`.
  public func builtin(named name: String) -> Command? {
    if case .builtin(let command) = top[name] { return command }
    return nil
  }

  /// Finds the command that `words` call.
  ///
  /// Unknown names get a "did you mean".
  public func resolve(_ words: [Word]) throws(ShellError) -> Resolution {
    guard let first = words.first else { throw ShellError("empty command") }
    switch top[first.text] {
    case .builtin(let command):
      return Resolution(command: command, group: nil, name: command.name, argumentStart: 1)
    case .group(let index):
      let group = groups[index]
      guard words.count > 1 else {
        throw ShellError(
          "'\(group.name)' needs a verb: \(group.verbs.joined(separator: ", "))",
          hint: "try 'help \(group.name)'", at: first.offset + first.text.utf8.count + 1)
      }
      let verb = words[1]
      if let command = verbs[index][verb.text] {
        return Resolution(
          command: command, group: group, name: "\(group.name) \(command.name)", argumentStart: 2)
      }
      // Two-word verbs, such as `ds section add`.
      let subverbs = group.subverbs(of: verb.text)
      if !subverbs.isEmpty {
        guard words.count > 2 else {
          throw ShellError(
            "'\(group.name) \(verb.text)' needs a verb: \(subverbs.joined(separator: ", "))",
            hint: "try 'help \(group.name) \(verb.text)'",
            at: verb.offset + verb.text.utf8.count + 1)
        }
        let subverb = words[2]
        guard let command = verbs[index][verb.text + " " + subverb.text] else {
          let hint =
            ShellError.didYouMean(subverb.text, among: subverbs)
            ?? "try 'help \(group.name) \(verb.text)'"
          throw ShellError(
            "unknown verb '\(subverb.text)' for '\(group.name) \(verb.text)'", hint: hint,
            at: subverb.offset)
        }
        return Resolution(
          command: command, group: group, name: "\(group.name) \(command.name)", argumentStart: 3)
      }
      let hint =
        ShellError.didYouMean(verb.text, among: group.verbs) ?? "try 'help \(group.name)'"
      throw ShellError(
        "unknown verb '\(verb.text)' for '\(group.name)'", hint: hint, at: verb.offset)
    case nil:
      let hint = ShellError.didYouMean(first.text, among: topLevelNames) ?? "try 'help'"
      throw ShellError("unknown command '\(first.text)'", hint: hint, at: first.offset)
    }
  }
}
