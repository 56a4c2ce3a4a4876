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

/// A sink that can show a progress line while a long command runs.
public protocol ProgressSink: OutputSink {
  /// Shows `text` as the current progress (replacing the last one), or clears it when nil; only
  /// on a terminal, so scripts and transcripts never see it.
  func progress(_ text: String?)
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
  /// The run is one transaction (`--atomic`): it commits when the script succeeds, and rolls back
  /// when it stops; a failure that an `expect` examines does not stop it.
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
/// first error stops it, unless `keepGoing`); `FailurePolicy` decides.
public final class Interpreter {
  /// The session commands run against: during an exercise (`learn start`), the exercise's own.
  public internal(set) var session: Session
  /// The commands.
  public let registry: CommandRegistry
  /// Behaviour from the process options.
  public var settings: InterpreterSettings
  /// Asked between commands: true when Ctrl-C was pressed, which stops a running script.
  public var interruptRequested: () -> Bool = { false }
  /// Asked before each result is printed: the width of the terminal that standard output is, or
  /// nil when it is not one, so that what a pipe or a transcript gets never depends on a window.
  public var terminalWidth: () -> Int? = { nil }

  let sink: OutputSink
  var frames: [ScriptFrame] = []
  /// How many commands have run, which numbers each command's events.
  ///
  /// Step mode carries it over to the interpreter a rebuild makes, so that the board's numbers go
  /// on after a step back instead of starting again from 1.
  var commandCount = 0
  /// What observes this interpreter besides its session's observers: the exercise in progress.
  private var ownObservers = ObserverList()
  var failures = FailurePolicy()
  var lastErrorDescription = ""
  private var exitStatus: Int32?

  /// The exercise in progress, whose goal is checked after each line.
  var lesson: Lesson?
  /// Whether commands are shown on the board; false for an exercise's quiet check.
  var publishes = true

  /// Registers `observer` with this interpreter alone (its session's observers are told too).
  func register(_ observer: any InterpreterObserver) { ownObservers.add(observer) }

  /// Stops telling `observer`.
  func unregister(_ observer: any InterpreterObserver) { ownObservers.remove(observer) }

  /// The session's observers and this interpreter's own, as they are now.
  ///
  /// A command reads them once, after it ran (it may have registered one: `record start`), for
  /// its end and its output.
  private var observersNow: Observers { Observers(first: session.observers, second: ownObservers) }

  /// Whether an observer is told before and after each line: read from the flags, without
  /// copying the lists.
  private var watchesLineRuns: Bool {
    session.observers.watchesLineRuns || ownObservers.watchesLineRuns
  }

  /// Tells every observer, the session's first.
  private func notify(_ call: (any InterpreterObserver) -> Void) { observersNow.notify(call) }

  /// Whether the innermost script frame reads from the prompt (or nothing runs).
  var readsFromPrompt: Bool { frames.last?.isInteractive ?? true }

  /// What the previous command (other than `expect`) did.
  public private(set) var previous: CommandRecord?
  /// Whether any command failed in a way that makes the exit status 1.
  public var hadFailure: Bool { failures.hadFailure }

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
  ///   - shownDirectory: in a walkthrough's replay, `.`: messages then name files from the
  ///     walkthrough's folder (`RelativePaths.shownDirectory`).
  ///   - arguments: `$1`…`$9`.
  ///   - interactive: whether errors leave the loop running.
  ///   - continued: whether more parts of the same script follow (several `-c` and `-f` options
  ///     form one script): a failure at the end of this part is then left for the next part's
  ///     first line, which may be an `expect` that examines it.
  public func run(
    _ source: inout some LineSource, name: String?, directory: String = ".",
    shownDirectory: String? = nil, arguments: [String] = [], interactive: Bool,
    continued: Bool = false
  ) -> RunOutcome {
    let frame = ScriptFrame(
      name: name, directory: directory, shownDirectory: shownDirectory, arguments: arguments,
      scriptName: name ?? "archsh", includedFrom: nil, isInteractive: interactive)
    let outcome = run(&source, frame: frame)
    guard frames.isEmpty else { return outcome }
    if continued, case .finished = outcome { return outcome }
    return failures.finish(outcome, keepGoing: settings.keepGoing)
  }

