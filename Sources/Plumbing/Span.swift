import Foundation
import Synchronization

/// One unit of work that a controller reports: which component did what, with which attributes,
/// and for how long.
///
/// Spans nest: a span opened while another is running becomes its child, so a command's spans
/// form a tree (ProductUpdater, then NetworkController under it, then PersistenceController).
/// The shape follows swift-distributed-tracing's `Span`, without its task-local context: each
/// thread's running spans are kept on a stack (`SpanStacks`).
public final class Span: Sendable {
  /// The controller or object that did the work, for example `ProductUpdater`.
  public let component: String
  /// What it did, for example `updateProduct` or `GET /products/42`.
  public let operation: String
  /// When the span started, in nanoseconds of the tracer's clock.
  public let startNanoseconds: UInt64

  /// False for the inert span handed out while tracing is off: it ignores every mutation.
  public let isRecording: Bool
  /// The tracer's clock, which times events.
  private let clock: @Sendable () -> UInt64

  /// What changes while the span runs, and while its tree is read.
  private struct State {
    var attributes: [(key: String, value: String)]
    var events: [String] = []
    var eventTimes: [UInt64] = []
    var children: [Span] = []
    var end: UInt64?
    var failure: String?
    var isDetachedRoot = false
  }

  private let state: Mutex<State>

  init(
    component: String, operation: String, attributes: [(key: String, value: String)],
    start: UInt64, isRecording: Bool = true, clock: @escaping @Sendable () -> UInt64 = { 0 }
  ) {
    self.isRecording = isRecording
    self.clock = clock
    self.component = component
    self.operation = operation
    self.state = Mutex(State(attributes: attributes))
    self.startNanoseconds = start
  }

  /// Key attributes in the order they were set, for example `status: 200`.
  public var attributes: [(key: String, value: String)] { state.withLock { $0.attributes } }
  /// Things that happened during the span, such as delegate notifications.
  public var events: [String] { state.withLock { $0.events } }
  /// When each event happened, in nanoseconds of the tracer's clock, in the order of `events`.
  public var eventTimes: [UInt64] { state.withLock { $0.eventTimes } }
  /// Spans opened while this one was running.
  public var children: [Span] { state.withLock { $0.children } }
  /// The error that ended the span, if it ended with one.
  public var failure: String? { state.withLock { $0.failure } }
  /// How long the span ran, or nil while it is still running.
  public var durationNanoseconds: UInt64? {
    state.withLock { $0.end.map { $0 &- startNanoseconds } }
  }

  /// Set by `Tracer.startSpan` for a span with no parent: ending it completes a root.
  var isDetachedRoot: Bool {
    get { state.withLock { $0.isDetachedRoot } }
    set { state.withLock { $0.isDetachedRoot = newValue } }
  }

  /// Sets or replaces an attribute.
  ///
  /// Disabled tracing makes this a no-op.
  public func setAttribute(_ key: String, _ value: String) {
    guard isRecording else { return }
    state.withLock { state in
      if let index = state.attributes.firstIndex(where: { $0.key == key }) {
        state.attributes[index].value = value
      } else {
        state.attributes.append((key, value))
      }
    }
  }

  /// Records that an attribute exists without recording its value: passwords and tokens never
  /// reach a trace.
  public func setSecretAttribute(_ key: String) {
    setAttribute(key, Span.redacted)
  }

  /// Records something that happened during the span, for example `mutated(section: 2)`.
  public func addEvent(_ text: String) {
    guard isRecording else { return }
    let time = clock()
    state.withLock { state in
      state.events.append(text)
      state.eventTimes.append(time)
    }
  }

  /// The text that stands in for a secret value.
  public static let redacted = "<redacted>"

  func append(child: Span) { state.withLock { $0.children.append(child) } }
  func finish(at end: UInt64, failure: String?) {
    state.withLock { state in
      state.end = end
      state.failure = failure
    }
  }
}
