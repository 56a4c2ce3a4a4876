import Domain
import Foundation

@testable import Commands

/// Collects what the interpreter writes, in order, with stderr lines marked.
final class CapturingSink: OutputSink {
  var stdout = ""
  var stderr = ""
  var combined = ""

  func standardOutput(_ text: String) {
    stdout += text
    combined += text
  }

  func standardError(_ text: String) {
    stderr += text
    combined += text
  }
}

/// An interpreter over a fresh session, its sink, and a helper to run script lines.
struct Harness {
  let session: Session
  let sink = CapturingSink()
  let interpreter: Interpreter

  init(
    session: Session = Session(),
    settings: InterpreterSettings = InterpreterSettings(),
    registry: CommandRegistry = AllGroups.registry
  ) {
    self.session = session
    interpreter = Interpreter(session: session, registry: registry, sink: sink, settings: settings)
  }

  /// Runs `lines` as the script `test.ash`.
  @discardableResult
  func script(_ lines: [String], arguments: [String] = [], directory: String = ".") -> RunOutcome {
    var source = ArrayLineSource(lines)
    return interpreter.run(
      &source, name: "test.ash", directory: directory, arguments: arguments, interactive: false)
  }

  /// Runs `lines` as if typed at the prompt.
  @discardableResult
  func prompt(_ lines: [String]) -> RunOutcome {
    var source = ArrayLineSource(lines)
    return interpreter.run(&source, name: nil, interactive: true)
  }
}

/// Runs long blocking work on a thread of its own, off the cooperative pool, so that the tests
/// that wait asynchronously meanwhile (a sleep, a server's answer) are not starved of threads.
