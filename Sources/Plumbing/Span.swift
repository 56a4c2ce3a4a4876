import Foundation

/// One unit of work that a controller reports: which component did what, with which attributes,
/// and for how long.
///
/// Spans nest: a span opened while another is running becomes its child, so a command's spans
/// form a tree (ProductUpdater, then NetworkController under it, then PersistenceController).
/// The shape follows swift-distributed-tracing's `Span`, without its task-local context: each
/// thread's running spans are kept on a stack (`SpanStacks`).
public final class Span: @unchecked Sendable {
  // @unchecked: `stored*` are only used under `lock`; `isDetachedRoot` is set before it is shared.
  /// The controller or object that did the work, for example `ProductUpdater`.
  public let component: String
  /// What it did, for example `updateProduct` or `GET /products/42`.
  public let operation: String
  /// When the span started, in nanoseconds of the tracer's clock.
  public let startNanoseconds: UInt64

  /// False for the inert span handed out while tracing is off: it ignores every mutation.
  public let isRecording: Bool

  private let lock: NSLock
  private var storedAttributes: [(key: String, value: String)]
  private var storedEvents: [String] = []
  private var storedChildren: [Span] = []
  private var storedEnd: UInt64?
  private var storedFailure: String?
  /// Set by `Tracer.startSpan` for a span with no parent: ending it completes a root.
  var isDetachedRoot = false

  init(
    component: String, operation: String, attributes: [(key: String, value: String)],
    start: UInt64, lock: NSLock, isRecording: Bool = true
  ) {
    self.isRecording = isRecording
    self.component = component
    self.operation = operation
    self.storedAttributes = attributes
    self.startNanoseconds = start
    self.lock = lock
  }

  /// Key attributes in the order they were set, for example `status: 200`.
  public var attributes: [(key: String, value: String)] { lock.withLock { storedAttributes } }
  /// Things that happened during the span, such as delegate notifications.
  public var events: [String] { lock.withLock { storedEvents } }
  /// Spans opened while this one was running.
  public var children: [Span] { lock.withLock { storedChildren } }
  /// The error that ended the span, if it ended with one.
  public var failure: String? { lock.withLock { storedFailure } }
  /// How long the span ran, or nil while it is still running.
  public var durationNanoseconds: UInt64? {
    lock.withLock { storedEnd.map { $0 &- startNanoseconds } }
  }

  /// Sets or replaces an attribute.
  ///
  /// Disabled tracing makes this a no-op.
  public func setAttribute(_ key: String, _ value: String) {
    guard isRecording else { return }
    lock.withLock {
      if let index = storedAttributes.firstIndex(where: { $0.key == key }) {
        storedAttributes[index].value = value
      } else {
        storedAttributes.append((key, value))
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
    lock.withLock { storedEvents.append(text) }
  }

  /// The text that stands in for a secret value.
  public static let redacted = "<redacted>"

  func append(child: Span) { lock.withLock { storedChildren.append(child) } }
  func finish(at end: UInt64, failure: String?) {
    lock.withLock {
      storedEnd = end
      storedFailure = failure
    }
  }
}
