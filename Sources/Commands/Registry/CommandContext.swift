import Domain

/// What a command may ask of the interpreter that runs it, and no more.
///
/// A command gets its session and its parsed line in its `Invocation`, and this context for the
/// rest: the interpreter's settings and registry, the previous command, the terminal (its width,
/// Ctrl-C, a progress line, a line printed at once), running another script or command, and the
/// one change of session a command may ask for, entering or leaving an exercise. The interpreter
/// itself (its frames, its failure policy, its observers, its loop) is out of reach.
protocol CommandContext: AnyObject {
  /// How the interpreter behaves, from the process options.
  var settings: InterpreterSettings { get }
  /// The commands the interpreter knows.
  var registry: CommandRegistry { get }
  /// What the previous command (other than `expect`) did.
  var previous: CommandRecord? { get }
  /// The exercise in progress.
  var lesson: Lesson? { get }
  /// Whether the command was typed at the prompt itself, not run by a script or `source`.
  var isTypedAtPrompt: Bool { get }
  /// Where the relative paths of the command start.
  var paths: RelativePaths { get }
  /// The width of the terminal standard output is, or nil when it is not one.
  var terminalWidth: () -> Int? { get }
  /// True when Ctrl-C was pressed.
  var interruptRequested: () -> Bool { get }
  /// The text `output` renders to in the current mode, without colour.
  func plainText(_ output: Output) -> String
  /// Shows a progress line on standard error's terminal; nil clears it.
  func progress(_ text: String?)
  /// Prints a line at once, before the command finishes.
  func announce(_ text: String)
  /// Runs the script `path` with `arguments`, as `source` does.
  func source(_ path: Word, arguments: [String]) throws -> Output
  /// Runs `parsed`, as the interpreter runs a line's command (`time` runs its command so).
  func perform(_ parsed: ParsedCommand) throws -> Output
  /// Starts `lesson`: commands run in its session from the next line on (`learn start`).
  func startLesson(_ lesson: Lesson)
  /// Leaves the exercise: commands run in the learner's own session again (`learn stop`).
  func endLesson()
}

extension Interpreter: CommandContext {
  var isTypedAtPrompt: Bool { frames.count == 1 && frames[0].isInteractive }
}
