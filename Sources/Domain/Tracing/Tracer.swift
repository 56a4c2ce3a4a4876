import Foundation

/// The capability a Domain controller needs to report what it does.
///
/// Controllers take a `Tracing` value instead of knowing about terminals: the shell decides whether
/// to print the tree, export it, or ignore it.
public protocol Tracing: AnyObject, Sendable {
  /// Whether spans are being recorded. Controllers may skip building expensive attributes when not.
  var isEnabled: Bool { get }

  /// Runs `body` inside a span named after `component` and `operation`.
  ///
  /// `attributes` are made only while spans are recorded: a controller's run on every command
  /// otherwise built them for nothing (an array and its strings, callgrind).
  func withSpan<T>(
    _ component: String, _ operation: String,
    attributes: @autoclosure () -> [(key: String, value: String)],
    _ body: (Span) throws -> T
  ) rethrows -> T

  /// Records an event on the innermost running span, or as a root-level note.
  func event(_ component: String, _ text: String)

  /// The stream every controller publishes its facts to.
  var events: EventStream { get }
}

extension Tracing {
  /// Runs `body` inside a span without initial attributes.
  public func withSpan<T>(
    _ component: String, _ operation: String, _ body: (Span) throws -> T
  ) rethrows -> T {
    try withSpan(component, operation, attributes: [], body)
  }
}

/// The tracer archsh's controllers report to: it builds span trees while anyone reads spans.
///
/// Spans are built only while a reader of `.span` events subscribes to `events` (`trace on`, the
/// board); otherwise `withSpan` runs its body with a shared inert span and records nothing, so
/// tracing costs one atomic load per call. Each completed root span is published, with its whole
/// tree, as one `.span` event. `trace` reads them through a `TraceRecorder`, which keeps them for
/// two uses: the shell drains the new ones after each command to print them, and `trace export`
/// turns everything since `trace on` into a diagram.
public final class Tracer: Tracing, @unchecked Sendable {
  // @unchecked: `stacks` is only touched while `lock` is held; everything else is a `let`.
  private let lock = NSLock()
  private let spanLock: NSLock
  private let clock: @Sendable () -> UInt64
  /// The running spans of each thread, innermost last: concurrent requests nest on their own.
  private var stacks: [ObjectIdentifier: [Span]] = [:]
  private let inert: Span
  /// The stream spans (and every other fact) are published to.
  public let events: EventStream
  /// `trace`'s reader of the stream.
  public let recorder = TraceRecorder()

  /// Creates a tracer.
  ///
  /// `clock` returns monotonic nanoseconds; tests may pass their own.
  public init(clock: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
    self.clock = clock
    self.events = EventStream(clock: clock)
    let spanLock = NSLock()
    self.spanLock = spanLock
    self.inert = Span(
      component: "", operation: "", attributes: [], start: 0, lock: spanLock, isRecording: false)
  }

  /// Whether spans are being built: someone reads them.
  public var isEnabled: Bool { events.wants(.span) }

  /// Whether `trace on` is in effect.
  public var isTraceOn: Bool { events.isSubscribed(recorder) }

  /// Starts recording for `trace`.
  ///
  /// Everything recorded before is forgotten, so an export covers exactly the time since `trace
  /// on`.
  public func enable() {
    recorder.reset()
    events.subscribe(recorder, to: .span)
  }

  /// Stops recording for `trace`.
  ///
  /// What was recorded stays available to `recorded` until the next `enable()`.
  public func disable() {
    events.unsubscribe(recorder)
    if !isEnabled { lock.withLock { stacks = [:] } }
  }

  /// Every root span completed since the last `enable()`.
  public var recorded: [Span] { recorder.recorded }

  /// Returns the root spans completed since the previous call and forgets them.
  public func drainCompleted() -> [Span] { recorder.drain() }

  /// Runs `body` inside a span; see `Tracing.withSpan`.
  public func withSpan<T>(
    _ component: String, _ operation: String,
    attributes: @autoclosure () -> [(key: String, value: String)],
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
    _ component: String, _ operation: String,
    attributes: @autoclosure () -> [(key: String, value: String)] = [],
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
    guard isEnabled else { return }
    let target: Span? = lock.withLock { stacks[thread]?.last }
    if let target {
      target.addEvent(text)
    } else {
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
    guard isEnabled else { return inert }
    return lock.withLock {
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
    publish(root: span)
  }

  private func publish(root span: Span) {
    events.publish(.span) {
      .span(
        SpanEnded(
          component: span.component, operation: span.operation,
          durationNanoseconds: span.durationNanoseconds ?? 0, failure: span.failure, root: span))
    }
  }

  private static var currentThread: ObjectIdentifier { ObjectIdentifier(Thread.current) }

  private func open(
    _ component: String, _ operation: String, _ attributes: () -> [(key: String, value: String)]
  ) -> Span? {
    guard isEnabled else { return nil }
    let attributes = attributes()
    let thread = Self.currentThread
    return lock.withLock {
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
    let isRoot: Bool = lock.withLock {
      guard var stack = stacks[thread], let index = stack.lastIndex(where: { $0 === span }) else {
        return false
      }
      stack.removeSubrange(index...)
      stacks[thread] = stack.isEmpty ? nil : stack
      return index == 0
    }
    if isRoot { publish(root: span) }
  }
}

/// `trace`'s reader of the event stream: the root spans completed since `trace on`.
public final class TraceRecorder: EventSubscriber, @unchecked Sendable {
  // @unchecked: `pending` and `all` are only touched while `lock` is held.
  private let lock = NSLock()
  private var pending: [Span] = []
  private var all: [Span] = []

  /// Keeps a completed root span.
  public func receive(_ event: ArchEvent) {
    guard case .span(let ended) = event.payload, let root = ended.root else { return }
    lock.withLock {
      pending.append(root)
      all.append(root)
    }
  }

  /// Forgets everything.
  func reset() {
    lock.withLock {
      pending = []
      all = []
    }
  }

  /// Every root span kept.
  var recorded: [Span] { lock.withLock { all } }

  /// The root spans kept since the last call.
  func drain() -> [Span] {
    lock.withLock {
      defer { pending = [] }
      return pending
    }
  }
}
