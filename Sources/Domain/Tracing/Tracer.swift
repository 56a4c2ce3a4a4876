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
  /// The running spans of each thread, innermost last: concurrent requests nest on their own.
  private var stacks: [ObjectIdentifier: [Span]] = [:]
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
      stacks = [:]
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
    let thread = Self.currentThread
    let target: Span? = lock.withLock { enabled ? stacks[thread]?.last : nil }
    if let target {
      target.addEvent(text)
    } else if isEnabled {
      withSpan(component, "event", attributes: []) { $0.addEvent(text) }
    }
  }

  /// Runs `body` on this thread with `parent` as its innermost span, so that spans `body` opens
  /// become its children: work handed to another thread stays in the tree it belongs to.
  public func withParent<T>(_ parent: Span?, _ body: () throws -> T) rethrows -> T {
    guard let parent, parent.isRecording else { return try body() }
    let thread = Self.currentThread
    lock.withLock { stacks[thread, default: []].append(parent) }
    defer {
      lock.withLock {
        if var stack = stacks[thread], let index = stack.lastIndex(where: { $0 === parent }) {
          stack.removeSubrange(index...)
          stacks[thread] = stack.isEmpty ? nil : stack
        }
      }
    }
    return try body()
  }

  /// Starts a span that ends with `endSpan` rather than with a closure, for work that completes
  /// on another thread (a request in flight); its parent is `parent`, else this thread's
  /// innermost span.
  ///
  /// The span is not made current: spans opened meanwhile do not nest in it.
  public func startSpan(
    _ component: String, _ operation: String, attributes: [(key: String, value: String)] = [],
    parent: Span? = nil
  ) -> Span {
    let thread = Self.currentThread
    return lock.withLock {
      guard enabled else { return inert }
      let span = Span(
        component: component, operation: operation, attributes: attributes, start: clock(),
        lock: spanLock)
      let owner = parent.flatMap { $0.isRecording ? $0 : nil } ?? stacks[thread]?.last
      if let owner { owner.append(child: span) } else { span.isDetachedRoot = true }
      return span
    }
  }

  /// Ends a span from `startSpan`; a span without a parent becomes a completed root.
  public func endSpan(_ span: Span, failure: String? = nil) {
    guard span.isRecording else { return }
    span.finish(at: clock(), failure: failure)
    guard span.isDetachedRoot else { return }
    lock.withLock {
      pending.append(span)
      recordedSpans.append(span)
    }
  }

  private static var currentThread: ObjectIdentifier { ObjectIdentifier(Thread.current) }

  private func open(
    _ component: String, _ operation: String, _ attributes: [(key: String, value: String)]
  ) -> Span? {
    let thread = Self.currentThread
    return lock.withLock {
      guard enabled else { return nil }
      let span = Span(
        component: component, operation: operation, attributes: attributes, start: clock(),
        lock: spanLock)
      stacks[thread]?.last?.append(child: span)
      stacks[thread, default: []].append(span)
      return span
    }
  }

  private func close(_ span: Span, failure: String?) {
    span.finish(at: clock(), failure: failure)
    let thread = Self.currentThread
    lock.withLock {
      guard var stack = stacks[thread], let index = stack.lastIndex(where: { $0 === span }) else {
        return
      }
      stack.removeSubrange(index...)
      stacks[thread] = stack.isEmpty ? nil : stack
      if index == 0 {
        pending.append(span)
        recordedSpans.append(span)
      }
    }
  }
}
