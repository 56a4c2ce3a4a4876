import Foundation
import Plumbing
import Synchronization

/// Plumbing's span, by the name the controllers use: the standard library's `Span` (a view of
/// memory) would take the name otherwise.
public typealias Span = Plumbing.Span

/// The capability a Domain controller needs to report what it does.
///
/// Controllers take a `Tracing` value instead of knowing about terminals: the shell decides whether
/// to print the tree, export it, or ignore it.
public protocol Tracing: AnyObject, Sendable {
  /// Whether spans are being recorded. Controllers may skip building expensive attributes when not.
  var isEnabled: Bool { get }

  /// Runs `body` inside a span named after `component` and `operation`.
  ///
  /// `attributes` are made only while spans are recorded: otherwise every command would build an
  /// array and its strings for nothing.
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
/// turns everything since `trace on` into a diagram. The spans themselves are Plumbing's
/// (`SpanStacks`); this is where they meet the architecture's stream.
public final class Tracer: Tracing, Sendable {
  private let spans: SpanStacks
  /// The stream spans (and every other fact) are published to.
  public let events: EventStream
  /// `trace`'s reader of the stream.
  public let recorder = TraceRecorder()
  /// The values this session must never show, which every view of the stream hides.
  public let secrets = SecretValues()

  /// Creates a tracer.
  ///
  /// `clock` returns monotonic nanoseconds; tests may pass their own.
  public init(clock: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
    let events = EventStream(clock: clock)
    self.events = events
    spans = SpanStacks(
      clock: clock, isEnabled: { events.wants(.span) },
      rootEnded: { span in
        events.publish(.span) {
          .span(
            SpanEnded(
              component: span.component, operation: span.operation,
              durationNanoseconds: span.durationNanoseconds ?? 0, failure: span.failure,
              root: span))
        }
      })
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
    try spans.withSpan(component, operation, attributes: attributes, body)
  }

  /// Records an event on the innermost running span, or as a zero-length root span.
  public func event(_ component: String, _ text: String) { spans.event(component, text) }

  /// Runs `body` on this thread with `parent` as its innermost span, so that spans `body` opens
  /// become its children: work handed to another thread stays in the tree it belongs to.
  public func withParent<T>(_ parent: Span?, _ body: () throws -> T) rethrows -> T {
    try spans.withParent(parent, body)
  }

  /// Starts a span that ends with `endSpan` rather than with a closure, for work that completes
  /// on another thread (a request in flight); its parent is `parent`, else this thread's
  /// innermost span.
  public func startSpan(
    _ component: String, _ operation: String, attributes: [(key: String, value: String)] = [],
    parent: Span? = nil
  ) -> Span {
    spans.startSpan(component, operation, attributes: attributes, parent: parent)
  }

  /// Ends a span from `startSpan`; a span without a parent becomes a completed root.
  public func endSpan(_ span: Span, failure: String? = nil) {
    spans.endSpan(span, failure: failure)
  }
}

/// `trace`'s reader of the event stream: the root spans completed since `trace on`.
public final class TraceRecorder: EventSubscriber {
  /// The roots not yet drained, and every root since the last reset.
  private let roots = Mutex((pending: [Span](), all: [Span]()))

  /// Keeps a completed root span.
  public func receive(_ event: ArchEvent) {
    guard case .span(let ended) = event.payload, let root = ended.root else { return }
    roots.withLock { roots in
      roots.pending.append(root)
      roots.all.append(root)
    }
  }

  /// Forgets everything.
  func reset() {
    roots.withLock { $0 = ([], []) }
  }

  /// Every root span kept.
  var recorded: [Span] { roots.withLock { $0.all } }

  /// The root spans kept since the last call.
  func drain() -> [Span] {
    roots.withLock { roots in
      defer { roots.pending = [] }
      return roots.pending
    }
  }
}
