import Domain

/// A command resolved and parsed once: execution, the trace label, history and `expect` all read
/// this one value.
///
/// A class, so that the prepared line, the invocation and the tracer share one instance.
public final class ParsedCommand {
  /// The words after interpolation, the command's own words first.
  public let words: [Word]
  /// The command they call, and where its arguments start.
  public let resolution: CommandRegistry.Resolution
  /// The arguments, checked and converted.
  public let arguments: Arguments
  /// For a command that runs another command line (`time`), that command, parsed too.
  public let inner: [ParsedCommand]

  init(
    words: [Word], resolution: CommandRegistry.Resolution, arguments: Arguments,
    inner: [ParsedCommand]
  ) {
    self.words = words
    self.resolution = resolution
    self.arguments = arguments
    self.inner = inner
  }

  /// Resolves and parses `words`.
  ///
  /// A command whose signature takes a command line parses that line as well, one level deep: it
  /// cannot take itself.
  public static func parse(_ words: [Word], registry: CommandRegistry) throws(ShellError)
    -> ParsedCommand
  {
    let resolution = try registry.resolve(words)
    let signature = resolution.command.signature
    let arguments = try signature.parse(
      words[resolution.argumentStart...], command: resolution.name)
    guard let slot = signature.commandLineSlot else {
      return ParsedCommand(words: words, resolution: resolution, arguments: arguments, inner: [])
    }
    let commandLine = signature.parameters[slot]
    let line = arguments.all(commandLine).map(\.word)
    if let first = line.first, case .found(let named) = registry.lookup(line),
      named.command === resolution.command
    {
      throw ShellError(
        "'\(resolution.name)' cannot \(resolution.name) itself",
        hint: "write '\(resolution.name) \(commandLine.name)'", at: first.offset)
    }
    let inner = try parse(line, registry: registry)
    return ParsedCommand(words: words, resolution: resolution, arguments: arguments, inner: [inner])
  }

  /// Whether any value given is declared secret, here or in the command it runs.
  public var containsSecret: Bool {
    arguments.containsSecret || inner.contains { $0.containsSecret }
  }

  /// How traces name the command: its words, or its name alone when it holds a secret.
  public var traceLabel: String {
    containsSecret
      ? "\(resolution.name) \(Span.redacted)" : words.map(\.text).joined(separator: " ")
  }
}

/// A logical line lexed once, and each of its commands parsed as far as can be before it runs.
///
/// A command without variables is parsed here, and that value is the one that runs. A command with
/// variables can only be parsed when it runs, after the commands before it on the line; here its
/// uninterpolated form decides whether the line holds a secret.
struct PreparedLine {
  /// One command of the line.
  struct Command {
    /// The command as the lexer found it.
    let raw: RawCommand
    /// The parsed command, or its error; nil when it needs interpolation first.
    let parsed: Result<ParsedCommand, ShellError>?
    /// Whether it examines the previous command's failure (`expect`).
    let isExpectation: Bool
    /// Whether it holds a secret, so the line stays out of history.
    let isSecret: Bool
  }

  /// The commands, or the lexer's error.
  let commands: Result<[Command], ShellError>

  init(_ text: String, registry: CommandRegistry) {
    do {
      commands = .success(try Lexer.lex(text).map { Self.prepare($0, registry: registry) })
    } catch {
      commands = .failure(error)
    }
  }

  private static func prepare(_ raw: RawCommand, registry: CommandRegistry) -> Command {
    // Without interpolation a variable word reads as empty, which is enough to find the command
    // and whether a secret parameter was given.
    let words = raw.words.map { Word($0.text, offset: $0.offset, isQuoted: $0.isQuoted) }
    let hasVariables = raw.words.contains { $0.hasVariables }
    let parsed: Result<ParsedCommand, ShellError>
    do {
      parsed = .success(try ParsedCommand.parse(words, registry: registry))
    } catch {
      parsed = .failure(error)
    }
    let isSecret: Bool
    var isExpectation = false
    switch parsed {
    case .success(let command):
      isSecret = command.containsSecret
      isExpectation = command.resolution.command.isExpectation
    case .failure:
      // A command that does not parse stays out of history if it takes any secret.
      isSecret = Self.takesSecret(words, registry: registry)
      if case .found(let resolution) = registry.lookup(words) {
        isExpectation = resolution.command.isExpectation
      }
    }
    // A command word that is a variable is known only when it runs.
    if raw.words[0].hasVariables { isExpectation = false }
    return Command(
      raw: raw, parsed: hasVariables ? nil : parsed, isExpectation: isExpectation,
      isSecret: isSecret)
  }

  private static func takesSecret(_ words: [Word], registry: CommandRegistry) -> Bool {
    guard case .found(let resolution) = registry.lookup(words) else { return false }
    let parameters = resolution.command.signature.parameters
    if parameters.contains(where: \.isSecret) { return true }
    let partial = resolution.command.signature.partial(words[resolution.argumentStart...])
    guard let start = partial.passthroughStart else { return false }
    return takesSecret(Array(words[start...]), registry: registry)
  }

  /// Whether the line holds a secret and must stay out of history.
  var containsSecret: Bool {
    (try? commands.get())?.contains { $0.isSecret } ?? false
  }

  /// Whether the line may follow a failed script command: it starts with an expectation, or
  /// holds no command at all.
  var continuesAfterFailure: Bool {
    guard let commands = try? commands.get() else { return false }
    return commands.first?.isExpectation ?? true
  }
}
