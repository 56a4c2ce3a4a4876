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
  /// cannot take itself. A line that asks for help with `--help` (`store persist --help`) is
  /// parsed as the `help` command that shows it.
  public static func parse(_ words: [Word], registry: CommandRegistry) throws(ShellError)
    -> ParsedCommand
  {
    if let help = registry.helpRequest(words) { return try parse(help, registry: registry) }
    let resolution = try registry.resolve(words)
    // `echo hi > file` would print the `>`: a POSIX shell's operator, unquoted, is refused with
    // what to use instead.
    if let operation = words[resolution.argumentStart...].first(where: {
      !$0.isQuoted && isShellOperator($0.text)
    }) {
      throw ShellError(
        "archsh has no redirection or pipes: '\(operation.text)' would be a word of "
          + "'\(resolution.name)'",
        hint: "quote it to mean the word; write a file with 'trace export FILE', or redirect "
          + "archsh itself from your shell: archsh --json -c 'LINE' > FILE",
        at: operation.offset)
    }
    let signature = resolution.command.signature
    let arguments = try signature.parse(
      words[resolution.argumentStart...], command: resolution.name)
    guard let slot = signature.commandLineSlot else {
      return ParsedCommand(words: words, resolution: resolution, arguments: arguments, inner: [])
    }
    let commandLine = signature.parameters[slot]
    let line = arguments.all(commandLine.name, commandLine.kind).map(\.word)
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

  /// The words a POSIX shell reads as redirections and pipes.
  static let shellOperators: Set<String> = [">", ">>", "<", "|", "2>", "&>", "2>&1"]

  /// Whether `text` is one of `shellOperators`; every argument of every command is asked, so a
  /// word that cannot be one (the most) is not hashed.
  static func isShellOperator(_ text: String) -> Bool {
    guard let first = text.utf8.first, text.utf8.count <= 4,
      first == UInt8(ascii: ">") || first == UInt8(ascii: "<") || first == UInt8(ascii: "|")
        || first == UInt8(ascii: "2") || first == UInt8(ascii: "&")
    else { return false }
    return shellOperators.contains(text)
  }

  /// Whether any value given is declared secret, here or in the command it runs.
  public var containsSecret: Bool {
    arguments.containsSecret || inner.contains { $0.containsSecret }
  }

  /// How traces name the command: its words, each secret one redacted (a secret parameter's
  /// value, a secret header, or a word that holds a secret variable's value).
  public var traceLabel: String {
    let secret = Set(secretWordOffsets + words.filter(\.isSecret).map(\.offset))
    guard !secret.isEmpty else { return words.map(\.text).joined(separator: " ") }
    return words.map { secret.contains($0.offset) ? Span.redacted : $0.text }
      .joined(separator: " ")
  }

  /// The command as it could be typed again, each word quoted where it needs it, and secret
  /// values replaced as in `traceLabel`: what the board shows.
  public var displayLine: String {
    let secret = Set(secretWordOffsets + words.filter(\.isSecret).map(\.offset))
    return words.map { secret.contains($0.offset) ? Span.redacted : Lexer.quoted($0.text) }
      .joined(separator: " ")
  }

  /// The offsets of the secret words, here and in the command it runs.
  var secretWordOffsets: [Int] {
    arguments.secretWordOffsets + inner.flatMap(\.secretWordOffsets)
  }
}

/// A logical line lexed once; each command is parsed once, into the `ParsedCommand` that runs.
///
/// When the line goes to a history, its commands are parsed here, before anything runs, because
/// whether a secret was given decides if it is recorded; that parse is the one that runs. A command
/// with variables is parsed when it runs, after the commands before it on the line; for the history,
/// its uninterpolated form decides. Lines from a script, which keeps no history, are parsed only
/// when each command runs.
///
/// A class: the interpreter passes a line through several calls per command, and a struct of
/// results and arrays would be copied at each of them.
final class PreparedLine {
  /// The commands, or the lexer's error.
  let commands: Result<[RawCommand], ShellError>
  /// For a line that goes to a history, each command parsed, or its error.
  ///
  /// Nil for a command that needs interpolation first; empty for a line from a script.
  private(set) var parsed: [Result<ParsedCommand, ShellError>?] = []
  /// Whether the line holds a secret and must stay out of history.
  private(set) var containsSecret = false

  /// Whether its commands were parsed for a history, which finds the secrets in it.
  let wasPreparedForHistory: Bool

  init(_ text: String, registry: CommandRegistry, forHistory: Bool) {
    wasPreparedForHistory = forHistory
    do {
      commands = .success(try Lexer.lex(text))
    } catch {
      commands = .failure(error)
    }
    guard forHistory, case .success(let raws) = commands else { return }
    for raw in raws {
      // Without interpolation a variable word reads as empty, which is enough to find the command
      // and whether a secret parameter was given.
      let words = Self.uninterpolated(raw)
      // A URL with a password (refused wherever it is given) is a secret too.
      containsSecret = containsSecret || raw.words.contains { Redaction.holdsURLPassword($0.text) }
      do {
        let command = try ParsedCommand.parse(words, registry: registry)
        containsSecret = containsSecret || command.containsSecret
        parsed.append(raw.words.contains { $0.hasVariables } ? nil : .success(command))
      } catch {
        // A command that does not parse stays out of history if it takes any secret.
        containsSecret = containsSecret || Self.takesSecret(words, registry: registry)
        parsed.append(raw.words.contains { $0.hasVariables } ? nil : .failure(error))
      }
    }
  }

  /// The parsed form of the command at `index`, when the line was prepared for a history.
  func parsedCommand(at index: Int) -> Result<ParsedCommand, ShellError>? {
    index < parsed.count ? parsed[index] : nil
  }

  /// Whether the command at `index` examines the previous command's failure (`expect`).
  ///
  /// Asked only while a script failure waits for one. A command word that is a variable is known
  /// only when it runs.
  func isExpectation(at index: Int, registry: CommandRegistry) -> Bool {
    guard case .success(let raws) = commands, !raws[index].words[0].hasVariables else {
      return false
    }
    if case .success(let command)? = parsedCommand(at: index) {
      return command.resolution.command.isExpectation
    }
    guard case .found(let resolution) = registry.lookup(Self.uninterpolated(raws[index])) else {
      return false
    }
    return resolution.command.isExpectation
  }

  /// Whether the line may follow a failed script command: it starts with an expectation, or
  /// holds no command at all.
  func continuesAfterFailure(registry: CommandRegistry) -> Bool {
    guard case .success(let raws) = commands else { return false }
    return raws.isEmpty || isExpectation(at: 0, registry: registry)
  }

  static func uninterpolated(_ raw: RawCommand) -> [Word] {
    raw.words.map { Word($0.text, offset: $0.offset, isQuoted: $0.isQuoted) }
  }

  static func takesSecret(_ words: [Word], registry: CommandRegistry) -> Bool {
    guard case .found(let resolution) = registry.lookup(words) else { return false }
    let parameters = resolution.command.signature.parameters
    if parameters.contains(where: \.isSecret) { return true }
    let partial = resolution.command.signature.partial(words[resolution.argumentStart...])
    guard let start = partial.passthroughStart else { return false }
    return takesSecret(Array(words[start...]), registry: registry)
  }
}