  /// The loop: read a logical line, prepare it once, record it, echo it, run it.
  func run(_ source: inout some LineSource, frame: ScriptFrame) -> RunOutcome {
    frames.append(frame)
    defer { frames.removeLast() }
    // Lines are shown to the observers only in the outermost frame, not in a sourced file.
    let topLevel = frames.count == 1
    defer { if topLevel { notify { $0.interpreterIsIdle(self) } } }
    while exitStatus == nil {
      if frame.isInteractive { failures.forgetPending() }
      if source.isIdle { notify { $0.interpreterIsIdle(self) } }
      guard let read = source.nextLogicalLine() else { return .finished }
      guard let line = read else { continue }
      let prepared = PreparedLine(line.text, registry: registry, forHistory: source.recordsHistory)
      // A failed script command stops the script before the next line is even shown, unless
      // that line is an expectation about it (or only a comment).
      if !frame.isInteractive, failures.isPending,
        !prepared.continuesAfterFailure(registry: registry), settlePendingFailure()
      {
        return .stopped
      }
      if source.recordsHistory { source.accept(line.text, isSecret: prepared.containsSecret) }
      if topLevel && settings.echo { echo(line) }
      // Most runs have no recorder and no exercise: nobody is told of the line.
      if topLevel, watchesLineRuns {
        notify {
          $0.lineWillRun(line, prepared: prepared, interactive: frame.isInteractive, in: self)
        }
      }
      // Whether the line is followed by `expect fails` is read only when it fails: its error is
      // then shown as expected.
      let keepRunning = execute(prepared, line: line) {
        !frame.isInteractive && source.nextExpectsFailure
      }
      // The line may have started an exercise or a recording (`learn start`, `record start`),
      // so the observers are read again.
      if topLevel, watchesLineRuns {
        let interrupted = interruptRequested()
        notify {
          $0.lineDidRun(line, interactive: frame.isInteractive, interrupted: interrupted, in: self)
        }
      }
      if !keepRunning { return exitStatus.map { .exit($0) } ?? .stopped }
    }
    return exitStatus.map { .exit($0) } ?? .finished
  }

  /// Runs one logical line; returns false when the run must stop.
  private func execute(
    _ prepared: PreparedLine, line: LogicalLine, expectsFailure: () -> Bool
  ) -> Bool {
    let commands: [RawCommand]
    switch prepared.commands {
    case .success(let lexed): commands = lexed
    case .failure(let error):
      return failed(error, line: line, fallbackOffset: 0, expected: expectsFailure)
    }
    for index in commands.indices {
      if interruptRequested() {
        let error = ShellError("interrupted", hint: "Ctrl-C stopped the script")
        let keepRunning = failed(
          error, line: line, fallbackOffset: commands[index].words[0].offset,
          expected: expectsFailure)
        return keepRunning && frames.last?.isInteractive == true
      }
      if !execute(index, of: prepared, line: line, expectsFailure: expectsFailure)
        || exitStatus != nil
      {
        return false
      }
    }
    return true
  }

