@preconcurrency import CEdit
import Commands
import Foundation

/// `archsh --step`: a walkthrough presented one command at a time, on a terminal.
///
/// Before each step it shows the step's number and chapter, its narration and its lines, then
/// waits for a key: Enter runs it, `s` skips it, `b` goes back one step (the state is rebuilt in a
/// fresh in-memory workspace), `j` jumps to the next chapter (running the rest of this one
/// quietly), `q` quits. Ctrl-C cancels the running command, not the demo. With the board open, the
/// page shows the step too, and its Next and Back buttons act as Enter and `b`.
enum StepMode {
  /// What the presenter asked for.
  enum Key: Equatable {
    case run, skip, back, jump, quit, interrupt, other
  }

  static func run(path: String, options: LaunchOptions) -> Int32 {
    // `--db :memory:` names what step mode uses anyway.
    guard options.database == nil || options.database == ":memory:" else {
      StandardStreams.write(
        "archsh: error: --step runs in a fresh in-memory workspace, so that going back can rebuild it; --db does not apply\n",
        to: 2)
      return 2
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      StandardStreams.write(
        "archsh: error: cannot read '\(path)' (check the path given to -f)\n", to: 2)
      return 2
    }
    let script = WalkthroughScript(contents: String(decoding: data, as: UTF8.self))
    guard !script.steps.isEmpty else {
      StandardStreams.write("archsh: error: '\(path)' has no commands to step through\n", to: 2)
      return 2
    }
    var startChapter: Int?
    if let from = options.from {
      guard let chapter = script.chapter(named: from) else {
        let titles = script.chapters.enumerated().map { "\($0.offset + 1) '\($0.element)'" }
        StandardStreams.write(
          "archsh: error: '\(path)' has no chapter '\(from)' (its chapters: \(titles.isEmpty ? "none" : titles.joined(separator: ", ")))\n",
          to: 2)
        return 2
      }
      startChapter = chapter
    }
    guard isatty(0) != 0 else {
      StandardStreams.write(
        "archsh: error: --step needs a terminal on standard input, to read the presenter's keys (run the script with -f instead)\n",
        to: 2)
      return 2
    }
    archsh_install_signal_handlers()
    let color = StandardStreams.allowsColor(1)
    var settings = InterpreterSettings()
    settings.colorOutput = color
    settings.colorErrors = StandardStreams.allowsColor(2)
    let runner = StepRunner(
      script: script, path: path,
      options: SessionOptions(
        databasePath: ":memory:", apiURL: options.api ?? Launcher.variable("ARCHSH_API")),
      settings: settings, sink: StandardStreams()
    ) { session, interpreter in
      interpreter.terminalWidth = TerminalWidth.ofStandardOutput
      interpreter.interruptRequested = { archshInterruptPending() }
      session.interruptCheck = { archshInterruptPending() }
      if options.json { session.outputMode = .json }
    }
    let presenter = Presenter(runner: runner, color: color)
    defer { runner.session.factory.shutdown() }
    if options.board { presenter.openBoard() }
    if let startChapter {
      let notes = runner.start(atChapter: startChapter)
      presenter.say(
        "replayed \(runner.current) step\(runner.current == 1 ? "" : "s") quietly, to start at chapter \(startChapter + 1), '\(script.chapters[startChapter])'"
      )
      presenter.say(notes)
    }
    let status = presenter.present()
    if runner.session.board != nil {
      presenter.publish(state: "ended")
      StandardStreams.write("the board stays open: press Enter to close it\n", to: 1)
      _ = presenter.readKey()
    }
    return status
  }

  /// The loop on the terminal.
  final class Presenter {
    let runner: StepRunner
    let color: Bool
    /// The page's buttons write a byte here, which the key loop reads with the keyboard.
    private var buttons: (read: Int32, write: Int32) = (-1, -1)

    init(runner: StepRunner, color: Bool) {
      self.runner = runner
      self.color = color
    }

    func openBoard() {
      var source = ArrayLineSource(["board open"])
      _ = runner.interpreter.run(&source, name: "--board", interactive: false)
      StandardStreams.flush()
      listenToButtons()
    }

    private func listenToButtons() {
      guard let board = runner.session.board else { return }
      if buttons.read < 0 {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { return }
        buttons = (descriptors[0], descriptors[1])
      }
      let writer = buttons.write
      board.listenToStepButtons { back in
        var byte = UInt8(ascii: back ? "b" : "\n")
        _ = Platform.write(writer, &byte, 1)
      }
    }

