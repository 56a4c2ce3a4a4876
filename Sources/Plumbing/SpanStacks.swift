import Foundation
import Synchronization

/// The spans running on each thread, innermost last, built only while someone reads spans.
///
/// A span opened while another runs on the same thread becomes its child; one opened with no
/// span running is a root, and `rootEnded` gets it, with its whole tree, when it ends. While
/// `isEnabled` answers false nothing is built: `withSpan` runs its body with a shared inert span,
/// so a span costs one call of `isEnabled`.
public final class SpanStacks: Sendable {
  private let stacks = Mutex<[ObjectIdentifier: [Span]]>([:])
  @usableFromInline let inert: Span
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

  /// Forgets every running span, once nobody reads spans any more.
  public func forgetRunning() {
    stacks.withLock { $0 = [:] }
  }

  /// Runs `body` inside a span named after `component` and `operation`; `attributes` are made
  /// only while spans are built.
  @inlinable
  public func withSpan<T>(
    _ component: String, _ operation: String,
    attributes: () -> [(key: String, value: String)], _ body: (Span) throws -> T
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
    attributes: () -> [(key: String, value: String)], _ body: (Span) async throws -> T
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

  /// Records an event on this thread's innermost running span, or as a zero-length root span.
  public func event(_ component: String, _ text: String) {
    let thread = Self.currentThread
    guard isEnabled() else { return }
    if let target = stacks.withLock({ $0[thread]?.last }) {
      target.addEvent(text)
    } else {
      withSpan(component, "event", attributes: { [] }, { $0.addEvent(text) })
    }
  }

  /// Runs `body` on this thread with `parent` as its innermost span, so that spans `body` opens
  /// become its children: work handed to another thread stays in the tree it belongs to.
  public func withParent<T>(_ parent: Span?, _ body: () throws -> T) rethrows -> T {
    guard let parent, parent.isRecording else { return try body() }
    let thread = Self.currentThread
    stacks.withLock { $0[thread, default: []].append(parent) }
    defer {
      stacks.withLock { stacks in
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
    _ component: String, _ operation: String, attributes: [(key: String, value: String)],
    parent: Span?
  ) -> Span {
    let thread = Self.currentThread
    guard isEnabled() else { return inert }
    let span = Span(
      component: component, operation: operation, attributes: attributes, start: clock())
    let owner = parent.flatMap { $0.isRecording ? $0 : nil } ?? stacks.withLock { $0[thread]?.last }
    if let owner { owner.append(child: span) } else { span.isDetachedRoot = true }
    return span
  }

  /// Ends a span from `startSpan`; a span without a parent becomes a completed root.
  public func endSpan(_ span: Span, failure: String?) {
    guard span.isRecording else { return }
    span.finish(at: clock(), failure: failure)
    guard span.isDetachedRoot else { return }
    rootEnded(span)
  }

  private static var currentThread: ObjectIdentifier { ObjectIdentifier(Thread.current) }

  @usableFromInline
  func open(
    _ component: String, _ operation: String, _ attributes: () -> [(key: String, value: String)]
  ) -> Span? {
    guard isEnabled() else { return nil }
    let span = Span(
      component: component, operation: operation, attributes: attributes(), start: clock())
    let thread = Self.currentThread
    stacks.withLock { stacks in
      stacks[thread]?.last?.append(child: span)
      stacks[thread, default: []].append(span)
    }
    return span
  }

  @usableFromInline
  func close(_ span: Span, failure: String?) {
    span.finish(at: clock(), failure: failure)
    let thread = Self.currentThread
    let isRoot: Bool = stacks.withLock { stacks in
      guard var stack = stacks[thread], let index = stack.lastIndex(where: { $0 === span }) else {
        return false
      }
      stack.removeSubrange(index...)
      stacks[thread] = stack.isEmpty ? nil : stack
      return index == 0
    }
    if isRoot { rootEnded(span) }
  }
}
