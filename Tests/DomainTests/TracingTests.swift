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
  @Test("a singleton is the same instance on every request; a prototype a new one; both traced")
  func lifetimes() throws {
    // Given a factory whose workspace is in memory
    let factory = ApplicationFactory()
    factory.tracer.enable()
    #expect(!factory.isInstantiated("workspace"))

    // When a singleton and a prototype are each requested twice by name
    let firstWorkspace = try factory.make("workspace")
    let secondWorkspace = try factory.make("workspace")
    let firstController = try factory.make("persistenceController")
    let secondController = try factory.make("persistenceController")

    // Then the singleton is built once and shared, and each prototype request builds anew
    #expect(firstWorkspace.wasCreated && !secondWorkspace.wasCreated)
    #expect(firstWorkspace.identity == secondWorkspace.identity)
    #expect(firstController.identity != secondController.identity)
    #expect(factory.isInstantiated("workspace"))
    #expect(!factory.isInstantiated("persistenceController"))
    let traces = factory.tracer.drainCompleted().map {
      describe($0).map {
        $0.replacingOccurrences(of: #" \d+ms"#, with: "", options: .regularExpression)
      }
    }
    // The first request's construction is one span, not one inside another.
    #expect(
      traces == [
        ["ApplicationFactory.make workspace [lifetime=singleton instance=built]"],
        ["ApplicationFactory.make workspace [lifetime=singleton instance=shared]"],
        ["ApplicationFactory.make persistenceController [lifetime=prototype instance=built]"],
        ["ApplicationFactory.make persistenceController [lifetime=prototype instance=built]"],
      ])
  }

  @Test(
    "every product is built by its factory, and each construction asks only for what it declares")
  func everyProduct() async throws {
    // Off the cooperative pool: building the embedded API blocks until it listens, and the
    // server answers on the pool.
    try await offPool { try Self.buildEveryProduct() }
  }

  private static func buildEveryProduct() throws {
    // Given a factory with the embedded demo API and an in-memory workspace
    let factory = ApplicationFactory(
      configuration: ApplicationConfiguration(startEmbeddedAPI: { try EmbeddedDemo() }))
    let names = ApplicationFactory.components.map(\.name)
    #expect(Set(names).count == names.count)

    // When every product is requested, those built from an input through their accessors
    var built: [String: Any] = [:]
    for component in ApplicationFactory.components where component.obtain != nil {
      built[component.name] = try factory.make(component.name).instance
    }
    let plist = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("examples/Pods-acknowledgements.plist").path
    built["acknowParser"] = try factory.model.acknowParser(plistPath: plist)
    built["openDataSource"] = try factory.dataSource.library.create("fruit", sections: [])
    built["apiServiceClient"] = try factory.api.apiServiceClient(type: "User")
    try factory.api.repositoryStore.create(
      RepositoryDefinition(name: "r", path: "/p", ordering: .none, paging: .standard, limit: 5))
    built["repository"] = try factory.api.repository(named: "r")

    // Then every declared product was built, is of its declared type, and asked only for
    // products it declares as injected
    for component in ApplicationFactory.components {
      let instance = try #require(built[component.name], "\(component.name) was not built")
      let typeName = String(describing: type(of: instance))
      #expect(
        typeName == component.typeName || component.typeName.hasPrefix("ScreenController")
          || component.name == "embeddedAPI",
        "\(component.name) is a \(typeName), declared \(component.typeName)")
      let asked = factory.observedDependencies[component.name] ?? []
      #expect(
        asked.isSubset(of: Set(component.dependencies)),
        "\(component.name) asked for \(asked.sorted()), declares \(component.dependencies)")
      #expect(ApplicationFactory.factoryNames.contains(component.factory))
      for dependency in component.dependencies { #expect(names.contains(dependency)) }
    }
  }

  @Test("an unknown component is an error with a suggestion")
  func errors() throws {
    let factory = ApplicationFactory()
    #expect(throws: FactoryError.unknownComponent("tracr", suggestion: "tracer")) {
      try factory.make("tracr")
    }
    #expect(
      FactoryError.unknownComponent("tracr", suggestion: "tracer").description
        == "unknown component 'tracr' (did you mean 'tracer'?)")
    #expect(FactoryError.unknownComponent("tracr", suggestion: nil).subject == .component("tracr"))
  }

  @Test("suggestions: prefixes win, then small edit distances; far words get none")
  func suggestions() {
    #expect(Suggestion.nearest(to: "fac", among: ["factory", "trace"]) == "factory")
    #expect(Suggestion.nearest(to: "trcae", among: ["factory", "trace"]) == "trace")
    #expect(Suggestion.nearest(to: "zzzzz", among: ["factory", "trace"]) == nil)
    #expect(Suggestion.editDistance(Array("ab".unicodeScalars), Array("ba".unicodeScalars)) == 1)
  }
}

/// The demo API as the factory's embedded server (the shell makes the same conformance).
private final class EmbeddedDemo: EmbeddedAPIServer {
  let server: DemoAPI
  init() throws { server = try DemoAPI.start() }
  var baseURL: URL { server.baseURL }
  func stop() { server.stop() }
  func expireAccessTokens() -> Int { server.accounts.expireAccessTokens() }
  var accessTokenLifetime: Double {
    get { server.accounts.tokenLifetime }
    set { server.accounts.tokenLifetime = newValue }
  }
}
