import Domain

/// What watches the interpreter run lines: the board, the session recorder, the exercise in
/// progress, the log book and the tracer.
///
/// The interpreter runs lines and nothing else: at fixed points of its loop it tells its
/// observers, first its session's (the log book's flusher, the tracer, and the board and the
/// recorder while they are open, which a session hands on with itself), then its own (the
/// exercise in progress), each list in the order they registered. It knows none of them by name.
/// Every call has a default that does nothing, so an observer implements only what it watches.
protocol InterpreterObserver: AnyObject {
  /// Nothing is waiting to run: the prompt is about to show, or a run at the top level ended.
  func interpreterIsIdle(_ interpreter: Interpreter)
  /// A line read at the top level (the prompt, or the script archsh was given) is about to run;
  /// `interactive` when it was typed at the prompt.
  func lineWillRun(
    _ line: LogicalLine, prepared: PreparedLine, interactive: Bool, in interpreter: Interpreter)
  /// That line ran; `interrupted` when Ctrl-C was pressed while it ran.
  func lineDidRun(
    _ line: LogicalLine, interactive: Bool, interrupted: Bool, in interpreter: Interpreter)
  /// Runs a parsed command: `body` runs it. An observer that wraps it (the tracer's span) calls
  /// `body` inside what it wraps, and returns what `body` returned.
  func run(
    _ command: ParsedCommand, in interpreter: Interpreter, _ body: () throws -> Output
  ) throws -> Output
  /// Command number `number` ended, and its events were published.
  func commandDidEnd(_ number: Int, in interpreter: Interpreter)
  /// A command's output is about to be printed.
  func outputWillPrint(in interpreter: Interpreter)
  /// The trees to print after a command's output: the spans that ended while it ran. In JSON mode
  /// they are the document's `trace`.
  func trees(in interpreter: Interpreter) -> [Output]
  /// The interpreter printed `text` on standard output, without colour or terminal width, as a
  /// script prints it.
  func interpreterPrinted(_ text: String, in interpreter: Interpreter)
  /// Whether this observer reads what is printed: the interpreter renders a command's output a
  /// second time, without colour, only when one does.
  var readsPrintedText: Bool { get }
  /// Whether this observer wraps commands (`run`) or adds trees (`trees`): the interpreter asks
  /// only those, so that a command costs nothing more for the observers that do neither.
  var wrapsCommands: Bool { get }
  /// Whether it wraps the next command (the tracer: while spans are built); asked before each
  /// command, so that one that would only run `body` is skipped.
  var isWrappingNow: Bool { get }
  /// Whether this observer is told of lines, commands and output (every call but `run` and
  /// `trees`); one that only wraps commands says no, and costs a line nothing more.
  var observesLines: Bool { get }
  /// Whether this observer is told before and after each line runs (`lineWillRun`,
  /// `lineDidRun`): the recorder and an exercise; the others are not asked, and a line costs
  /// nothing more for them.
  var watchesLineRuns: Bool { get }
  /// The session is ending (Ctrl-D, quit, exit, a signal): what must not be lost is written.
  func sessionWillEnd(in interpreter: Interpreter)
}

extension InterpreterObserver {
  func interpreterIsIdle(_ interpreter: Interpreter) {}
  func lineWillRun(
    _ line: LogicalLine, prepared: PreparedLine, interactive: Bool, in interpreter: Interpreter
  ) {}
  func lineDidRun(
    _ line: LogicalLine, interactive: Bool, interrupted: Bool, in interpreter: Interpreter
  ) {}
  func run(
    _ command: ParsedCommand, in interpreter: Interpreter, _ body: () throws -> Output
  ) throws -> Output { try body() }
  func commandDidEnd(_ number: Int, in interpreter: Interpreter) {}
  func outputWillPrint(in interpreter: Interpreter) {}
  func trees(in interpreter: Interpreter) -> [Output] { [] }
  func interpreterPrinted(_ text: String, in interpreter: Interpreter) {}
  var readsPrintedText: Bool { false }
  var wrapsCommands: Bool { false }
  var isWrappingNow: Bool { wrapsCommands }
  var observesLines: Bool { true }
  var watchesLineRuns: Bool { false }
  func sessionWillEnd(in interpreter: Interpreter) {}
}

/// The board draws when the shell waits for its next line, and after commands end; an
/// exercise's quiet check (`publishes` false) shows it nothing.
extension Board: InterpreterObserver {
  func interpreterIsIdle(_ interpreter: Interpreter) {
    if interpreter.publishes { settle(interpreter.session) }
  }

  func commandDidEnd(_ number: Int, in interpreter: Interpreter) {
    if interpreter.publishes { commandEnded(interpreter.session, command: number) }
  }
}

/// `record start` keeps what is typed at the prompt, with what it printed.
extension SessionRecorder: InterpreterObserver {
  func lineWillRun(
    _ line: LogicalLine, prepared: PreparedLine, interactive: Bool, in interpreter: Interpreter
  ) {
    if interactive { begin(line, prepared: prepared, registry: interpreter.registry) }
  }

  func lineDidRun(
    _ line: LogicalLine, interactive: Bool, interrupted: Bool, in interpreter: Interpreter
  ) {
    if interactive { end(interrupted: interrupted) }
  }

