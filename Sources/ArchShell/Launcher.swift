import ArgumentParser
@preconcurrency import CEdit
import Commands
import Foundation

/// Starts archsh: parses the options, then runs -c lines and -f scripts in order, a command given
/// as words, standard input as a script, or the interactive shell.
public enum Launcher {
  /// Runs archsh with the process arguments and exits with its status.
  public static func main() {
    // Only the character type, which libedit needs to read and draw UTF-8: the other categories
    // would change nothing archsh prints (it formats numbers and dates itself), and loading each
    // from the locale files cost start-up about a dozen files.
    setlocale(LC_CTYPE, "")
    let arguments = Array(CommandLine.arguments.dropFirst())
    let status = run(parse(arguments))
    StandardStreams.flush()
    exit(status)
  }

  /// The launch options: the fast scanner for common forms, ArgumentParser for the rest.
  ///
  /// Exits for --help, --version (status 0) and usage errors (status 2).
  static func parse(_ arguments: [String]) -> LaunchOptions {
    if let options = LaunchOptions.scan(arguments) { return options }
    // ArgumentParser answers --version the same way, after building its model of every option.
    if arguments == ["--version"] {
      StandardStreams.write(Options.versionLine + "\n", to: 1)
      exit(0)
    }
    do {
      return LaunchOptions(try Options.parse(arguments), arguments: arguments)
    } catch {
      if Options.exitCode(for: error) == .success {
        StandardStreams.write(Options.fullMessage(for: error) + "\n", to: 1)
        exit(0)
      }
      var message = Options.message(for: error)
      if message.hasPrefix("Error: ") { message.removeFirst(7) }
      var firstLine = message.split(separator: "\n").first.map(String.init) ?? message
      if let first = firstLine.first, first.isUppercase {
        firstLine = first.lowercased() + firstLine.dropFirst()
      }
      let hint = firstLine.hasSuffix(")") ? "" : " (see 'archsh --help')"
      StandardStreams.write("archsh: error: \(firstLine)\(hint)\n", to: 2)
      exit(2)
    }
  }

  /// The workspace: --db, else $ARCHSH_DB, else $XDG_DATA_HOME/archsh/workspace.sqlite, else
  /// ~/.local/share/archsh/workspace.sqlite; nil when none of them can be known.
  ///
  /// A walkthrough only watched (`--tour NAME` without `--db`) runs in memory, as `--check` and
  /// `--step` do: the user's workspace is never touched by it.
  static func databasePath(_ options: LaunchOptions) -> String? {
    if let path = options.database { return path }
    if options.tour != nil { return ":memory:" }
    if let path = variable("ARCHSH_DB") { return path }
    guard let data = variable("XDG_DATA_HOME") ?? variable("HOME").map({ $0 + "/.local/share" })
    else { return nil }
    return data + "/archsh/workspace.sqlite"
  }

