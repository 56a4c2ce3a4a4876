import Domain

/// A command the shell began or ended, published on the session's event stream (the board shows
/// it, and numbers the facts the command caused with it).
public struct CommandEvent: ShellEvent, Equatable {
  /// Began or ended.
  public enum Phase: String, Sendable {
    case began, ended
  }
  /// Began or ended.
  public var phase: Phase
  /// The line as history would keep it: a secret argument replaced.
  public var line: String
  /// Its output as text, once ended.
  public var output: String
  /// Whether it succeeded, once ended.
  public var succeeded: Bool
  /// Where it came from: a script's `file:line`, or `prompt`.
  public var origin: String

  /// Creates a command event.
  public init(
    phase: Phase, line: String, output: String = "", succeeded: Bool = true, origin: String
  ) {
    self.phase = phase
    self.line = line
    self.output = output
    self.succeeded = succeeded
    self.origin = origin
  }
}
