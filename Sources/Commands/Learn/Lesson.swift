import Domain
import Foundation
import Runtime

/// An exercise in progress: its own in-memory session, what the learner has done, and whether
/// the goal is met.
///
/// The interpreter runs the learner's commands in `session` while the lesson lasts, and calls
/// `afterLessonLine` after each line; `learn stop` takes it back to `home`.
final class Lesson {
  /// The exercise.
  let exercise: Exercise
  /// The session the learner came from, whose workspace keeps the progress.
  let home: Session
  /// The exercise's session, in a fresh in-memory workspace.
  let session: Session
  /// Lines typed while the exercise ran, over every start.
  var tries: Int
  /// Hints shown, over every start.
  var hintsShown: Int
  /// Whether the goal is met now.
  var isMet = false
  /// Whether the learner was told, once, where to find help.
  var offeredHelp = false
  /// Lines typed in this attempt (since `learn start` or `learn reset`).
  var attemptLines = 0
  /// The line of this attempt that met the goal.
  var metAfter: Int?
  /// The exercise's rule this attempt broke, in words: then the goal is not met by it.
  var broken: String?

  private init(exercise: Exercise, home: Session, session: Session, tries: Int, hints: Int) {
    self.exercise = exercise
    self.home = home
    self.session = session
    self.tries = tries
    self.hintsShown = hints
  }

  /// Builds the exercise's state in a fresh in-memory session, by playing its setup.
  static func prepare(
    _ exercise: Exercise, home: Session, tries: Int = 0, hints: Int = 0
  ) throws(ShellError) -> Lesson {
    let session = fresh(like: home)
    let setup = play(exercise.setup, of: exercise, in: session)
    guard setup.succeeded else {
      session.factory.shutdown()
      throw ShellError(
        "the setup of '\(exercise.name)' failed: \(setup.error ?? "an error")",
        hint: "this is a fault in the exercise file \(exercise.path)")
    }
    return Lesson(exercise: exercise, home: home, session: session, tries: tries, hints: hints)
  }

  /// A session over a fresh in-memory workspace, talking to the same API as `home`.
  static func fresh(like home: Session) -> Session {
    let session = Session(
      options: SessionOptions(databasePath: ":memory:", apiURL: home.options.apiURL))
    session.outputMode = home.outputMode
    session.interruptCheck = home.interruptCheck
    return session
  }

  /// What playing some of an exercise's lines did.
  struct Played {
    /// Whether every command succeeded and every `expect` held.
    var succeeded: Bool
    /// The first error, as printed.
    var error: String?
  }

  /// Plays `lines` in `session` quietly, in table mode, with the board (if any) not told.
  static func play(_ lines: [SourceLine], of exercise: Exercise, in session: Session) -> Played {
    let sink = TranscriptSink()
    let quiet = Interpreter(session: session, sink: sink)
    quiet.publishes = false
    let mode = session.outputMode
    session.outputMode = .table
    defer { session.outputMode = mode }
    var outcome = RunOutcome.finished
    let folder = (exercise.path as NSString).deletingLastPathComponent
    let run = {
      var source = StepLineSource(lines: lines)
      outcome = quiet.run(
        &source, name: exercise.path, directory: folder.isEmpty ? "." : folder, interactive: false)
    }
    if let board = session.board { board.muted(run) } else { run() }
    let succeeded = outcome == .finished && !quiet.hadFailure
    // The first error as printed: `file:line:col: error: message (hint)`.
    let error = sink.text.split(separator: "\n").first { $0.contains("error:") }.map(String.init)
    return Played(succeeded: succeeded, error: succeeded ? nil : error)
  }

  /// Whether the state now is the one the exercise's `## never` section rules out.
  func passesThroughNever() -> Bool {
    !exercise.never.isEmpty && Self.play(exercise.never, of: exercise, in: session).succeeded
  }

  /// Runs the check; true when the goal is met.
  func goalIsMet() -> Bool {
    Self.play(exercise.check, of: exercise, in: session).succeeded
  }

  /// Records the progress in the home workspace; a workspace that cannot be written keeps none.
  func saveProgress() {
    guard let workspace = try? home.factory.workspace else { return }
    try? LearnerProgress(workspace: workspace).save(
      LearnerProgress.Entry(
        exercise: exercise.name, tries: tries, hints: hintsShown, met: isMet))
  }

  /// The progress kept in `home`'s workspace, by exercise; none when it cannot be read.
  static func progress(in home: Session) -> [String: LearnerProgress.Entry] {
    guard let workspace = try? home.factory.workspace else { return [:] }
    return (try? LearnerProgress(workspace: workspace).all()) ?? [:]
  }