  /// Why the workspace cannot be opened where it was asked for, before anything is created:
  /// a path given with --db or $ARCHSH_DB must be in a folder that exists (a typo would
  /// otherwise make folders and an empty workspace, which looks like lost data); only the
  /// default location's folders are made.
  static func workspaceProblem(_ options: LaunchOptions) -> String? {
    let given = options.database ?? variable("ARCHSH_DB")
    guard let path = databasePath(options) else {
      return "neither HOME nor XDG_DATA_HOME is set, so archsh has no default workspace "
        + "(give one with --db PATH, or --db :memory:)"
    }
    guard let given, given == path, given != ":memory:", !given.isEmpty else { return nil }
    let folder = (given as NSString).deletingLastPathComponent
    var isDirectory: ObjCBool = false
    guard !folder.isEmpty,
      !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory)
        || !isDirectory.boolValue
    else { return nil }
    let from = options.database == nil ? "$ARCHSH_DB" : "--db"
    return "the folder '\(folder)' of the workspace given to \(from) does not exist "
      + "(create it first; archsh creates only its default location's folders)"
  }

  static func run(_ options: LaunchOptions) -> Int32 {
    var options = options
    if let problem = workspaceProblem(options) {
      StandardStreams.write("archsh: error: \(problem)\n", to: 2)
      return 2
    }
    if let cacert = options.cacert ?? variable("ARCHSH_CACERT") {
      guard FileManager.default.isReadableFile(atPath: cacert) else {
        StandardStreams.write(
          "archsh: error: cannot read the CA file '\(cacert)' given to --cacert (a PEM file of certificates)\n",
          to: 2)
        return 2
      }
      Session.trustCertificates(inFile: cacert)
    }
    if let api = options.api ?? variable("ARCHSH_API") {
      if let problem = Session.problem(withAPI: api) {
        let from = options.api == nil ? "ARCHSH_API" : "--api"
        StandardStreams.write(
          "archsh: error: \(problem) (given to \(from); for example https://api.example.com or http://127.0.0.1:8080)\n",
          to: 2)
        return 2
      }
    }
    Session.sendNetworkWarnings { StandardStreams.write("archsh: warning: \($0)\n", to: 2) }
    guard addCourses(options) else { return 2 }
    if let tour = options.tour {
      do {
        options.actions.append(.file(try Walkthroughs.path(of: tour)))
      } catch {
        StandardStreams.write("archsh: error: \(error) (see 'archsh help walkthroughs')\n", to: 2)
        return 2
      }
    }
    if options.check { return check(options) }
    if options.step {
      let files = options.actions.compactMap { if case .file(let path) = $0 { path } else { nil } }
      guard files.count == 1, files.count == options.actions.count else {
        StandardStreams.write(
          "archsh: error: --step presents one script: give it with -f FILE or --tour NAME, without -c\n",
          to: 2)
        return 2
      }
      return StepMode.run(path: files[0], options: options)
    }
    let session = Session(
      options: SessionOptions(
        databasePath: databasePath(options) ?? ":memory:",
        apiURL: options.api ?? variable("ARCHSH_API")))
    if options.json { session.outputMode = .json }
    var settings = InterpreterSettings()
    settings.keepGoing = options.keepGoing
    settings.echo = options.echo
    settings.atomic = options.atomic
    settings.colorOutput = StandardStreams.allowsColor(1)
    settings.colorErrors = StandardStreams.allowsColor(2)
    let interpreter = Interpreter(session: session, sink: StandardStreams(), settings: settings)
    interpreter.terminalWidth = TerminalWidth.ofStandardOutput

    // Whatever ends the run (the end of a script, Ctrl-D, quit, exit N, SIGTERM, SIGHUP, Ctrl-C
    // in a script), the output is written and the workspace closed: its write-ahead log is folded
    // back into the file.
    defer {
      StandardStreams.flush()
      // What is written on the way out (the log's last lines, the folded log) is not stopped by
      // the signal that ended the run.
      Session.letStatementsFinish()
      session.finishBackgroundWork()
      session.factory.shutdown()
    }
    archsh_install_signal_handlers()
    interpreter.interruptRequested = { archshInterruptPending() }
    session.interruptCheck = { archshInterruptPending() }
    if options.board {
      var source = ArrayLineSource(["board open"])
      guard case .finished = interpreter.run(&source, name: "--board", interactive: false),
        !interpreter.hadFailure
      else { return 1 }
    }
    var status = runChosen(session, interpreter, options)
    // A script that a signal stopped ends as the signal would have ended it.
    let interactive = options.actions.isEmpty && options.words.isEmpty && isatty(0) != 0
    if let signal = endingSignal(interactive: interactive) {
      status = 128 + signal
    }
    // A script's board stays up for the room until the presenter is done with it.
    if options.board, isatty(0) != 0, !options.actions.isEmpty || !options.words.isEmpty {
      StandardStreams.write(
        "the script has ended; the board stays open: press Enter to close it\n", to: 1)
      _ = readLine()
    }
    return status
  }

  /// Adds the courses of ARCHSH_COURSES, then of each --course, and their commands.
  ///
  /// Returns false when a --course folder is no course (a usage error). A folder ARCHSH_COURSES names that is no
  /// course is warned about and skipped, so that a stale variable does not stop every run.
  static func addCourses(_ options: LaunchOptions) -> Bool {
    for folder in Courses.fromEnvironment {
      do {
        try Courses.add(folder)
      } catch {
        StandardStreams.write(
          "archsh: warning: ARCHSH_COURSES: \(ShellError(error.message).shown); it is skipped\n",
          to: 2)
      }
    }
    for folder in options.courses {
      do {
        try Courses.add(folder)
      } catch {
        StandardStreams.write("archsh: error: --course: \(error.shown)\n", to: 2)
        return false
      }
    }
    guard !Courses.teachers.isEmpty else { return true }
    // A course's folder and file names are outside text: printed as the error printer prints.
    for problem in AllGroups.addCourseCommands() {
      StandardStreams.write("archsh: warning: \(ShellError(problem).shown)\n", to: 2)
    }
    return true
  }

  /// `--check` and `--accept`: runs each walkthrough given (`-f`, `--tour`, or the words) and
  /// compares it with its transcript; the status is 1 when any differs or fails.
  static func check(_ options: LaunchOptions) -> Int32 {
    var paths: [String] = []
    for action in options.actions {
      guard case .file(let path) = action else {
        StandardStreams.write(
          "archsh: error: --check runs walkthrough files, not -c lines (give FILE.ash)\n", to: 2)
        return 2
      }
      paths.append(path)
    }
    if !options.hasScript { paths += options.words }
    guard !paths.isEmpty else {
      StandardStreams.write(
        "archsh: error: --check needs the walkthroughs to check: 'archsh --check tour.ash' (see 'archsh --help')\n",
        to: 2)
      return 2
    }
    var status: Int32 = 0
    for path in paths {
      let result = WalkthroughReplay.check(
        path: path, accept: options.accept, apiURL: options.api ?? variable("ARCHSH_API"))
      if result.scriptError != nil {
        StandardStreams.write(result.report, to: 2)
        status = 2
        continue
      }
      StandardStreams.write(result.report, to: 1)
      if options.accept ? result.status != 0 || result.unreadable != nil : !result.passed {
        status = max(status, 1)
      }
    }
    return status
  }

  static func runChosen(_ session: Session, _ interpreter: Interpreter, _ options: LaunchOptions)
    -> Int32
  {
    if options.atomic {
      guard !options.actions.isEmpty || !options.words.isEmpty || isatty(0) == 0 else {
        StandardStreams.write(
          "archsh: error: --atomic applies to scripts, not to the interactive shell (use -f FILE)\n",
          to: 2)
        return 2
      }
      return atomically(session, interpreter) { runScripts(interpreter, options) }
    }
    return runScripts(interpreter, options)
  }

  /// Runs `body` inside one transaction: committed when it returns 0, rolled back otherwise.
  static func atomically(_ session: Session, _ interpreter: Interpreter, _ body: () -> Int32)
    -> Int32
  {
    do {
      try session.factory.workspace.beginAtomic()
    } catch {
      let report = ShellError(describing: error, command: "--atomic")
      StandardStreams.write("archsh: error: \(report)\n", to: 2)
      return 1
    }
    let status = body()
    // Whatever ended the run unsuccessfully (a failure no `expect` examined, exit N, an
    // unreadable script) was reported already; this says what became of the transaction.
    if status != 0 {
      StandardStreams.write(
        "archsh: the run ended with status \(status); rolled back: nothing this run did was saved (--atomic)\n",
        to: 2)
    }
    do {
      try session.factory.workspace.endAtomic(commit: status == 0)
    } catch {
      StandardStreams.write(
        "archsh: error: the commit failed, nothing was saved: \(error)\n", to: 2)
      return 1
    }
    return status
  }

  static func runScripts(_ interpreter: Interpreter, _ options: LaunchOptions) -> Int32 {
    if !options.actions.isEmpty || !options.words.isEmpty {
      // The -c and -f options form one script: a failure at the end of one part may be examined
      // by an `expect` at the start of the next.
      // Several -c lines are numbered in errors (`-c#2:1:9`), so that each says which it is.
      let lineCount = options.actions.count { if case .line = $0 { true } else { false } }
      var lineNumber = 0
      for (index, action) in options.actions.enumerated() {
        let continued =
          index < options.actions.count - 1 || (!options.hasScript && !options.words.isEmpty)
        let outcome: RunOutcome
        switch action {
        case .line(let text):
          var source = ScriptLineSource(contents: Array(text.utf8))
          lineNumber += 1
          let name = lineCount > 1 ? "-c#\(lineNumber)" : "-c"
          outcome = interpreter.run(&source, name: name, interactive: false, continued: continued)
        case .file(let path):
          switch ScriptLineSource.open(path: path) {
          case .failure(let error):
            StandardStreams.write(
              "archsh: error: \(error.message) (check the path given to -f)\n", to: 2)
            return 2
          case .success(var source):
            let directory = (path as NSString).deletingLastPathComponent
            outcome = interpreter.run(
              &source, name: path, directory: directory.isEmpty ? "." : directory,
              arguments: options.words, interactive: false, continued: continued)
          }
        }
        switch outcome {
        case .finished: continue
        case .stopped: return 1
        case .exit(let status): return status
        }
      }
      if !options.hasScript, !options.words.isEmpty {
        var source = ArrayLineSource([options.words.map(quote).joined(separator: " ")])
        switch interpreter.run(&source, name: "archsh", interactive: false) {
        case .finished: break
        case .stopped: return 1
        case .exit(let status): return status
        }
      }
      return interpreter.hadFailure ? 1 : 0
    }

    if isatty(0) == 0 {
      var source = StandardInputLineSource()
      switch interpreter.run(&source, name: "<stdin>", interactive: false) {
      case .finished: return interpreter.hadFailure ? 1 : 0
      case .stopped: return 1
      case .exit(let status): return status
      }
    }
    return interactive(interpreter, options: options)
  }

  static func interactive(_ interpreter: Interpreter, options: LaunchOptions) -> Int32 {
    let home = variable("HOME") ?? "."
    if !options.noRC {
      defer { interpreter.resetFailures() }
      let config =
        variable("XDG_CONFIG_HOME") ?? home + "/.config"
      let rc = config + "/archsh/rc.ash"
      if FileManager.default.fileExists(atPath: rc),
        case .success(var source) = ScriptLineSource.open(path: rc)
      {
        if case .exit(let status) = interpreter.run(
          &source, name: rc, directory: config + "/archsh", interactive: false)
        {
          return status
        }
      }
    }
    let state =
      variable("XDG_STATE_HOME") ?? home + "/.local/state"
    var editor = LineEditor(
      prompt: interpreter.settings.prompt,
      continuationPrompt: interpreter.settings.continuationPrompt,
      historyPath: state + "/archsh/history", session: interpreter.session,
      completer: Completer(interpreter: interpreter))
    interpreter.interruptRequested = { archshInterruptPending() }
    interpreter.session.interruptCheck = { archshInterruptPending() }
    StandardStreams.write(
      "archsh \(Options.version): type 'help' for commands, Ctrl-D to leave\n", to: 1)
    let outcome = interpreter.run(&editor, name: nil, interactive: true)
    editor.saveHistory()
    interpreter.sessionWillEnd()
    if let signal = editor.endingSignal { return 128 + signal }
    if case .exit(let status) = outcome { return status }
    return 0
  }

  /// The signal that stopped a script: SIGTERM, SIGHUP, or SIGINT (Ctrl-C); nil when none did.
  ///
  /// The interactive shell reports its own (Ctrl-C there only discards a line).
  static func endingSignal(interactive: Bool) -> Int32? {
    let ending = archsh_terminate_pending()
    if ending != 0 { return ending }
    if !interactive, archsh_interrupt_pending() != 0 { return SIGINT }
    return nil
  }

  /// An environment variable, or nil when it is unset or empty.
  ///
  /// `getenv` rather than `ProcessInfo.environment`, which copies the whole environment into a
  /// dictionary to read one variable.
  static func variable(_ name: String) -> String? {
    guard let value = getenv(name), value.pointee != 0 else { return nil }
    return String(cString: value)
  }

  /// Quotes a process argument so that the lexer reads it back as the same word; words without
  /// special characters stay bare, so `--markdown` is still an option.
  static func quote(_ word: String) -> String { Lexer.quoted(word) }
}