    /// Presents every step; returns the exit status.
    func present() -> Int32 {
      while let step = runner.step {
        show(step)
        publish(state: "waiting")
        switch readKey() {
        case .run:
          clearHint()
          publish(state: "running")
          _ = archsh_take_interrupt()
          let outcome = runner.runCurrent()
          StandardStreams.flush()
          if archsh_take_interrupt() != 0 {
            say("Ctrl-C cancelled step \(step.number); the demo goes on")
          }
          if case .exit(let status) = outcome {
            say("step \(step.number) ended archsh")
            return status
          }
          // `board open` in a step: its buttons work from then on.
          listenToButtons()
        case .skip:
          clearHint()
          say("skipped step \(step.number)")
          runner.skipCurrent()
        case .back:
          clearHint()
          guard runner.current > 0 else {
            say("this is the first step")
            continue
          }
          let notes = runner.back()
          say(
            "back to step \(runner.current + 1): the state before it was rebuilt in a fresh in-memory workspace"
          )
          say(notes)
          listenToButtons()
        case .jump:
          clearHint()
          let total = runner.script.steps.count
          let jumped = runner.jumpToNextChapter { step in
            let first = step.lines.first?.text.trimmingCharacters(in: .whitespaces) ?? ""
            say("replaying step \(step.number) of \(total): \(first)")
          }
          guard let notes = jumped else {
            say("this is the last chapter (q quits)")
            continue
          }
          say("ran the rest of the chapter quietly")
          say(notes)
        case .quit:
          clearHint()
          say("quit at step \(step.number) of \(runner.script.steps.count)")
          return runner.failedSteps > 0 ? 1 : 0
        case .interrupt:
          clearHint()
          say("Ctrl-C: nothing is running (q quits)")
        case .other:
          clearHint()
          say(
            "keys: Enter runs the step, s skips it, b goes back, j jumps to the next chapter, q quits"
          )
        }
      }
      let skipped = runner.ran.filter { !$0 }.count
      say(
        "the end of \(runner.path): \(runner.script.steps.count) steps, \(skipped) skipped, \(runner.failedSteps) failed"
      )
      return runner.failedSteps > 0 ? 1 : 0
    }

    private func style(_ code: String, _ text: String) -> String {
      color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func show(_ step: WalkthroughScript.Step) {
      let script = runner.script
      var header = "── step \(step.number) of \(script.steps.count)"
      if let chapter = step.chapter {
        header += " · chapter \(chapter + 1)/\(script.chapters.count): \(script.chapters[chapter])"
      }
      header += " ──"
      var text = "\n" + style("1;36", header) + "\n"
      for line in step.narration { text += style("3", "  " + line) + "\n" }
      for (index, line) in step.lines.enumerated() {
        let isContinuation = index > 0 && Lexer.needsContinuation(step.lines[index - 1].text)
        if !isContinuation, line.text.trimmingCharacters(in: .whitespaces).hasPrefix("expect") {
          // The checks run with the step; they print nothing when they pass.
          text += style("2", "        then " + line.text) + "\n"
        } else {
          text += style("1", (isContinuation ? "...> " : "archsh> ") + line.text) + "\n"
        }
      }
      text += style("2", "Enter run · s skip · b back · j next chapter · q quit")
      StandardStreams.write(text, to: 1)
    }

    private func clearHint() { StandardStreams.write("\r\u{1B}[2K", to: 1) }

    func say(_ line: String) { StandardStreams.write(style("2", "· " + line) + "\n", to: 1) }

    func say(_ notes: [String]) { for note in notes { say(note) } }

    func publish(state: String) {
      guard let board = runner.session.board else { return }
      let script = runner.script
      let step = runner.step
      board.show(
        Board.StepView(
          number: step?.number ?? script.steps.count, total: script.steps.count,
          chapter: step?.chapter.map { script.chapters[$0] }, narration: step?.narration ?? [],
          lines: step?.lines.map(\.text) ?? [], state: state))
    }

    /// Waits for one key, on the keyboard or the board's buttons.
    func readKey() -> Key {
      var saved = termios()
      let isTerminal = tcgetattr(0, &saved) == 0
      if isTerminal {
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
          bytes[Int(VMIN)] = 1
          bytes[Int(VTIME)] = 0
        }
        tcsetattr(0, TCSANOW, &raw)
      }
      defer { if isTerminal { tcsetattr(0, TCSANOW, &saved) } }
      while true {
        var descriptors = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0)]
        if buttons.read >= 0 {
          descriptors.append(pollfd(fd: buttons.read, events: Int16(POLLIN), revents: 0))
        }
        let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
        if ready < 0 {
          if errno == EINTR { continue }
          return .quit
        }
        for descriptor in descriptors where descriptor.revents != 0 {
          var byte: UInt8 = 0
          let count = Platform.read(descriptor.fd, &byte, 1)
          if count < 0, errno == EINTR { continue }
          guard count == 1 else { return .quit }
          // The rest of an escape sequence (an arrow key) or of a paste is one key, not many.
          if descriptor.fd == 0, isTerminal { tcflush(0, TCIFLUSH) }
          return Self.key(for: byte)
        }
      }
    }

    static func key(for byte: UInt8) -> Key {
      switch byte {
      case 0x0A, 0x0D, UInt8(ascii: "n"), UInt8(ascii: " "): return .run
      case UInt8(ascii: "s"): return .skip
      case UInt8(ascii: "b"), UInt8(ascii: "p"): return .back
      case UInt8(ascii: "j"): return .jump
      case UInt8(ascii: "q"), 0x04: return .quit
      case 0x03: return .interrupt
      default: return .other
      }
    }
  }
}