  /// Runs one command of a line; returns false when the run must stop.
  private func execute(
    _ index: Int, of prepared: PreparedLine, line: LogicalLine, expectsFailure: () -> Bool
  ) -> Bool {
    guard case .success(let commands) = prepared.commands else { return false }
    let raw = commands[index]
    let head = raw.words[0]
    frames[frames.count - 1].currentLine = line.lineNumber(of: head.offset)
    // Whether it is an `expect` matters only while a failure waits for one, and after a failure.
    var isExpect = failures.isPending && prepared.isExpectation(at: index, registry: registry)
    if !isExpect, settlePendingFailure() { return false }
    var isTransparent = false
    var isParsed = false
    let session = self.session
    let events = session.events
    commandCount += 1
    events.command = commandCount
    defer { events.command = 0 }
    do {
      let parsed = try prepared.parsedCommand(at: index)?.get() ?? interpolated(raw)
      isParsed = true
      isExpect = parsed.resolution.command.isExpectation
      isTransparent = parsed.resolution.command.isTransparent
      publishCommand(.began, parsed.displayLine, in: session)
      let output = try observed(parsed, in: session)
      // The command may have changed the session (`learn start`, `learn stop`): its end is
      // published to the session that runs lines now, whose stream the board follows.
      let observers = observersNow
      publishCommand(.ended, parsed.displayLine, in: self.session, observers, output)
      emit(output, to: observers)
      if isExpect { failures.examined() }
      if !isTransparent { previous = CommandRecord(succeeded: true, output: output, error: nil) }
      self.session.lastStatus = 0
      return true
    } catch let request as ExitRequest {
      let interactive = frames.first?.isInteractive == true
      exitStatus = request.status ?? failures.exitStatus(interactive: interactive)
      return false
    } catch {
      // A linter fails and still shows its findings.
      let shown = (error as? FailureWithOutput)?.output ?? .empty
      let observers = observersNow
      emit(shown, to: observers, failed: true)
      // A command that did not parse may still be an `expect`, which the failure policy treats
      // as the expectation failing.
      if !isParsed { isExpect = prepared.isExpectation(at: index, registry: registry) }
      publishCommand(
        .ended,
        prepared.containsSecret
          ? Span.redacted : raw.words.map { Lexer.quoted($0.text) }.joined(separator: " "),
        in: self.session, observers, shown, error: error)
      return failed(
        error, line: line, fallbackOffset: head.offset, expected: expectsFailure,
        isExpect: isExpect, isTransparent: isTransparent, output: shown)
    }
  }

  /// Parses a command that holds variables, once they are interpolated.
  private func interpolated(_ raw: RawCommand) throws(ShellError) -> ParsedCommand {
    var words: [Word] = []
    words.reserveCapacity(raw.words.count)
    for word in raw.words {
      words.append(
        try word.expanded(lookup) { [session] in session.variables[$0]?.isSecret == true })
    }
    return try ParsedCommand.parse(words, registry: registry)
  }

  /// Records a failure, prints it unless it was printed already (as expected when `expected`
  /// says the next line is `expect fails`), and says whether to go on.
  private func failed(
    _ error: Error, line: LogicalLine, fallbackOffset: Int, expected: () -> Bool,
    isExpect: Bool = false, isTransparent: Bool = false, output: Output = .empty
  ) -> Bool {
    let description: String
    if let reported = error as? AlreadyReported {
      description = reported.description
    } else {
      let shellError =
        (error as? ShellError) ?? (error as? FailureWithOutput)?.error
        ?? ShellError(describing: error, command: nil)
      description = shellError.description
      report(shellError.located(at: fallbackOffset), line: line, expected: expected())
    }
    lastErrorDescription = description
    session.lastStatus = 1
    if !isExpect && !(isTransparent && error is AlreadyReported) {
      previous = CommandRecord(succeeded: false, output: output, error: description)
    }
    return failures.failed(
      interactive: frames.last?.isInteractive ?? true, isExpectation: isExpect, settings: settings)
  }

  /// Settles a failed script command that no `expect` examined; returns true to stop.
  func settlePendingFailure() -> Bool {
    failures.settle(outermost: frames.count <= 1, keepGoing: settings.keepGoing)
  }

  /// Tells the observers that the session is ending (Ctrl-D, quit, exit, a signal), so that what
  /// must not be lost is written: a recording still running is written as `record stop` would.
  public func sessionWillEnd() {
    notify { $0.sessionWillEnd(in: self) }
  }

