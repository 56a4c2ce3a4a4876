import Domain

/// What a command is given when it runs: the session, its parsed line, and what it may ask of
/// the interpreter running it (`CommandContext`).
public struct Invocation {
  /// The session: variables, settings, and the application factory.
  public let session: Session
  /// The command line, resolved and parsed.
  public let parsed: ParsedCommand
  /// What the command may ask of the interpreter running it.
  let context: any CommandContext

  init(session: Session, parsed: ParsedCommand, context: any CommandContext) {
    self.session = session
    self.parsed = parsed
    self.context = context
  }

  /// The arguments, checked against the command's signature and converted.
  public var arguments: Arguments { parsed.arguments }
  /// The command's full name, for example `store keys`.
  public var commandName: String { parsed.resolution.name }
  /// Where the relative paths the command reads or writes start: the running script's folder,
  /// or the current directory at the prompt.
  var paths: RelativePaths { context.paths }
}

/// One command: its name, its declared signature, its help, and what it does.
public final class Command: Sendable {
  /// The verb, or the builtin's name.
  public let name: String
  /// Other names that run the same command.
  public let aliases: [String]
  /// One line for listings.
  public let summary: String
  /// More help: behaviour, deliberate differences from the seed, caveats.
  public let discussion: String
  /// The arguments, options and flags.
  public let signature: Signature
  /// Example lines, shown in the help.
  public let examples: [String]
  /// What its result holds for programs; nil while undeclared, which a test does not allow.
  public let result: ResultShape?
  /// Whether `expect` looks through this command to the one before it (`expect`, `source`).
  public let isTransparent: Bool
  /// Whether it examines the previous command's failure (`expect`): a failed script command waits
  /// for it instead of stopping the script.
  public let isExpectation: Bool
  /// Runs the command.
  public let run: @Sendable (Invocation) throws -> Output

  /// Declares a command.
  public init(
    _ name: String, aliases: [String] = [], summary: String, discussion: String = "",
    signature: Signature = Signature(), examples: [String] = [], result: ResultShape? = nil,
    isTransparent: Bool = false, isExpectation: Bool = false,
    run: @escaping @Sendable (Invocation) throws -> Output
  ) {
    self.isTransparent = isTransparent
    self.isExpectation = isExpectation
    self.name = name
    self.aliases = aliases
    self.summary = summary
    self.discussion = discussion
    self.signature = signature
    self.examples = examples
    self.result = result
    self.run = run
  }
}

/// A group of commands bound to one controller, such as `store` for PersistenceController.
///
/// The builtins form a group too, whose commands are called without a group word.
public struct CommandGroup: Sendable {
  /// The group word, for example `store`; empty for the builtins.
  public let name: String
  /// One line for `help`.
  public let summary: String
  /// Whose parts the group drives: a seed architecture's, or archsh's own; `help GROUP` says so.
  public let origins: [Origin]
  /// More help: the controller it drives and the seed it comes from.
  public let discussion: String
  /// The commands, in the order the help lists them.
  public let commands: [Command]
  /// The shell's hints for the Domain errors this group's controller raises.
  ///
  /// A hint says what to run next, in shell words, which Domain never holds; nil for an error the
  /// group does not know.
  public let hints: @Sendable (Error) -> String?
  /// The verbs that make sense in the session's state, which Tab completion offers.
  ///
  /// Nil offers every verb. Typing another still runs it, and its error says why it cannot.
  public let offered: @Sendable (Session) -> Set<String>?

  /// Declares a group, with the hints for its controller's errors.
  public init(
    _ name: String, summary: String, from origins: [Origin], discussion: String = "",
    commands: [Command], hints: @escaping @Sendable (Error) -> String? = { _ in nil },
    offered: @escaping @Sendable (Session) -> Set<String>? = { _ in nil }
  ) {
    self.name = name
    self.summary = summary
    self.origins = origins
    self.discussion = discussion
    self.commands = commands
    self.hints = hints
    self.offered = offered
  }

  /// Whether the group's commands are called without a group word.
  public var isBuiltins: Bool { name.isEmpty }

  /// The words that can follow the group word: each command's first word, once, in order.
  public var verbs: [String] {
    var seen = Set<String>()
    return commands.flatMap { [$0.name] + $0.aliases }.compactMap { name in
      let first = String(name.split(separator: " ").first ?? "")
      return seen.insert(first).inserted ? first : nil
    }
  }

  /// For a two-word verb such as `section add`, the second words after `verb`.
  public func subverbs(of verb: String) -> [String] {
    commands.compactMap { command in
      let parts = command.name.split(separator: " ", maxSplits: 1)
      return parts.count == 2 && parts[0] == verb ? String(parts[1]) : nil
    }
  }
}
