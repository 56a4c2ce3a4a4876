import DemoAPI
import Foundation
import Plumbing
import Synchronization
import TestSupport
import Testing

@testable import Domain

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
    "every product is built by its factory as its declared type, and the dependencies recorded while building are exactly the expected ones"
  )
  func everyProduct() async throws {
    // Off the cooperative pool: building the embedded API blocks until it listens, and the
    // server answers on the pool.
    try await offPool { try Self.buildEveryProduct() }
  }

  /// The arrows the seeds themselves draw: what each of their objects is handed when it is made.
  ///
  /// Every product's whole list is reviewed where it is printed, `docs/factory-graph.txt`
  /// (`make docs`), so that a new product is one more line in a regenerated file; these are the
  /// arrows that must never go, whatever is added.
  static let seedArrows: [String: Set<String>] = [
    // Lickability (000/001): the updaters persist what NetworkController fetched.
    "productUpdater": ["persistenceController", "networkController"],
    "magazineIssueUpdater": ["persistenceController", "networkController"],
    // DataSourceController (002): a table view's data source is a DataSourceController.
    "tableViewProvider": ["dataSourceController"],
    "dataSourceController": ["productTranslator"],
    // BDModules (003): the session managers, the authorization that queues 401s, and the clients.
    "apiSessionManager": ["logger"],
    "oAuth2SessionManager": ["apiSessionManager"],
    "oAuth2Authorization": ["oAuth2SessionManager", "accountUserProvider"],
    "apiServiceClient": ["apiSessionManager", "oAuth2Authorization"],
    "userAPI": ["oAuth2SessionManager", "accountUserProvider", "apiServiceClient"],
    "repository": ["apiSessionManager", "oAuth2Authorization"],
    // MVC+C (004): each coordinator gets a navigation controller, each screen a table view.
    "appConfigurator": ["navigationController"],
    "loginFlowCoordinator": ["navigationController"],
    "discoverFlowCoordinator": ["navigationController"],
    "discoverController": ["tableViewProvider"],
  ]

  /// Each product the graph draws with dependencies, with them.
  static func drawnDependencies(_ graph: FactoryGraph) -> [String: Set<String>] {
    Dictionary(
      uniqueKeysWithValues: graph.nodes.filter { !$0.dependencies.isEmpty }.map {
        ($0.component.name, Set($0.dependencies))
      })
  }

  private static func buildEveryProduct() throws {
    // Given a factory with the embedded demo API and an in-memory workspace
    let factory = ApplicationFactory(
      configuration: ApplicationConfiguration(startEmbeddedAPI: { try EmbeddedDemo() }))
    let names = ApplicationFactory.components.map(\.name)
    #expect(Set(names).count == names.count)

    // When every product is built through its accessor (those built from an input, from a
    // made-up one)
    var built: [String: Any] = [:]
    for component in ApplicationFactory.components {
      built[component.name] = try component.sample(factory)
    }

    // Then each is of its declared type, and the dependencies the core recorded while building
    // them are exactly the expected ones: none missing, none more
    for component in ApplicationFactory.components {
      let instance = try #require(built[component.name], "\(component.name) was not built")
      let typeName = String(describing: type(of: instance))
      #expect(
        typeName == component.typeName || component.name == "embeddedAPI",
        "\(component.name) is a \(typeName), declared \(component.typeName)")
      #expect(ApplicationFactory.factoryNames.contains(component.factory))
      #expect(factory.constructionCount(component.name) >= 1, "\(component.name) never built")
    }
    // and what the core recorded while building them is what the graph's survey draws, and
    // holds the seeds' own arrows
    let recorded = factory.resolvedDependencies
    let surveyed = Self.drawnDependencies(ApplicationFactory().graph())
    #expect(recorded == surveyed)
    for (name, arrows) in Self.seedArrows {
      #expect(
        arrows.isSubset(of: recorded[name, default: []]),
        "\(name) resolved \(recorded[name, default: []].sorted()), the seeds draw \(arrows.sorted())"
      )
    }
    #expect(factory.components.map(\.typeName).contains("ScreenController<DiscoverEvent>"))
    #expect(
      ApplicationFactory.components.first { $0.name == "embeddedAPI" }?.typeName
        == "EmbeddedAPIServer")
  }

  @Test(
    "factory graph's dependencies are recorded by building every product in a scratch root, plus what this session built"
  )
  func graphIsSurveyed() throws {
    // Given a fresh factory that has built nothing but its tracer
    let factory = ApplicationFactory()

    // When its graph is drawn
    let graph = factory.graph()

    // Then the scratch root built every product, and its records are the expected dependencies
    #expect(graph.unbuilt.map(\.name).isEmpty, "\(graph.unbuilt)")
    let drawn = Self.drawnDependencies(graph)
    for (name, arrows) in Self.seedArrows {
      #expect(arrows.isSubset(of: drawn[name, default: []]), "\(name) lacks \(arrows)")
    }
    #expect(graph.nodes.map(\.component.name) == ApplicationFactory.components.map(\.name))
    // and nothing was built in this session but the tracer it holds
    #expect(graph.nodes.filter { $0.constructions > 0 }.map(\.component.name) == ["tracer"])
    #expect(!factory.isInstantiated("workspace"))

    // When the session builds a coordinator, twice
    let dependencies = try factory.appDependencies
    _ = factory.main.discoverFlowCoordinator(dependencies: dependencies)
    _ = factory.main.discoverFlowCoordinator(dependencies: dependencies)
    let after = factory.graph()
    func constructions(_ name: String) -> Int? {
      after.nodes.first { $0.component.name == name }?.constructions
    }

    // Then the graph counts them, and their navigation controllers, and the singletons built
    #expect(constructions("discoverFlowCoordinator") == 2)
    #expect(constructions("navigationController") == 2)
    #expect(constructions("appDependencies") == 1 && constructions("navigationLog") == 1)
    #expect(constructions("appDelegate") == 0)
  }

  @Test("with --api the survey builds no embedded API, and the network controller does not need it")
  func graphUnderAnotherAPI() {
    let factory = ApplicationFactory(
      configuration: ApplicationConfiguration(apiURL: "http://127.0.0.1:9"))
    let graph = factory.graph()
    #expect(graph.unbuilt.map(\.name) == ["embeddedAPI"])
    let network = graph.nodes.first { $0.component.name == "networkController" }
    #expect(network?.dependencies == [])
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

/// What one product is built as, in the test below.
private final class SharedBox: Sendable {}

@Suite("The factory core under concurrent requests")
struct FactoryCoreConcurrencyTests {
  @Test("a singleton that eight threads ask for first, at once, is built once, and all get it")
  func singletonBuiltOnce() {
    let core = FactoryCore(tracer: Tracer())
    let declaration = ComponentDeclaration<SharedBox>(
      "concurrencyTestBox", of: FactoryCoreConcurrencyTests.self, .singleton, from: .archsh,
      "a product asked for from eight threads"
    ) { _ in SharedBox() }
    let start = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    let got = Mutex<[ObjectIdentifier]>([])
    for _ in 0..<8 {
      done.enter()
      Thread {
        start.wait()
        // A builder that takes a while, as one that opens a file or starts a server does.
        let box = try? core.singleton(declaration) {
          Thread.sleep(forTimeInterval: 0.05)
          return SharedBox()
        }
        if let box { got.withLock { $0.append(ObjectIdentifier(box)) } }
        done.leave()
      }.start()
    }
    for _ in 0..<8 { start.signal() }
    done.wait()
    let identities = got.withLock { $0 }
    #expect(identities.count == 8)
    #expect(Set(identities).count == 1)
    #expect(core.constructionCount("concurrencyTestBox") == 1)
  }
}