  /// Prints `output` as a command's output is printed.
  func show(_ output: Output) { emit(output, to: observersNow) }

  /// Prints a line at once, before the command finishes: for commands that run until stopped,
  /// such as `serve`, whose output must be seen while they run.
  public func announce(_ text: String) {
    notify { $0.interpreterPrinted(text + "\n", in: self) }
    sink.standardOutput(text + "\n")
    sink.flush()
  }

  /// Shows a progress line on standard error's terminal, replacing the last one; nil clears it.
  ///
  /// Nothing is shown when standard error is not a terminal.
  public func progress(_ text: String?) {
    (sink as? ProgressSink)?.progress(text)
  }

  /// Forgets earlier failures, so that an error in the rc file does not decide the exit status of
  /// the interactive session that follows it.
  public func resetFailures() { failures.reset() }

  /// Whether a line holds a value declared secret, which keeps it out of history.
  public func lineContainsSecret(_ text: String) -> Bool {
    PreparedLine(text, registry: registry, forHistory: true).containsSecret
  }

  // MARK: - Dispatch

  /// Runs a parsed command.
  ///
  /// A Domain error it throws becomes a shell error with the shell's hint, at the word that gave
  /// its subject.
  public func perform(_ parsed: ParsedCommand) throws -> Output {
    let invocation = Invocation(session: session, parsed: parsed, context: self)
    do {
      return try parsed.resolution.command.run(invocation)
    } catch let error as ShellError {
      throw error
    } catch let error as FailureWithOutput {
      throw error
    } catch let error as ExitRequest {
      throw error
    } catch let error as AlreadyReported {
      throw error
    } catch {
      var located = Diagnosis.shellError(error, in: parsed)
      if Diagnosis.isUnauthorized(error) {
        let api = session.factory.api
        let refreshed = api.builtOAuth2Authorization?.lastUnauthorizedWasReplay ?? false
        let loggedIn = ((try? api.accountUserProvider.credential()) ?? nil) != nil
        located.hint = Diagnosis.unauthorizedHint(loggedIn: loggedIn, refreshed: refreshed)
      }
      throw located
    }
  }

  /// Publishes that a command began or ended, and after it ends tells `observers` (the board
  /// draws).
  ///
  /// The number the observers are told is the last command's: after `source`, the last that its
  /// file ran.
  private func publishCommand(
    _ phase: CommandEvent.Phase, _ line: @autoclosure () -> String, in session: Session,
    _ observers: Observers? = nil, _ output: Output = .empty, error: Error? = nil
  ) {
    let events = session.events
    if events.wants(.command), publishes {
      let line = line()
      let origin: String
      if let frame = frames.last, !frame.isInteractive {
        origin = "\(frame.scriptName):\(frame.currentLine)"
      } else {
        origin = "prompt"
      }
      events.publish(.command) {
        var text = phase == .ended && output != .empty ? plainText(output) : ""
        if let error {
          let message =
            (error as? ShellError)?.description ?? (error as? FailureWithOutput)?.error.description
            ?? String(describing: error)
          text += (text.isEmpty ? "" : "\n") + "error: " + message
        }
        // What the board and the recorder show: a secret's value never, though the terminal
        // may show it (`echo $token`).
        text = session.hidingSecrets(Redaction.scrub(text))
        return .command(
          CommandEvent(
            phase: phase, line: line, output: text, succeeded: error == nil, origin: origin))
      }
    }
    guard let observers else { return }
    let number = commandCount
    observers.notify { $0.commandDidEnd(number, in: self) }
  }

