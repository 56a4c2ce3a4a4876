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
private func describe(_ span: Span, depth: Int = 0) -> [String] {
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
        "GreetingController.greet [name=Ann length=10] 3ms",
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

@Suite("ApplicationFactory")
struct FactoryTests {
  @Test("a singleton is built once on first use; a prototype on every request; both traced")
  func lifetimes() throws {
    // Given a factory with a singleton and a prototype that depends on it
    let factory = ApplicationFactory()
    var punctuationBuilds = 0
    try factory.register(
      FactoryComponent(
        name: "punctuation", typeName: "PunctuationController", lifetime: .singleton,
        summary: "marks")
    ) {
      punctuationBuilds += 1
      return PunctuationController(tracer: factory.tracer)
    }
    try factory.register(
      FactoryComponent(
        name: "greeting", typeName: "GreetingController", lifetime: .prototype,
        dependencies: ["punctuation"],
        summary: "greets")
    ) {
      let punctuation =
        (try? factory.singleton("punctuation", as: PunctuationController.self)) ?? nil
      return GreetingController(
        tracer: factory.tracer,
        punctuation: punctuation ?? PunctuationController(tracer: factory.tracer))
    }
    factory.tracer.enable()
    #expect(!factory.isInstantiated("punctuation"))

    // When the prototype is requested twice
    let first = try factory.make("greeting")
    let second = try factory.make("greeting")

    // Then two greeting controllers exist, sharing one punctuation controller built once
    let a = try #require(first.instance as? GreetingController)
    let b = try #require(second.instance as? GreetingController)
    #expect(a !== b)
    #expect(a.punctuation === b.punctuation)
    #expect(punctuationBuilds == 1)
    #expect(factory.isInstantiated("punctuation"))
    #expect(!factory.isInstantiated("greeting"))
    #expect(
      factory.components.map(\.name) == [
        "tracer", "workspace", "persistenceController", "punctuation", "greeting",
      ])
    let traces = factory.tracer.drainCompleted().map {
      describe($0).map {
        $0.replacingOccurrences(of: #" \d+ms"#, with: "", options: .regularExpression)
      }
    }
    #expect(
      traces == [
        [
          "ApplicationFactory.make greeting [lifetime=prototype instance=built]",
          "  ApplicationFactory.make punctuation [lifetime=singleton instance=built]",
        ],
        ["ApplicationFactory.make greeting [lifetime=prototype instance=built]"],
      ])
    let shared = try factory.make("punctuation")
    #expect(!shared.wasCreated)
  }

  @Test("unknown and duplicate components are errors with suggestions")
  func errors() throws {
    let factory = ApplicationFactory()
    #expect(throws: FactoryError.unknownComponent("tracr", suggestion: "tracer")) {
      try factory.make("tracr")
    }
    #expect(
      FactoryError.unknownComponent("tracr", suggestion: "tracer").description
        == "unknown component 'tracr' (did you mean 'tracer'?)")
    let component = FactoryComponent(
      name: "tracer", typeName: "Tracer", lifetime: .singleton, summary: "")
    #expect(throws: FactoryError.duplicateComponent("tracer")) {
      try factory.register(component) { 0 }
    }
  }

  @Test("suggestions: prefixes win, then small edit distances; far words get none")
  func suggestions() {
    #expect(Suggestion.nearest(to: "fac", among: ["factory", "trace"]) == "factory")
    #expect(Suggestion.nearest(to: "trcae", among: ["factory", "trace"]) == "trace")
    #expect(Suggestion.nearest(to: "zzzzz", among: ["factory", "trace"]) == nil)
    #expect(Suggestion.editDistance(Array("ab".unicodeScalars), Array("ba".unicodeScalars)) == 1)
  }
}
