import Domain
import Foundation

/// Where the interpreter writes: standard output for results, standard error for errors.
public protocol OutputSink: AnyObject {
  /// Writes `text` (which ends with its own newline) to standard output.
  func standardOutput(_ text: String)
  /// Writes `text` (which ends with its own newline) to standard error.
  func standardError(_ text: String)
  /// Writes out anything standard output holds back.
  func flush()
}

extension OutputSink {
  /// Sinks that hold nothing back have nothing to flush.
  public func flush() {}
}

/// How the interpreter behaves, from the process options.
public struct InterpreterSettings: Sendable {
  /// Keep running a script after a failed command; the exit status is still 1.
  public var keepGoing = false
  /// Print each command line, with the prompt, before its output.
  public var echo = false
  /// The prompt.
  public var prompt = "archsh> "
  /// The prompt while a line ending in `\` is continued.
  public var continuationPrompt = "...> "
  /// Colour standard output.
  public var colorOutput = false
  /// Colour standard error.
  public var colorErrors = false
  /// The run is one transaction (`--atomic`): a script stops at its first failure, which no
  /// `expect` can excuse, and the error line says that everything was rolled back.
  public var atomic = false

  /// Default settings.
  public init() {}
}

/// How a run of lines ended.
public enum RunOutcome: Equatable, Sendable {
  /// The input ended.
  case finished
  /// A script stopped at an error.
  case stopped
  /// `exit` or `quit` asked for the process to end with this status.
  case exit(Int32)
}

/// What the previous command did, for `expect`.
public struct CommandRecord: Equatable, Sendable {
  /// Whether it succeeded.
  public var succeeded: Bool
  /// Its output; `expect` renders it as plain text when it needs it.
  public var output: Output
  /// Its error message, when it failed.
  public var error: String?
}

/// `exit` and `quit` throw this to end the process.
struct ExitRequest: Error {
  var status: Int32?
}

/// A failure that was already printed where it happened, inside a sourced file.
struct AlreadyReported: Error, CustomStringConvertible {
  var description: String
}

/// Runs lines of the command language: lexing, interpolation, dispatch, rendering, errors.
///
/// The same loop serves the prompt, scripts and `source`: a `LineSource` supplies lines, and a
/// frame says whether they come from a person (errors never end the session) or a script (the
/// first error stops it, unless `keepGoing`). A failed script command is held until the next
/// command: if that is an `expect`, the expectation decides; otherwise the script stops.
public final class Interpreter {
  /// The session commands run against.
  public let session: Session
  /// The commands.
  public let registry: CommandRegistry
  /// Behaviour from the process options.
  public var settings: InterpreterSettings
  /// Asked between commands: true when Ctrl-C was pressed, which stops a running script.
  public var interruptRequested: () -> Bool = { false }

  private let sink: OutputSink
  private var frames: [Frame] = []
  private var pendingFailure = false
  private var lastErrorDescription = ""
  private var exitStatus: Int32?

  /// What the previous command (other than `expect`) did.
  public private(set) var previous: CommandRecord?
  /// Whether any command failed in a way that makes the exit status 1.
  public private(set) var hadFailure = false

  private struct Frame {
    var name: String?
    var directory: String
    var arguments: [String]
    var scriptName: String
    var includedFrom: String?
    var isInteractive: Bool
    var currentLine = 0
  }

  /// Creates an interpreter.
  public init(
    session: Session, registry: CommandRegistry = AllGroups.registry, sink: OutputSink,
    settings: InterpreterSettings = InterpreterSettings()
  ) {
    self.session = session
    self.registry = registry
    self.sink = sink
    self.settings = settings
  }

  // MARK: - Running lines

