import DemoAPI
import Foundation
import Testing

@testable import Domain

/// A small controller in the seed's style, to prove the tracing and factory mechanisms: it reports
/// a span per operation, a nested call to a collaborator, and an event.
private final class GreetingController: @unchecked Sendable {
  let tracer: Tracing
  let punctuation: PunctuationController

  init(tracer: Tracing, punctuation: PunctuationController) {
    self.tracer = tracer
    self.punctuation = punctuation
  }

  func greet(_ name: String) throws -> String {
    try tracer.withSpan("GreetingController", "greet", attributes: [(key: "name", value: name)]) {
      span in
      guard !name.isEmpty else { throw GreetingError.emptyName }
      let mark = punctuation.mark()
      span.setAttribute("length", String(name.count + 7))
      tracer.event("GreetingController", "greeted(\(name))")
      return "Hello, \(name)\(mark)"
    }
  }
}

private final class PunctuationController: @unchecked Sendable {
  let tracer: Tracing
  init(tracer: Tracing) { self.tracer = tracer }
  func mark() -> String { tracer.withSpan("PunctuationController", "mark") { _ in "!" } }
}

private enum GreetingError: Error, CustomStringConvertible {
  case emptyName
  var description: String { "a greeting needs a name" }
}

/// A clock that advances one millisecond per reading, so durations are exact.
private final class SteppingClock: @unchecked Sendable {
  private let lock = NSLock()
  private var now: UInt64 = 0
  func read() -> UInt64 {
    lock.withLock {
      now += 1_000_000
      return now
    }
  }
}

/// The whole recorded tree, as text, for exhaustive comparisons.
func describe(_ span: Span, depth: Int = 0) -> [String] {
  let attributes = span.attributes.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
  var line = String(repeating: "  ", count: depth) + "\(span.component).\(span.operation)"
  if !attributes.isEmpty { line += " [\(attributes)]" }
  line += " \((span.durationNanoseconds ?? 0) / 1_000_000)ms"
  if let failure = span.failure { line += " failed(\(failure))" }
  var lines = [line]
  lines += span.events.map { String(repeating: "  ", count: depth + 1) + "~ \($0)" }
  for child in span.children { lines += describe(child, depth: depth + 1) }
  return lines
}

@Suite("Tracer")
struct TracingTests {
  @Test("nested spans form a tree with attributes, events and durations")
  func tree() throws {
    // Given a controller with a collaborator, and tracing on
    let clock = SteppingClock()
    let tracer = Tracer(clock: { clock.read() })
    let controller = GreetingController(
      tracer: tracer, punctuation: PunctuationController(tracer: tracer))
    tracer.enable()

    // When it does its work
    let greeting = try controller.greet("Ann")

    // Then the whole tree is recorded once, as one root
    #expect(greeting == "Hello, Ann!")
    let roots = tracer.drainCompleted()
    #expect(roots.count == 1)
    #expect(
      describe(roots[0]) == [
        // Four ticks of the stepping clock: the event's time is a reading too.
        "GreetingController.greet [name=Ann length=10] 4ms",
        "  ~ greeted(Ann)",
        "  PunctuationController.mark 1ms",
      ])
    #expect(tracer.drainCompleted().isEmpty)
    #expect(tracer.recorded.count == 1)
  }

  @Test("a span that throws records the failure and the error still propagates")
  func failure() {
    let clock = SteppingClock()
    let tracer = Tracer(clock: { clock.read() })
    let controller = GreetingController(
      tracer: tracer, punctuation: PunctuationController(tracer: tracer))
    tracer.enable()
    #expect(throws: GreetingError.self) { try controller.greet("") }
    #expect(
      describe(tracer.drainCompleted()[0]) == [
        "GreetingController.greet [name=] 1ms failed(a greeting needs a name)"
      ])
  }

  @Test("with tracing off, nothing is recorded and the work still happens")
  func disabled() throws {
    let tracer = Tracer()
    let controller = GreetingController(
      tracer: tracer, punctuation: PunctuationController(tracer: tracer))
    #expect(try controller.greet("Bo") == "Hello, Bo!")
    #expect(tracer.drainCompleted().isEmpty)
    #expect(tracer.recorded.isEmpty)
  }

  @Test("enabling again forgets earlier recordings; disabling keeps them for export")
  func lifecycle() throws {
    let tracer = Tracer()
    let controller = GreetingController(
      tracer: tracer, punctuation: PunctuationController(tracer: tracer))
    tracer.enable()
    _ = try controller.greet("A")
    tracer.disable()
    _ = try controller.greet("B")
    #expect(tracer.recorded.count == 1)
    tracer.enable()
    #expect(tracer.recorded.isEmpty)
  }

  @Test("secret attributes are recorded as redacted")
  func secrets() {
    let tracer = Tracer()
    tracer.enable()
    tracer.withSpan("OAuth2SessionManager", "tokenGrant") { span in
      span.setSecretAttribute("password")
    }
    #expect(tracer.recorded[0].attributes.map(\.value) == ["<redacted>"])
  }
}
