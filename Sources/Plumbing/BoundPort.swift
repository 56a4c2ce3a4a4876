import Foundation

/// The port a server bound, handed from its start-up callback to the thread that waits for it.
///
/// The demo API and the board's server both start this way; the first outcome counts.
public final class BoundPort: @unchecked Sendable {
  // @unchecked: `port` and `done` are only touched while `condition` is locked.
  private let condition = NSCondition()
  private var port: Int?
  private var done = false

  /// Creates one that has no outcome yet.
  public init() {}

  /// Records the outcome: the port, or nil when the server could not start.
  public func set(_ port: Int?) {
    condition.withLock {
      guard !done else { return }
      self.port = port
      done = true
      condition.broadcast()
    }
  }

  /// Waits at most `seconds` for the outcome; nil when the server could not start in that time.
  public func wait(seconds: Double) -> Int? {
    condition.withLock {
      let deadline = Date().addingTimeInterval(seconds)
      while !done, condition.wait(until: deadline) {}
      return port
    }
  }

  /// The port, once it is known.
  public var value: Int? { condition.withLock { port } }
}