  /// Runs every line of `source`.
  ///
  /// - Parameters:
  ///   - name: the name errors give for the source (`tour.ash`, `-c`), or nil at the prompt.
  ///   - directory: where `source` resolves relative paths.
  ///   - arguments: `$1`…`$9`.
  ///   - interactive: whether errors leave the loop running.
  public func run(
    _ source: inout some LineSource, name: String?, directory: String = ".",
    arguments: [String] = [], interactive: Bool
  ) -> RunOutcome {
    let frame = Frame(
      name: name, directory: directory, arguments: arguments, scriptName: name ?? "archsh",
      includedFrom: nil, isInteractive: interactive)
    let outcome = run(&source, frame: frame)
    if frames.isEmpty, pendingFailure {
      pendingFailure = false
      hadFailure = true
      if case .finished = outcome, !settings.keepGoing { return .stopped }
    }
    return outcome
  }

  private func run(_ source: inout some LineSource, frame: Frame) -> RunOutcome {
    frames.append(frame)
    defer { frames.removeLast() }
    while true {
      if let exitStatus { return .exit(exitStatus) }
      if frame.isInteractive { pendingFailure = false }
      let first: SourceLine
      switch source.next(continuation: false) {
      case .end: return .finished
      case .interrupted: continue
      case .line(let line): first = line
      }
      var line = LogicalLine(first)
      var discarded = false
      continuation: while Lexer.needsContinuation(line.text) {
        switch source.next(continuation: true) {
        case .line(let more): line.append(more)
        case .interrupted:
          discarded = true
          break continuation
        case .end: break continuation
        }
      }
      if discarded { continue }
      // A failed script command stops the script before the next line is even shown, unless
      // that line is an expectation about it (or only a comment).
      if pendingFailure, !frame.isInteractive, !continuesAfterFailure(line.text),
        settlePendingFailure()
      {
        return .stopped
      }
      if source.recordsHistory { source.accept(line.text, isSecret: lineContainsSecret(line.text)) }
      if settings.echo && frames.count == 1 { echo(line) }
      if !execute(line) { return exitStatus.map { .exit($0) } ?? .stopped }
    }
  }

  /// Runs one logical line; returns false when the run must stop.
  private func execute(_ line: LogicalLine) -> Bool {
    let commands: [RawCommand]
    do {
      commands = try Lexer.lex(line.text)
    } catch {
      return failed(error, line: line, fallbackOffset: 0, isExpect: false)
    }
    for raw in commands {
      if interruptRequested() {
        let error = ShellError("interrupted", hint: "Ctrl-C stopped the script")
        let keepRunning = failed(
          error, line: line, fallbackOffset: raw.words[0].offset, isExpect: false)
        return keepRunning && frames.last?.isInteractive == true
      }
      if !execute(raw, line: line) { return false }
      if exitStatus != nil { return false }
    }
    return true
  }

  /// Runs one command of a line; returns false when the run must stop.
  private func execute(_ raw: RawCommand, line: LogicalLine) -> Bool {
    let head = raw.words[0]
    let isExpect = !head.hasVariables && head.text == "expect"
    frames[frames.count - 1].currentLine = line.lineNumber(of: head.offset)
    if !isExpect, settlePendingFailure() { return false }
    var words: [Word] = []
    words.reserveCapacity(raw.words.count)
    var isTransparent = false
    do {
      for word in raw.words { words.append(try word.expanded(lookup)) }
      let resolution = try registry.resolve(words)
      isTransparent = resolution.command.isTransparent
      let output = try runTraced(resolution, words)
      emit(output)
      if isExpect { pendingFailure = false }
      if !isTransparent { previous = CommandRecord(succeeded: true, output: output, error: nil) }
      session.lastStatus = 0
      return true
    } catch let request as ExitRequest {
      let interactive = frames.first?.isInteractive == true
      exitStatus = request.status ?? (!interactive && (hadFailure || pendingFailure) ? 1 : 0)
      return false
    } catch {
      emit(.empty)
      return failed(
        error, line: line, fallbackOffset: head.offset, isExpect: isExpect,
        isTransparent: isTransparent)
    }
  }

