import Foundation

/// The capability a Domain controller needs to report what it does.
///
/// Controllers take a `Tracing` value instead of knowing about terminals: the shell decides whether
/// to print the tree, export it, or ignore it.
public protocol Tracing: AnyObject, Sendable {
  /// Whether spans are being recorded. Controllers may skip building expensive attributes when not.
  var isEnabled: Bool { get }

  /// Runs `body` inside a span named after `component` and `operation`.
  func withSpan<T>(
    _ component: String, _ operation: String, attributes: [(key: String, value: String)],
    _ body: (Span) throws -> T
  ) rethrows -> T

  /// Records an event on the innermost running span, or as a root-level note.
  func event(_ component: String, _ text: String)
}

extension Tracing {
  /// Runs `body` inside a span without initial attributes.
  public func withSpan<T>(
    _ component: String, _ operation: String, _ body: (Span) throws -> T
  ) rethrows -> T {
    try withSpan(component, operation, attributes: [], body)
  }
}

/// The tracer archsh's controllers report to: it records span trees while enabled.
///
/// When disabled, `withSpan` runs its body with a shared inert span and records nothing, so
/// tracing costs one branch per call. Completed root spans are kept for two readers: the shell,
/// which drains the new ones after each command to print them, and `trace export`, which turns
/// everything since `trace on` into a diagram.
public final class Tracer: Tracing, @unchecked Sendable {
  private let lock = NSLock()
  private let spanLock: NSLock
  private let clock: @Sendable () -> UInt64
  private var enabled = false
  private var stack: [Span] = []
  private var pending: [Span] = []
  private var recordedSpans: [Span] = []
  private let inert: Span

  /// Creates a tracer.
  ///
  /// `clock` returns monotonic nanoseconds; tests may pass their own.
  public init(clock: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
    self.clock = clock
    let spanLock = NSLock()
    self.spanLock = spanLock
    self.inert = Span(
      component: "", operation: "", attributes: [], start: 0, lock: spanLock, isRecording: false)
  }

  /// Whether spans are being recorded.
  public var isEnabled: Bool { lock.withLock { enabled } }

  /// Starts recording.
  ///
  /// Everything recorded before is forgotten, so an export covers exactly the time since `trace
  /// on`.
  public func enable() {
    lock.withLock {
      enabled = true
      pending = []
      recordedSpans = []
    }
  }

  /// Stops recording.
  ///
  /// What was recorded stays available to `recorded` until the next `enable()`.
  public func disable() {
    lock.withLock {
      enabled = false
      stack = []
    }
  }

  /// Every root span completed since the last `enable()`.
  public var recorded: [Span] { lock.withLock { recordedSpans } }

  /// Returns the root spans completed since the previous call and forgets them.
  public func drainCompleted() -> [Span] {
    lock.withLock {
      let spans = pending
      pending = []
      return spans
    }
  }

  /// Runs `body` inside a span; see `Tracing.withSpan`.
  public func withSpan<T>(
    _ component: String, _ operation: String, attributes: [(key: String, value: String)],
    _ body: (Span) throws -> T
  ) rethrows -> T {
    guard let span = open(component, operation, attributes) else { return try body(inert) }
    do {
      let result = try body(span)
      close(span, failure: nil)
      return result
    } catch {
      close(span, failure: String(describing: error))
      throw error
    }
  }

  /// Runs an async `body` inside a span.
  public func withSpan<T>(
    _ component: String, _ operation: String, attributes: [(key: String, value: String)] = [],
    _ body: (Span) async throws -> T
  ) async rethrows -> T {
    guard let span = open(component, operation, attributes) else { return try await body(inert) }
    do {
      let result = try await body(span)
      close(span, failure: nil)
      return result
    } catch {
      close(span, failure: String(describing: error))
      throw error
    }
  }

  /// Records an event on the innermost running span, or as a zero-length root span.
  public func event(_ component: String, _ text: String) {
    let target: Span? = lock.withLock { enabled ? (stack.last ?? nil) : nil }
    if let target {
      target.addEvent(text)
    } else if isEnabled {
      withSpan(component, "event", attributes: []) { $0.addEvent(text) }
    }
  }

  private func open(
    _ component: String, _ operation: String, _ attributes: [(key: String, value: String)]
  ) -> Span? {
    lock.withLock {
      guard enabled else { return nil }
      let span = Span(
        component: component, operation: operation, attributes: attributes, start: clock(),
        lock: spanLock)
      stack.last?.append(child: span)
      stack.append(span)
      return span
    }
  }

  private func close(_ span: Span, failure: String?) {
    span.finish(at: clock(), failure: failure)
    lock.withLock {
      guard let index = stack.lastIndex(where: { $0 === span }) else { return }
      stack.removeSubrange(index...)
      if index == 0 {
        pending.append(span)
        recordedSpans.append(span)
      }
    }
  }
}
