import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs archsh on a real pseudo-terminal, as its controlling terminal, so that typing, Tab,
/// arrow keys, Ctrl-C and Ctrl-D behave as they do for a person.
final class PseudoTerminal {
  let master: Int32
  let pid: pid_t
  private(set) var transcript = ""

  enum Failure: Error, CustomStringConvertible {
    case system(String)
    case timeout(waitingFor: String, transcript: String)
    var description: String {
      switch self {
      case .system(let message): return message
      case .timeout(let text, let transcript):
        return
          "timed out waiting for \(text.debugDescription); screen ends with: \(String(transcript.suffix(700)).debugDescription)"
      }
    }
  }

  /// Starts `arguments[0]` with `environment` on a new pseudo-terminal of 100x30.
  init(_ arguments: [String], environment: [String: String]) throws {
    // posix_openpt and friends are behind _XOPEN_SOURCE, which Swift's Glibc module does not
    // define; they are looked up at run time instead.
    typealias OpenFunction = @convention(c) (Int32) -> Int32
    typealias NameFunction = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
    func symbol<T>(_ name: String, as type: T.Type) throws -> T {
      guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
        throw Failure.system("no \(name) in libc")
      }
      return unsafeBitCast(address, to: type)
    }
    let openpt = try symbol("posix_openpt", as: OpenFunction.self)
    let grantpt = try symbol("grantpt", as: OpenFunction.self)
    let unlockpt = try symbol("unlockpt", as: OpenFunction.self)
    let ptsname = try symbol("ptsname", as: NameFunction.self)
    master = openpt(O_RDWR | O_NOCTTY)
    guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master)
    else {
      throw Failure.system("cannot open a pseudo-terminal")
    }
    let slavePath = String(cString: name)
    // The child becomes a session leader, then opens the slave, which makes it its controlling
    // terminal: Ctrl-C typed on the master then sends SIGINT to archsh.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    posix_spawnattr_setflags(&attributes, Int16(0x80))  // POSIX_SPAWN_SETSID
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
    posix_spawn_file_actions_adddup2(&actions, 0, 1)
    posix_spawn_file_actions_adddup2(&actions, 0, 2)
    posix_spawn_file_actions_addclose(&actions, master)
    // stty sets the window size that libedit reads, then execs archsh in the same process.
    let shellLine = "stty cols 100 rows 30 && exec \"$@\""
    let argv = ["/bin/sh", "-c", shellLine, "sh"] + arguments
    let envp = environment.map { "\($0.key)=\($0.value)" }
    var child: pid_t = 0
    let status = withCStrings(argv) { argvPointers in
      withCStrings(envp) { envPointers in
        posix_spawn(&child, "/bin/sh", &actions, &attributes, argvPointers, envPointers)
      }
    }
    posix_spawn_file_actions_destroy(&actions)
    posix_spawnattr_destroy(&attributes)
    guard status == 0 else { throw Failure.system("posix_spawn failed: \(status)") }
    pid = child
  }

  deinit {
    kill(pid, SIGKILL)
    var status: Int32 = 0
    waitpid(pid, &status, WNOHANG)
    close(master)
  }

  /// Types `key` once the program waits for a key: its line editor, a password prompt or step
  /// mode has put the terminal in raw mode.
  ///
  /// libedit prints its prompt a moment before it puts the terminal in raw mode; a control key that
  /// arrives in between is taken by the terminal's line discipline instead (a person never types
  /// that fast), so the key waits for that mode.
  func press(_ key: String) throws {
    try waitForMode(canonical: false, waitingFor: "the program to wait for a key")
    type(key)
  }

  /// Presses Ctrl-C once a command is running: the terminal is back in canonical mode, where
  /// Ctrl-C is a signal to the command and not a key for the line editor.
  func interrupt() throws {
    try pressWhileCooked("\u{03}")
  }

  /// Types `key` once the program waits with the terminal in canonical (cooked) mode: a running
  /// command, or the plain prompt that stands in for libedit.
  func pressWhileCooked(_ key: String) throws {
    try waitForCommand()
    type(key)
  }

  /// Types `text` as keystrokes.
  func type(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(master, $0.baseAddress, $0.count) }
  }

  /// Types each of `lines` at the prompt, with Return, and waits for the prompt that follows it.
  func typeAtPrompt(_ lines: [String]) throws {
    for line in lines {
      let mark = self.mark
      type(line + "\r")
      try waitFor("archsh> ", after: waitFor("\r\n", after: mark))
    }
  }

  /// Reads until the screen output since `mark` contains `text`, or throws after `seconds`.
  @discardableResult
  func waitFor(_ text: String, after mark: String.Index? = nil, seconds: Double = 10) throws
    -> String.Index
  {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
      let searchStart = mark ?? transcript.startIndex
      if let range = transcript.range(of: text, range: searchStart..<transcript.endIndex) {
        return range.upperBound
      }
      guard Date() < deadline else {
        throw Failure.timeout(waitingFor: text, transcript: transcript)
      }
      readAvailable(timeoutMilliseconds: 100)
    }
  }

  /// Waits until the program has left its line editor to run a command: the terminal is back in
  /// canonical mode, where Ctrl-C is a signal to the command and not a key for the editor.
  ///
  /// Then waits for the program's main thread to sleep (a command waiting on a timer, a reply or a
  /// lock), so that Ctrl-C reaches the command's own wait, not the moment before it began.
  func waitForCommand() throws {
    try waitForMode(canonical: true, waitingFor: "a command to start")
    let deadline = Date().addingTimeInterval(10)
    while let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let state = stat.split(separator: ")").last?.split(separator: " ").first, state != "S"
    {
      guard Date() < deadline else {
        throw Failure.timeout(waitingFor: "the command to wait", transcript: transcript)
      }
      usleep(1_000)
    }
  }

  /// Waits up to 10 seconds for the terminal to be in canonical mode, or out of it.
  private func waitForMode(canonical: Bool, waitingFor what: String) throws {
    let deadline = Date().addingTimeInterval(10)
    var settings = termios()
    while tcgetattr(master, &settings) == 0,
      (settings.c_lflag & tcflag_t(ICANON) != 0) != canonical
    {
      guard Date() < deadline else {
        throw Failure.timeout(waitingFor: what, transcript: transcript)
      }
      readAvailable(timeoutMilliseconds: 5)
    }
  }

  /// The end of what has been read so far, to wait for text that appears after it.
  var mark: String.Index { transcript.endIndex }

  /// Waits for the process to exit and returns its status, reading its last output.
  func waitForExit(seconds: Double = 10) throws -> Int32 {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      readAvailable(timeoutMilliseconds: 50)
      var status: Int32 = 0
      if waitpid(pid, &status, WNOHANG) == pid {
        // Everything the process wrote before it ended is still in the terminal: read it all,
        // not one buffer's worth.
        while readAvailable(timeoutMilliseconds: 50) {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
      }
    }
    throw Failure.timeout(waitingFor: "exit", transcript: transcript)
  }

  /// Reads what the terminal has within the timeout; returns whether it read anything.
  @discardableResult
  private func readAvailable(timeoutMilliseconds: Int32) -> Bool {
    var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, timeoutMilliseconds) > 0 else { return false }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
    guard count > 0 else { return false }
    transcript += String(decoding: buffer[0..<count], as: UTF8.self)
    return true
  }
}

private func withCStrings<R>(
  _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R
) -> R {
  var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
  pointers.append(nil)
  defer { for pointer in pointers { free(pointer) } }
  return pointers.withUnsafeBufferPointer { buffer in
    guard let base = buffer.baseAddress else {
      preconditionFailure("an array with a nil always has storage")
    }
    return body(base)
  }
}