  func interpreterPrinted(_ text: String, in interpreter: Interpreter) { output(text) }
  var readsPrintedText: Bool { true }
  var watchesLineRuns: Bool { true }

  /// Leaving never throws a recording away: it is written as `record stop` writes it, and the
  /// user is told.
  func sessionWillEnd(in interpreter: Interpreter) {
    guard interpreter.session.recorder === self else { return }
    interpreter.sink.standardError(
      "archsh: a recording was running: it is written as 'record stop' writes it\n")
    do {
      interpreter.show(try RecordGroup.finish(interpreter.session, settings: interpreter.settings))
    } catch {
      interpreter.sink.standardError(
        "archsh: error: the recording could not be written: \(error)\n")
    }
  }
}

/// After each line the learner runs, the exercise checks its rules and its goal.
extension Lesson: InterpreterObserver {
  func lineDidRun(
    _ line: LogicalLine, interactive: Bool, interrupted: Bool, in interpreter: Interpreter
  ) {
    guard interpreter.lesson === self, !Interpreter.skipsGoalCheck(line.text) else { return }
    interpreter.afterLessonLine(line.text)
  }

  var watchesLineRuns: Bool { true }
}

/// Writes the Logger's lines kept in its session's log book before a command's output.
///
/// At the prompt they are written at once, in a script in batches (`LogBook.flushIfDue`). Each
/// session registers one. The book, once the session's factory has built it, stays the factory's (singletons are never
/// discarded): it is asked for only until then.
final class LogBookFlusher: InterpreterObserver {
  private var logBook: LogBook?

  func outputWillPrint(in interpreter: Interpreter) {
    if logBook == nil { logBook = interpreter.session.factory.builtLogBook }
    guard let logBook else { return }
    if interpreter.readsFromPrompt {
      try? logBook.flush()
    } else {
      try? logBook.flushIfDue()
    }
  }
}

/// Wraps each command in a span while anyone reads spans: `trace on`, or the board.
///
/// The trees of the spans that ended are printed after the command's output. Each session
/// registers one.
final class CommandTracer: InterpreterObserver {
  private let tracer: Tracer

  /// The tracer of the session that registers it.
  init(tracer: Tracer) { self.tracer = tracer }

  var wrapsCommands: Bool { true }
  var isWrappingNow: Bool { tracer.isEnabled }
  var observesLines: Bool { false }

  func run(
    _ command: ParsedCommand, in interpreter: Interpreter, _ body: () throws -> Output
  ) throws -> Output {
    guard tracer.isEnabled else { return try body() }
    return try tracer.withSpan("archsh", command.traceLabel) { _ in try body() }
  }

  /// Asked after every command, even once spans are no longer built: a span that work on another
  /// thread ended before `trace off` is printed after `trace off`'s output, as it was.
  func trees(in interpreter: Interpreter) -> [Output] {
    let completed = tracer.drainCompleted()
    guard !completed.isEmpty else { return [] }
    return completed.filter { !$0.children.isEmpty || !$0.events.isEmpty }
      .map { .tree(TraceRendering.tree($0)) }
  }
}

/// Observers in the order they registered, each once.
struct ObserverList {
  /// Those told of lines, commands and output.
  private(set) var all: [any InterpreterObserver] = []
  /// Those that wrap commands or add trees, in the same order.
  private(set) var wrappers: [any InterpreterObserver] = []
  /// Whether one of `all` is told before and after each line.
  private(set) var watchesLineRuns = false

  /// Whether one of them reads what is printed.
  private(set) var readPrintedText = false

  /// Adds `observer`, unless it is there already.
  mutating func add(_ observer: any InterpreterObserver) {
    guard !all.contains(where: { $0 === observer }), !wrappers.contains(where: { $0 === observer })
    else { return }
    if observer.observesLines { all.append(observer) }
    if observer.wrapsCommands { wrappers.append(observer) }
    readPrintedText = all.contains { $0.readsPrintedText }
    watchesLineRuns = all.contains { $0.watchesLineRuns }
  }

  /// Removes `observer`.
  mutating func remove(_ observer: any InterpreterObserver) {
    all.removeAll { $0 === observer }
    wrappers.removeAll { $0 === observer }
    readPrintedText = all.contains { $0.readsPrintedText }
    watchesLineRuns = all.contains { $0.watchesLineRuns }
  }
}

/// A session's observers and an interpreter's own, read once for a command.
struct Observers {
  /// The session's, told first.
  let first: ObserverList
  /// The interpreter's own (an exercise in progress).
  let second: ObserverList

  /// Tells every observer, the session's first.
  func notify(_ call: (any InterpreterObserver) -> Void) {
    for observer in first.all { call(observer) }
    for observer in second.all { call(observer) }
  }

  /// The trees every observer adds after a command's output.
  func trees(in interpreter: Interpreter) -> [Output] {
    var trees: [Output] = []
    // Most commands have none: no array is made for them.
    for observer in first.wrappers {
      let added = observer.trees(in: interpreter)
      if !added.isEmpty { trees += added }
    }
    for observer in second.wrappers {
      let added = observer.trees(in: interpreter)
      if !added.isEmpty { trees += added }
    }
    return trees
  }

  /// Whether one of them reads what is printed.
  var readPrintedText: Bool { first.readPrintedText || second.readPrintedText }
}