  /// What the board shows of the lesson.
  var goalView: Board.GoalView {
    Board.GoalView(
      name: exercise.name, title: exercise.title, seed: exercise.seed.label, goal: exercise.goal,
      met: isMet,
      hints: Array(exercise.hints.prefix(hintsShown)), state: isMet ? "met" : "working")
  }
}

/// Wraps each line of `text` at word boundaries to `width` columns, continuing an indented line
/// two columns further in; with no width (not a terminal: a pipe, a file, a transcript), the text
/// is left as it is, so what a script prints never depends on a window.
func wrappedForTerminal(_ text: String, width: Int?) -> String {
  guard let width, width > 20 else { return text }
  var out: [String] = []
  for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
    guard line.count > width else {
      out.append(String(line))
      continue
    }
    let indent = String(line.prefix { $0 == " " })
    var current = indent
    var hasWord = false
    for word in line.dropFirst(indent.count).split(separator: " ") {
      if hasWord, current.count + 1 + word.count > width {
        out.append(current)
        current = indent + "  " + word
      } else {
        current += (hasWord ? " " : "") + word
      }
      hasWord = true
    }
    out.append(current)
  }
  return out.joined(separator: "\n")
}

extension Interpreter {
  /// Whether a line is one after which the goal is not checked: a `learn` command, an `expect`
  /// (in a script), or no command at all.
  static func skipsGoalCheck(_ text: String) -> Bool {
    let head = text.drop { $0 == " " || $0 == "\t" }.prefix { !$0.isWhitespace && $0 != ";" }
    return head == "learn" || head == "expect" || head.isEmpty || head.hasPrefix("#")
  }

  /// Starts `lesson`: its session becomes the one commands run in, and the board follows it.
  ///
  /// An exercise already running is left first; its in-memory workspace is dropped.
  func startLesson(_ lesson: Lesson) {
    let previous = self.lesson
    session.handBoard(to: lesson.session)
    session = lesson.session
    if let previous { unregister(previous) }
    self.lesson = lesson
    register(lesson)
    previous?.session.factory.shutdown()
    lesson.session.board?.show(lesson.goalView)
  }

  /// Leaves the exercise: commands run in the learner's own session again.
  func endLesson() {
    guard let lesson else { return }
    if let board = lesson.session.board {
      var view = lesson.goalView
      view.state = "ended"
      board.show(view)
    }
    lesson.session.handBoard(to: lesson.home)
    session = lesson.home
    unregister(lesson)
    self.lesson = nil
    lesson.session.factory.shutdown()
  }

  /// After a line the learner typed: checks the exercise's rule and the goal, and says when the
  /// goal is met, or no longer met, or the rule was broken.
  func afterLessonLine(_ text: String) {
    guard let lesson else { return }
    lesson.tries += 1
    lesson.attemptLines += 1
    let wasMet = lesson.isMet
    var lines: [String] = []
    if lesson.broken == nil, let rule = lesson.exercise.brokenRule(by: text) {
      lesson.broken = rule
      lines.append(
        "✗ \(rule): this attempt no longer counts for the goal ('learn reset' starts it again)")
    }
    if lesson.broken == nil, lesson.passesThroughNever() {
      lesson.broken = lesson.exercise.neverRule
      lines.append(
        "✗ \(lesson.exercise.neverRule): this attempt no longer counts for the goal ('learn reset' starts it again)"
      )
    }
    lesson.isMet = lesson.broken == nil && lesson.goalIsMet()
    if lesson.isMet, !wasMet { lesson.metAfter = lesson.attemptLines }
    if !lesson.isMet { lesson.metAfter = nil }
    lesson.saveProgress()
    if lesson.isMet && !wasMet {
      lines.append("✓ goal met: \(lesson.exercise.goal)")
      if let why = lesson.exercise.why { lines.append("  why: \(why)") }
      lines.append(
        "  'learn next' starts the next exercise, 'learn solution' shows archsh's, 'learn stop' leaves"
      )
    } else if wasMet && !lesson.isMet {
      lines.append("✗ the goal is no longer met: \(lesson.exercise.goal)")
    } else if !lesson.isMet, lesson.tries >= 5, !lesson.offeredHelp,
      lesson.hintsShown < lesson.exercise.hints.count
    {
      lesson.offeredHelp = true
      lines.append(
        "(the goal is not met yet: 'learn hint' gives a hint, 'learn goal' shows the goal again)")
    }
    if lesson.isMet != wasMet { lesson.session.board?.show(lesson.goalView) }
    guard !lines.isEmpty else { return }
    let text = wrappedForTerminal(lines.joined(separator: "\n"), width: terminalWidth()) + "\n"
    // Under `output json` every command prints one document on standard output: the note goes to
    // standard error, where it breaks no reader.
    if session.outputMode == .json {
      sink.standardError(lines.map { "archsh: \($0)" }.joined(separator: "\n") + "\n")
    } else {
      sink.standardOutput(text)
    }
    sink.flush()
  }
}
