import Dispatch
import Synchronization

/// The port a server bound, handed from its start-up callback to the thread that waits for it.
///
/// The demo API and the board's server both start this way; the first outcome counts.
public final class BoundPort: Sendable {
  /// nil until the outcome is known; then the port, or nil when the server could not start.
  private let outcome = Mutex<Int??>(nil)
  /// Signalled once the outcome is known; a waiter that gets through signals it again for the
  /// next one.
  private let settled = DispatchSemaphore(value: 0)

  /// Creates one that has no outcome yet.
  public init() {}

  /// Records the outcome: the port, or nil when the server could not start.
  public func set(_ port: Int?) {
    let first = outcome.withLock { outcome in
      guard outcome == nil else { return false }
      outcome = .some(port)
      return true
    }
    if first { settled.signal() }
  }

  /// Waits at most `seconds` for the outcome; nil when the server could not start in that time.
  public func wait(seconds: Double) -> Int? {
    if outcome.withLock({ $0 == nil }), settled.wait(timeout: .now() + seconds) == .success {
      settled.signal()
    }
    return value
  }

  /// The port, once it is known.
  public var value: Int? { outcome.withLock { $0 ?? nil } }
}