  /// Records a failure, prints it unless it was printed already, and says whether to go on.
  private func failed(
    _ error: Error, line: LogicalLine, fallbackOffset: Int, isExpect: Bool,
    isTransparent: Bool = false
  ) -> Bool {
    let description: String
    if let reported = error as? AlreadyReported {
      description = reported.description
    } else {
      let shellError = (error as? ShellError) ?? ShellError(String(describing: error))
      description = shellError.description
      report(shellError.located(at: fallbackOffset), line: line)
    }
    lastErrorDescription = description
    session.lastStatus = 1
    if !isExpect && !(isTransparent && error is AlreadyReported) {
      previous = CommandRecord(succeeded: false, output: .empty, error: description)
    }
    guard let frame = frames.last, !frame.isInteractive else { return true }
    if settings.atomic {
      hadFailure = true
      return false
    }
    if isExpect {
      pendingFailure = false
      hadFailure = true
      return settings.keepGoing
    }
    pendingFailure = true
    return true
  }

  /// Settles a failed script command that no `expect` examined; returns true to stop.
  ///
  /// Inside a sourced file that stops, the failure is left to the including file, which may
  /// still examine it with `expect`; so only the outermost frame, or keep-going, records it.
  private func settlePendingFailure() -> Bool {
    guard pendingFailure else { return false }
    if settings.keepGoing || frames.count <= 1 {
      pendingFailure = false
      hadFailure = true
    }
    return !settings.keepGoing
  }

  /// Whether a line may follow a failed command without stopping the script: it starts with
  /// `expect`, or holds no command at all.
  private func continuesAfterFailure(_ text: String) -> Bool {
    guard let commands = try? Lexer.lex(text) else { return false }
    guard let first = commands.first?.words.first else { return true }
    return !first.hasVariables && first.text == "expect"
  }

  /// Prints a line at once, before the command finishes: for commands that run until stopped,
  /// such as `serve`, whose output must be seen while they run.
  public func announce(_ text: String) {
    sink.standardOutput(text + "\n")
    sink.flush()
  }

  /// Forgets earlier failures, so that an error in the rc file does not decide the exit status of
  /// the interactive session that follows it.
  public func resetFailures() {
    hadFailure = false
    pendingFailure = false
  }

  // MARK: - Dispatch

  /// Finds the command `words` call, checks its arguments, and runs it.
  public func dispatch(_ words: [Word]) throws -> Output {
    try run(registry.resolve(words), words)
  }

  private func run(_ resolution: CommandRegistry.Resolution, _ words: [Word]) throws -> Output {
    let arguments = try resolution.command.signature.parse(
      words[resolution.argumentStart...], command: resolution.name)
    let invocation = Invocation(
      session: session, arguments: arguments, commandName: resolution.name, interpreter: self,
      words: words[resolution.argumentStart...])
    do {
      return try resolution.command.run(invocation)
    } catch let error as ShellError {
      throw error
    } catch let error as ExitRequest {
      throw error
    } catch let error as AlreadyReported {
      throw error
    } catch {
      // A Domain error: the shell adds its hint and points at the word that gave its subject.
      throw Diagnosis.shellError(
        error, in: words[resolution.argumentStart...], command: resolution.name)
    }
  }

  private func runTraced(_ resolution: CommandRegistry.Resolution, _ words: [Word]) throws -> Output
  {
    let tracer = session.tracer
    guard tracer.isEnabled else { return try run(resolution, words) }
    return try tracer.withSpan("archsh", traceLabel(words)) { _ in try run(resolution, words) }
  }

  private func traceLabel(_ words: [Word]) -> String {
    guard let resolution = try? registry.resolve(words) else {
      return words.map(\.text).joined(separator: " ")
    }
    let arguments = try? resolution.command.signature.parse(
      words[resolution.argumentStart...], command: resolution.name)
    if arguments?.containsSecret == true { return "\(resolution.name) \(Span.redacted)" }
    return words.map(\.text).joined(separator: " ")
  }

