import Foundation

/// Runs a walkthrough one step at a time for a presenter (`archsh --step`): a step runs live, and
/// going back rebuilds the state before a step in a fresh in-memory workspace by replaying the
/// steps that ran before it, quietly.
///
/// The terminal (keys, the narration on screen) is the caller's; this keeps the session, which steps
/// have run, and what the board shows.
public final class StepRunner {
  /// The walkthrough.
  public let script: WalkthroughScript
  /// Its file, which errors name.
  public let path: String
  /// The session the next step runs in; replaced when the state is rebuilt.
  public private(set) var session: Session
  /// The interpreter over `session`.
  public private(set) var interpreter: Interpreter
  /// The step shown next, from 0; `script.steps.count` at the end.
  public private(set) var current = 0
  /// Whether each step ran in the current state (a skipped step did not).
  public private(set) var ran: [Bool]

  private let options: SessionOptions
  private let settings: InterpreterSettings
  private let sink: OutputSink
  private let configure: (Session, Interpreter) -> Void

  /// Commands a quiet replay leaves out, and why.
  static let notReplayed: [String: String] = [
    "serve": "it runs until Ctrl-C", "board": "the board stays as it is",
    "record": "a recording is not replayed", "exit": "it would end the demo",
    "quit": "it would end the demo",
  ]

  /// Creates a runner over `script`; `configure` is called on every session and interpreter it
  /// makes (the first, and each one a rebuild makes), to connect Ctrl-C and the terminal's width.
  public init(
    script: WalkthroughScript, path: String, options: SessionOptions,
    settings: InterpreterSettings, sink: OutputSink,
    configure: @escaping (Session, Interpreter) -> Void = { _, _ in }
  ) {
    self.script = script
    self.path = path
    self.options = options
    self.settings = settings
    self.sink = sink
    self.configure = configure
    ran = Array(repeating: false, count: script.steps.count)
    (session, interpreter) = Self.make(options, settings, sink)
    configure(session, interpreter)
  }

  private static func make(
    _ options: SessionOptions, _ settings: InterpreterSettings, _ sink: OutputSink
  ) -> (Session, Interpreter) {
    let session = Session(options: options)
    return (session, Interpreter(session: session, sink: sink, settings: settings))
  }

  private var directory: String {
    let folder = (path as NSString).deletingLastPathComponent
    return folder.isEmpty ? "." : folder
  }

  /// The step shown next, or nil at the end.
  public var step: WalkthroughScript.Step? {
    current < script.steps.count ? script.steps[current] : nil
  }

  /// How many steps failed when they ran live.
  public private(set) var failedSteps = 0

  /// Runs the current step live and moves to the next: `.finished` when it succeeded, `.stopped`
  /// when it failed (its error was printed), `.exit` when it asked to end archsh.
  @discardableResult
  public func runCurrent() -> RunOutcome {
    guard let step else { return .finished }
    let outcome = run(step, in: interpreter)
    if outcome != .finished { failedSteps += 1 }
    ran[current] = true
    current += 1
    return outcome
  }

  /// Skips the current step without running it.
  public func skipCurrent() {
    guard current < script.steps.count else { return }
    ran[current] = false
    current += 1
  }

  /// What a rebuild or a quiet run could not replay, one sentence each.
  public typealias Notes = [String]

  /// Goes back one step: the state becomes what it was before the previous step, rebuilt in a
  /// fresh in-memory workspace by replaying, quietly, the steps before it that had run.
  public func back() -> Notes {
    guard current > 0 else { return [] }
    return rebuild(upTo: current - 1)
  }

  /// Runs the rest of this chapter quietly and stops at the first step of the next one; nil when
  /// there is no next chapter.
  ///
  /// `progress` hears of each step before it runs, so that a long one (a `sleep 5s`) shows which
  /// step is replaying instead of looking like a hang.
  public func jumpToNextChapter(
    progress: (WalkthroughScript.Step) -> Void = { _ in }
  ) -> Notes? {
    let chapter = step?.chapter ?? -1
    guard
      let next = script.steps.indices.first(where: {
        $0 >= current && (script.steps[$0].chapter ?? -1) > chapter
      })
    else { return nil }
    return runQuietly(until: next, progress: progress)
  }

  /// Runs every step before `chapter`'s first quietly, for `--from`.
  public func start(atChapter chapter: Int) -> Notes {
    guard let first = script.firstStep(ofChapter: chapter) else { return [] }
    return runQuietly(until: first)
  }

  private func runQuietly(
    until target: Int, progress: (WalkthroughScript.Step) -> Void = { _ in }
  ) -> Notes {
    var notes: Notes = []
    let quiet = Interpreter(session: session, sink: TranscriptSink(), settings: settings)
    while current < target {
      progress(script.steps[current])
      if let note = replay(script.steps[current], in: quiet) { notes.append(note) }
      ran[current] = true
      current += 1
    }
    return notes
  }

  /// Makes a fresh session and replays, quietly, the steps before `target` that had run.
  public func rebuild(upTo target: Int) -> Notes {
    let (fresh, live) = Self.make(options, settings, sink)
    configure(fresh, live)
    // Secrets typed earlier are answered from memory, so the replay never asks again.
    let secrets = session.variables.filter(\.value.isSecret).mapValues(\.value)
    fresh.secretAnswers = secrets
    let quiet = Interpreter(session: fresh, sink: TranscriptSink(), settings: settings)
    var notes: Notes = []
    for index in 0..<target where ran[index] {
      if let note = replay(script.steps[index], in: quiet) { notes.append(note) }
    }
    for index in target..<ran.count { ran[index] = false }
    fresh.secretAnswers = nil
    session.handBoard(to: fresh)
    session.factory.shutdown()
    // The commands the board has seen keep their numbers; the next one follows them.
    live.commandCount = interpreter.commandCount
    session = fresh
    interpreter = live
    current = target
    return notes
  }

  /// Replays one step quietly; returns why it could not be replayed, if it could not.
  private func replay(_ step: WalkthroughScript.Step, in quiet: Interpreter) -> String? {
    let first = step.lines[0].text.trimmingCharacters(in: .whitespaces)
    let head = String(first.prefix { !$0.isWhitespace && $0 != ";" })
    if let reason = Self.notReplayed[head] {
      return "step \(step.number) ('\(first)') was not replayed: \(reason)"
    }
    let before = (quiet.sink as? TranscriptSink)?.text.count ?? 0
    guard run(step, in: quiet) == .finished else {
      let text = (quiet.sink as? TranscriptSink)?.text ?? ""
      let error =
        text.dropFirst(before).split(separator: "\n").last { $0.contains("error:") }
        .map(String.init) ?? "it failed"
      return "step \(step.number) ('\(first)') failed on replay: \(error)"
    }
    return nil
  }

  private func run(_ step: WalkthroughScript.Step, in interpreter: Interpreter) -> RunOutcome {
    var source = StepLineSource(lines: step.lines)
    let outcome = interpreter.run(&source, name: path, directory: directory, interactive: false)
    // Each step is a script of its own: a failure is counted here, not carried to the next one.
    interpreter.resetFailures()
    return outcome
  }
}

/// The lines of one step, with their numbers in the file.
struct StepLineSource: LineSource {
  let lines: [SourceLine]
  var index = 0

  mutating func next(continuation: Bool) -> LineEvent {
    guard index < lines.count else { return .end }
    index += 1
    return .line(lines[index - 1])
  }
}
