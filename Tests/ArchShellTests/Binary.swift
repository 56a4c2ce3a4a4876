import Foundation
import TestSupport

/// Runs the built `archsh` binary, as a user would.
enum Binary {
  /// The repository's root, found from this file's path.
  static let root: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
  }()

  /// The binary under test: `$ARCHSH_BINARY`, which `make test` points at the release build that
  /// `make run` starts, else the debug build that `swift build` produced.
  static var path: String {
    ProcessInfo.processInfo.environment["ARCHSH_BINARY"] ?? root + "/.build/debug/archsh"
  }

  struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
    /// Standard output and error interleaved, when run with `merge`.
    var combined: String { stdout }
  }

  /// A write to a process that has already exited (or a socket its server closed) fails with an
  /// error the test reports, instead of SIGPIPE ending the whole test run, which happened in CI.
  static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

  /// A private home, so that tests never read or write the user's rc, history or workspace.
  static func environment(home: String) -> [String: String] {
    [
      "HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state",
      "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
    ]
  }

  /// Runs archsh with `arguments` and `input` on standard input, in `directory`.
  ///
  /// With `merge`, standard error goes to the same pipe as standard output, so the order of
  /// results and errors is the order a user sees. With `wrapper`, that program runs archsh: its
  /// words come first, then archsh's path and `arguments`.
  static func run(
    _ arguments: [String], input: String? = nil, directory: String = root, merge: Bool = false,
    home: String? = nil, environment extra: [String: String] = [:], wrapper: [String] = []
  ) throws -> Result {
    _ = ignoreBrokenPipes
    let process = Process()
    process.executableURL = URL(fileURLWithPath: wrapper.first ?? path)
    process.arguments = wrapper.isEmpty ? arguments : wrapper.dropFirst() + [path] + arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let homeDirectory = try home ?? makeTemporaryDirectory()
    process.environment = environment(home: homeDirectory).merging(extra) { $1 }
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardOutput = stdout
    process.standardError = merge ? stdout : stderr
    let stdin = Pipe()
    process.standardInput = stdin
    try process.run()
    if let input { try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8)) }
    try stdin.fileHandleForWriting.close()
    // Both pipes are drained at once: a child that fills one while the other is read would
    // block forever (LD_DEBUG writes far more than a pipe holds to stderr).
    let errorsBox = DataBox()
    let drained = DispatchSemaphore(value: 0)
    if merge {
      drained.signal()
    } else {
      let handle = stderr.fileHandleForReading
      DispatchQueue.global().async {
        errorsBox.data = handle.readDataToEndOfFile()
        drained.signal()
      }
    }
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    drained.wait()
    let errors = errorsBox.data
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
      stderr: String(decoding: errors, as: UTF8.self))
  }

  /// The first line a child process writes to `pipe` (a test server's ports), without its newline;
  /// read a byte at a time, so that nothing after it is taken from the pipe.
  static func firstLine(of pipe: Pipe) -> String {
    var line = Data()
    while !line.contains(10) {
      let byte = pipe.fileHandleForReading.readData(ofLength: 1)
      guard !byte.isEmpty else { break }
      line.append(byte)
    }
    return String(decoding: line.prefix { $0 != 10 }, as: UTF8.self)
  }

  static func makeTemporaryDirectory() throws -> String {
    try Scratch.directory("e2e")
  }
}

/// `Binary.environment(home:)` for a pseudo-terminal, with `TERM` set to `xterm`.
///
/// archsh then edits its lines and prompts as it does at a user's terminal.
func terminalEnvironment(home: String) -> [String: String] {
  var environment = Binary.environment(home: home)
  environment["TERM"] = "xterm"
  return environment
}

/// Data written by one thread and read by another after a semaphore orders them.
private final class DataBox: @unchecked Sendable {
  var data = Data()
}