  /// Whether a line holds a value declared secret, which keeps it out of history.
  public func lineContainsSecret(_ text: String) -> Bool {
    guard let commands = try? Lexer.lex(text) else { return false }
    return commands.contains { raw in
      containsSecret(raw.words.map { Word($0.text, offset: $0.offset, isQuoted: $0.isQuoted) })
    }
  }

  private func containsSecret(_ words: [Word]) -> Bool {
    guard let resolution = try? registry.resolve(words) else { return false }
    if resolution.group == nil, resolution.command.name == "time" {
      // `time` cannot time itself, so one level is all there is to look through.
      let inner = Array(words.dropFirst())
      return inner.first?.text != "time" && containsSecret(inner)
    }
    let signature = resolution.command.signature
    guard
      let arguments = try? signature.parse(
        words[resolution.argumentStart...], command: resolution.name)
    else {
      // A line that does not parse stays out of history if its command takes any secret.
      return signature.parameters.contains { $0.isSecret }
    }
    return arguments.containsSecret
  }

  private func lookup(_ name: String) -> String? {
    guard let frame = frames.last else { return session.variables[name]?.value }
    switch name {
    case "?":
      return String(session.lastStatus)
    case "#":
      return String(frame.arguments.count)
    case "0":
      return frame.scriptName
    default:
      if let digit = Int(name), name.utf8.count == 1 {
        return digit <= frame.arguments.count ? frame.arguments[digit - 1] : nil
      }
      return session.variables[name]?.value
    }
  }

  // MARK: - Source

  /// Runs a script file inside the current one: `source FILE [ARG...]`.
  ///
  /// The path is relative to the including file's directory. Errors inside carry the include
  /// chain. Nesting deeper than 64 files is an error.
  public func source(_ path: Word, arguments: [String]) throws -> Output {
    guard let current = frames.last else { return .empty }
    guard frames.count <= 64 else {
      throw ShellError(
        "'source' is nested deeper than 64 files", hint: "does '\(path.text)' source itself?",
        at: path.offset)
    }
    let display =
      path.text.hasPrefix("/") || current.directory == "."
      ? path.text : current.directory + "/" + path.text
    var script: ScriptLineSource
    switch ScriptLineSource.open(path: display) {
    case .success(let opened): script = opened
    case .failure(let error):
      throw ShellError(
        error.message, hint: "the path is relative to the including file", at: path.offset)
    }
    let directory = (display as NSString).deletingLastPathComponent
    let includedFrom = current.name.map { "\($0):\(current.currentLine)" }
    let frame = Frame(
      name: display, directory: directory.isEmpty ? "." : directory, arguments: arguments,
      scriptName: display, includedFrom: includedFrom, isInteractive: false)
    switch run(&script, frame: frame) {
    case .finished:
      if pendingFailure { throw AlreadyReported(description: lastErrorDescription) }
      return .empty
    case .stopped:
      throw AlreadyReported(description: lastErrorDescription)
    case .exit:
      return .empty
    }
  }

  // MARK: - Output

  /// The text `output` renders to in the current mode, without colour, as `expect` compares it.
  public func plainText(_ output: Output) -> String {
    switch session.outputMode {
    case .table: return TextRenderer(useColor: false).render(output)
    case .json: return JSONRenderer().render(output)
    }
  }

  /// Prints a command's output and the trace trees it caused.
  ///
  /// In JSON mode a command still prints one document: its output alone, or, when it was traced,
  /// `{"output": ..., "trace": [...]}`.
  private func emit(_ output: Output) {
    let trees = session.tracer.drainCompleted()
      .filter { !$0.children.isEmpty || !$0.events.isEmpty }
      .map(TraceRendering.tree)
    switch session.outputMode {
    case .table:
      let renderer = TextRenderer(useColor: settings.colorOutput)
      // `echo ""` prints an empty line; only `.empty` prints nothing.
      if output != .empty { sink.standardOutput(renderer.render(output) + "\n") }
      for tree in trees { sink.standardOutput(renderer.render(.tree(tree)) + "\n") }
    case .json:
      let renderer = JSONRenderer()
      if trees.isEmpty {
        if output != .empty { sink.standardOutput(renderer.render(output) + "\n") }
        return
      }
      let document = Value.object([
        Field("output", renderer.value(of: output) ?? .null),
        Field("trace", .list(trees.compactMap { renderer.value(of: .tree($0)) })),
      ])
      var text = ""
      JSONRenderer.write(document, into: &text)
      sink.standardOutput(text + "\n")
    }
  }