  /// Runs `parsed` inside what every observer wraps around a command (the tracer's span), the
  /// first registered outermost.
  private func observed(_ parsed: ParsedCommand, in session: Session) throws -> Output {
    let first = session.observers.wrappers
    let second = ownObservers.wrappers
    // Most lines meet one wrapper (the session's tracer), idle: it is not even called.
    if second.isEmpty {
      if first.isEmpty || (first.count == 1 && !first[0].isWrappingNow) {
        return try perform(parsed)
      }
      if first.count == 1 { return try first[0].run(parsed, in: self) { try perform(parsed) } }
    }
    func wrapped(from index: Int) throws -> Output {
      guard index < first.count + second.count else { return try perform(parsed) }
      let observer = index < first.count ? first[index] : second[index - first.count]
      return try observer.run(parsed, in: self) { try wrapped(from: index + 1) }
    }
    return try wrapped(from: 0)
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
  /// In JSON mode every command prints one document: its output alone (`{}` when it has none),
  /// or, when it was traced, `{"output": ..., "trace": [...]}`.
  ///
  /// What a command printed is written out when it ends, even to a pipe or a file, as psql does:
  /// a script's output appears as it runs, and a signal that ends archsh loses none of it.
  ///
  /// A command that `failed` has its document on standard error: under `--json` it prints no
  /// `{}` for its empty output.
  private func emit(_ output: Output, to observers: Observers, failed: Bool = false) {
    defer { sink.flush() }
    // Log lines logged on the event loops are written before the prompt returns (LogBookFlusher).
    observers.notify { $0.outputWillPrint(in: self) }
    let trees = observers.trees(in: self)
    switch session.outputMode {
    case .table:
      // `set`, `store persist` and most commands of a script print nothing.
      if output == .empty && trees.isEmpty { return }
      let width = terminalWidth()
      let renderer = TextRenderer(useColor: settings.colorOutput, maxWidth: width)
      // `echo ""` prints an empty line; only `.empty` prints nothing.
      if output != .empty { sink.standardOutput(renderer.render(output) + "\n") }
      for tree in trees { sink.standardOutput(renderer.render(tree) + "\n") }
      if observers.readPrintedText {
        // What observers are shown is what a script prints: no colour, no terminal width.
        let plain = TextRenderer(useColor: false)
        if output != .empty {
          let text = plain.render(output) + "\n"
          observers.notify { $0.interpreterPrinted(text, in: self) }
        }
        for tree in trees {
          let text = plain.render(tree) + "\n"
          observers.notify { $0.interpreterPrinted(text, in: self) }
        }
      }
    case .json:
      let renderer = JSONRenderer()
      if trees.isEmpty {
        // One document per command, as the README promises: a command with nothing to say, such
        // as `set` or `store persist`, prints an empty object, so that a program reading line by
        // line stays in step with the commands it sent.
        if output == .empty && failed { return }
        let text = (output == .empty ? "{}" : renderer.render(output)) + "\n"
        observers.notify { $0.interpreterPrinted(text, in: self) }
        sink.standardOutput(text)
        return
      }
      let document = Value.object([
        Field("output", renderer.value(of: output) ?? .null),
        Field("trace", .list(trees.compactMap { renderer.value(of: $0) })),
      ])
      var text = ""
      JSONRenderer.write(document, into: &text)
      observers.notify { $0.interpreterPrinted(text + "\n", in: self) }
      sink.standardOutput(text + "\n")
    }
  }
}

extension LineSource {
  /// The next logical line, joined across `\` continuations; nil at the end of the input, and
  /// `.some(nil)` when Ctrl-C discarded the line being typed.
  mutating func nextLogicalLine() -> LogicalLine?? {
    let first: SourceLine
    switch next(continuation: false) {
    case .end: return nil
    case .interrupted: return .some(nil)
    case .line(let line): first = line
    }
    var line = LogicalLine(first)
    while Lexer.needsContinuation(line.text) {
      switch next(continuation: true) {
      case .line(let more): line.append(more)
      case .interrupted: return .some(nil)
      case .end: return line
      }
    }
    return line
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
