import Foundation

/// The spans running, innermost last, built only while someone reads spans.
///
/// The innermost running span is a task-local value: a span opened while another runs in the same
/// thread or task becomes its child, whichever thread that is, and a task that suspends keeps its
/// span across the suspension. One opened with no span running is a root, and `rootEnded` gets
/// it, with its whole tree, when it ends. While `isEnabled` answers false nothing is built:
/// `withSpan` runs its body with a shared inert span, so a span costs one call of `isEnabled`.
public final class SpanStacks: Sendable {
  /// The innermost running span, and the stacks it belongs to (a session's tracer; another
  /// session's spans are not this one's parents).
  private struct Running: Sendable {
    let owner: ObjectIdentifier
    let span: Span
  }

  /// The innermost running span of this thread or task.
  @TaskLocal private static var running: Running?

  private let inert: Span
  private let clock: @Sendable () -> UInt64
  private let isEnabled: @Sendable () -> Bool
  private let rootEnded: @Sendable (Span) -> Void

  /// Stacks whose clock returns monotonic nanoseconds, that build spans while `isEnabled` answers
  /// true, and hand each root that ends to `rootEnded`.
  public init(
    clock: @escaping @Sendable () -> UInt64, isEnabled: @escaping @Sendable () -> Bool,
    rootEnded: @escaping @Sendable (Span) -> Void
  ) {
    self.clock = clock
    self.isEnabled = isEnabled
    self.rootEnded = rootEnded
    inert = Span(
      component: "", operation: "", attributes: [], start: 0, isRecording: false)
  }

  /// This stacks' innermost running span here, if any.
  private var current: Span? {
    guard let running = Self.running, running.owner == ObjectIdentifier(self) else { return nil }
    return running.span
  }

  /// Runs `body` inside a span named after `component` and `operation`; `attributes` are made
  /// only while spans are built.
  public func withSpan<T>(
    _ component: String, _ operation: String,
    attributes: () -> [(key: String, value: String)], _ body: (Span) throws -> T
  ) rethrows -> T {
    guard let span = open(component, operation, attributes) else { return try body(inert) }
    do {
      let result = try Self.$running.withValue(Running(owner: ObjectIdentifier(self), span: span)) {
        try body(span)
      }
      close(span, failure: nil)
      return result
    } catch {
      close(span, failure: String(describing: error))
      throw error
    }
  }

  /// Records an event on the innermost running span, or as a zero-length root span.
  public func event(_ component: String, _ text: String) {
    guard isEnabled() else { return }
    if let target = current {
      target.addEvent(text)
    } else {
      withSpan(component, "event", attributes: { [] }, { $0.addEvent(text) })
    }
  }

  /// Runs `body` with `parent` as its innermost span, so that spans `body` opens become its
  /// children: work handed to another thread stays in the tree it belongs to.
  public func withParent<T>(_ parent: Span?, _ body: () throws -> T) rethrows -> T {
    guard let parent, parent.isRecording else { return try body() }
    return try Self.$running.withValue(Running(owner: ObjectIdentifier(self), span: parent)) {
      try body()
    }
  }

  /// Starts a span that ends with `endSpan` rather than with a closure, for work that completes
  /// on another thread (a request in flight); its parent is `parent`, else the innermost running
  /// span.
  ///
  /// The span is not made current: spans opened meanwhile do not nest in it.
  public func startSpan(
    _ component: String, _ operation: String, attributes: [(key: String, value: String)],
    parent: Span?
  ) -> Span {
    guard isEnabled() else { return inert }
    let span = Span(
      component: component, operation: operation, attributes: attributes, start: clock(),
      clock: clock)
    let owner = parent.flatMap { $0.isRecording ? $0 : nil } ?? current
    if let owner { owner.append(child: span) } else { span.isDetachedRoot = true }
    return span
  }

  /// Ends a span from `startSpan` or `withSpan`; a span without a parent becomes a completed
  /// root.
  public func endSpan(_ span: Span, failure: String?) {
    guard span.isRecording else { return }
    span.finish(at: clock(), failure: failure)
    guard span.isDetachedRoot else { return }
    rootEnded(span)
  }

  private func open(
    _ component: String, _ operation: String, _ attributes: () -> [(key: String, value: String)]
  ) -> Span? {
    guard isEnabled() else { return nil }
    let span = Span(
      component: component, operation: operation, attributes: attributes(), start: clock(),
      clock: clock)
    if let parent = current { parent.append(child: span) } else { span.isDetachedRoot = true }
    return span
  }

  private func close(_ span: Span, failure: String?) {
    endSpan(span, failure: failure)
  }
}