  private func echo(_ line: LogicalLine) {
    let trimmed = line.text.drop { $0 == " " || $0 == "\t" }
    if trimmed.isEmpty || trimmed.hasPrefix("#") {
      sink.standardOutput(line.text + "\n")
      return
    }
    let physical = line.text.split(separator: "\n", omittingEmptySubsequences: false)
    var text = ""
    for (index, part) in physical.enumerated() {
      text += (index == 0 ? settings.prompt : settings.continuationPrompt) + part + "\n"
    }
    sink.standardOutput(text)
  }

  private func report(_ error: ShellError, line: LogicalLine) {
    let label = settings.colorErrors ? "\u{1B}[1;31merror:\u{1B}[0m" : "error:"
    guard let frame = frames.last, let name = frame.name, !frame.isInteractive else {
      var text = ""
      if let offset = error.offset, line.isSinglePhysicalLine {
        let column = line.location(of: offset).column
        text += String(repeating: " ", count: settings.prompt.count + column - 1) + "^\n"
      }
      sink.standardError(text + "\(label) \(error.description.replacingNewlines())\n")
      return
    }
    let location = line.location(of: error.offset ?? 0)
    // A script that sources itself repeats one frame up to the nesting limit: each run of the
    // same place is written once, with a count.
    var places: [(place: String, count: Int)] = []
    for outer in frames.reversed() {
      guard let includedFrom = outer.includedFrom else { continue }
      if let last = places.last, last.place == includedFrom {
        places[places.count - 1].count += 1
      } else {
        places.append((includedFrom, 1))
      }
    }
    var chain = ""
    for (place, count) in places {
      chain += chain.isEmpty ? "; in file included from " : ", from "
      chain += count > 1 ? "\(place) (×\(count))" : place
    }
    let rolledBack =
      settings.atomic ? "; rolled back: nothing this run did was saved (--atomic)" : ""
    sink.standardError(
      "\(name):\(location.line):\(location.column): \(label) \(error.description.replacingNewlines())\(chain)\(rolledBack)\n"
    )
  }
}

/// A line as the user sees it: one or more physical lines joined by continuation.
struct LogicalLine {
  var text: String
  private var starts: [(offset: Int, number: Int)]

  init(_ line: SourceLine) {
    text = line.text
    starts = [(0, line.number)]
  }

  var isSinglePhysicalLine: Bool { starts.count == 1 }

  mutating func append(_ line: SourceLine) {
    text += "\n"
    starts.append((text.utf8.count, line.number))
    text += line.text
  }

  /// The physical line number of a byte offset.
  func lineNumber(of offset: Int) -> Int {
    guard starts.count > 1 else { return starts[0].number }
    return starts.last { $0.offset <= offset }?.number ?? starts[0].number
  }

  /// The physical line number and 1-based column (in characters) of a byte offset.
  func location(of offset: Int) -> (line: Int, column: Int) {
    var start = starts[0]
    for candidate in starts where candidate.offset <= offset { start = candidate }
    let utf8 = text.utf8
    let clamped = min(max(offset, start.offset), utf8.count)
    let from = utf8.index(utf8.startIndex, offsetBy: start.offset)
    let to = utf8.index(utf8.startIndex, offsetBy: clamped)
    let column = String(decoding: utf8[from..<to], as: UTF8.self).count + 1
    return (start.number, column)
  }
}
