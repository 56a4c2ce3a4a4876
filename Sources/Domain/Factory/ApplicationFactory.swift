import Foundation

/// What the composition root is built with: where the workspace lives and which API to talk to.
public struct ApplicationConfiguration: Sendable {
  /// The workspace: a file path, or `:memory:`.
  public var databasePath: String
  /// Another server for the networking controllers (`--api URL`); nil starts the embedded API.
  public var apiURL: String?
  /// Starts the embedded demo API when a controller first needs the network and `apiURL` is nil.
  public var startEmbeddedAPI: (@Sendable () throws -> EmbeddedAPIServer)?

  /// Creates a configuration.
  public init(
    databasePath: String = ":memory:", apiURL: String? = nil,
    startEmbeddedAPI: (@Sendable () throws -> EmbeddedAPIServer)? = nil
  ) {
    self.databasePath = databasePath
    self.apiURL = apiURL
    self.startEmbeddedAPI = startEmbeddedAPI
  }
}

/// The composition root, after BDModules' ApplicationFactory: it creates the other factories and,
/// through them, every controller the shell drives.
///
/// As in BDModules, a singleton is a property, built on first use and shared; a prototype is a
/// method that builds a new object on every call. Each product's scope is declared once, in its
/// `FactoryComponent`, next to the accessor that builds it; `factory list` and `factory graph`
/// read those declarations. A singleton's construction is reported to the tracer under the name
/// of the factory that built it.
public final class ApplicationFactory: @unchecked Sendable {
  let core: FactoryCore
  /// What the factory was built with.
  public let configuration: ApplicationConfiguration

  /// Creates the root; nothing is built until it is asked for.
  public init(configuration: ApplicationConfiguration, tracer: Tracer = Tracer()) {
    self.core = FactoryCore(tracer: tracer)
    self.configuration = configuration
    core.hold(Self.tracerComponent.name, tracer)
  }

  /// Creates a root for the workspace at `databasePath` (in memory by default).
  public convenience init(tracer: Tracer = Tracer(), databasePath: String = ":memory:") {
    self.init(configuration: ApplicationConfiguration(databasePath: databasePath), tracer: tracer)
  }

  /// Stops what the factories started (the embedded API) when the root goes away.
  deinit {
    core.existing(APIFactory.embeddedAPIComponent.name, as: EmbeddedAPIServer.self)?.stop()
  }

  /// Where the workspace lives: a file path, or `:memory:`.
  public var databasePath: String { configuration.databasePath }

  // MARK: - The factories

  /// NetworkController, the updaters and the API services.
  public private(set) lazy var api = APIFactory(root: self)
  /// Decoding and mapping: the translator and the parsers.
  public private(set) lazy var model = ModelFactory(root: self)
  /// JSON encoding and decoding.
  public private(set) lazy var json = JSONFactory(root: self)
  /// The data sources the shell opens, and their delegates.
  public private(set) lazy var dataSource = DataSourceFactory(root: self)
  /// The MVC+C app's login flow.
  public private(set) lazy var entry = EntryFactory(root: self)
  /// The MVC+C app's main flow.
  public private(set) lazy var main = MainFactory(root: self)

  /// The factories under the root, in the order `factory graph` draws them.
  public static let factoryNames = [
    "ApplicationFactory", "APIFactory", "ModelFactory", "JSONFactory", "DataSourceFactory",
    "EntryFactory", "MainFactory",
  ]

  /// Every product of every factory, in the order `factory list` shows them.
  public static let components: [FactoryComponent] =
    ownComponents + APIFactory.components + ModelFactory.components + JSONFactory.components
    + DataSourceFactory.components + EntryFactory.components + MainFactory.components

  /// Every product, as `components`.
  public var components: [FactoryComponent] { Self.components }

  // MARK: - Requests by name

  /// Whether a singleton has been built yet; prototypes are never held, so this is false for them.
  public func isInstantiated(_ name: String) -> Bool { core.isBuilt(name) }

  /// The product named `name`, built if it is a prototype or a singleton not yet built, as
  /// `factory get` asks for it; the request is traced with whether it built or shared.
  public func make(_ name: String) throws -> FactoryProduct {
    guard let component = Self.components.first(where: { $0.name == name }) else {
      throw FactoryError.unknownComponent(
        name, suggestion: Suggestion.nearest(to: name, among: Self.components.map(\.name)))
    }
    guard let obtain = component.obtain else {
      throw FactoryError.needsInput(name, input: component.input ?? "an input")
    }
    // A singleton's first construction is traced where every singleton is built, by the core;
    // a span here too would show that construction twice, one inside the other.
    if component.lifetime == .singleton, !core.isBuilt(name) {
      return product(component, instance: try obtain(self), wasCreated: true)
    }
    let attributes = [(key: "lifetime", value: component.lifetime.rawValue)]
    return try tracer.withSpan(component.factory, "make \(name)", attributes: attributes) { span in
      let wasBuilt = core.isBuilt(name)
      let instance = try obtain(self)
      let created = component.lifetime == .prototype || !wasBuilt
      span.setAttribute("instance", created ? "built" : "shared")
      return product(component, instance: instance, wasCreated: created)
    }
  }

  private func product(_ component: FactoryComponent, instance: Any, wasCreated: Bool)
    -> FactoryProduct
  {
    FactoryProduct(
      component: component, instance: instance, wasCreated: wasCreated,
      identity: identity(of: instance))
  }

  /// The number of an instance handed out by `make`; the instances are kept, so that a number
  /// is never reused for another object.
  private func identity(of instance: Any) -> String {
    let object = instance as AnyObject
    return identityLock.withLock {
      if let index = handedOut.firstIndex(where: { $0 === object }) { return "#\(index + 1)" }
      handedOut.append(object)
      return "#\(handedOut.count)"
    }
  }

  private let identityLock = NSLock()
  private var handedOut: [AnyObject] = []

  /// What each product's construction requested from the factories, for the test that keeps the
  /// declared dependencies true.
  public var observedDependencies: [String: Set<String>] { core.observedDependencies }

  // MARK: - The root's own products

  static let tracerComponent = FactoryComponent(
    "tracer", factory: "ApplicationFactory", type: "Tracer", .singleton,
    summary: "records the spans that controllers report"
  ) { $0.tracer }

  static let workspaceComponent = FactoryComponent(
    "workspace", factory: "ApplicationFactory", type: "Workspace", .singleton,
    summary: "the SQLite workspace (WAL, busy timeout 5 s), opened on first use"
  ) { try $0.workspace }

  static let persistenceControllerComponent = FactoryComponent(
    "persistenceController", factory: "ApplicationFactory", type: "PersistenceController",
    .prototype, dependencies: ["workspace"],
    summary:
      "persists and retrieves keys in one store, with PINCache's semantics (generalCache here)"
  ) {
    try $0.persistenceController(identifier: PersistenceController.Identifier.generalCache.rawValue)
  }

  static let navigationLogComponent = FactoryComponent(
    "navigationLog", factory: "ApplicationFactory", type: "NavigationLog", .singleton,
    summary: "where coordinators and presenters record what they do"
  ) { try $0.navigationLog }

  static let appDependenciesComponent = FactoryComponent(
    "appDependencies", factory: "ApplicationFactory", type: "AppDependencies", .singleton,
    dependencies: ["navigationLog", "mediaLibrary", "sessionStore", "favouritesStore"],
    summary: "what coordinators inject into the presenters they have built"
  ) { try $0.appDependencies }

  static let appStateStoreComponent = FactoryComponent(
    "appStateStore", factory: "ApplicationFactory", type: "AppStateStore", .singleton,
    dependencies: ["workspace"], summary: "saves the app's flow, tab, alert and stacks"
  ) { try $0.appStateStore }

  static let appConfiguratorComponent = FactoryComponent(
    "appConfigurator", factory: "ApplicationFactory", type: "AppConfigurator", .prototype,
    dependencies: ["appDependencies"],
    summary: "the root coordinator: chooses the login or the main flow"
  ) { try $0.appConfigurator() }

  static let alertControllerComponent = FactoryComponent.app(
    "alertController", factory: "ApplicationFactory", type: "ScreenController<AlertEvent>",
    summary: "the alert AppConfigurator presents over every screen"
  ) { $0.alertController(dependencies: $1, error: .network) { _ in } }

  static let appDelegateComponent = FactoryComponent(
    "appDelegate", factory: "ApplicationFactory", type: "AppDelegate", .singleton,
    dependencies: ["appDependencies", "appStateStore"],
    summary: "keeps the running AppConfigurator, restores and saves its state"
  ) { try $0.appDelegate }

  static let ownComponents = [
    tracerComponent, workspaceComponent, persistenceControllerComponent, navigationLogComponent,
    appDependenciesComponent, appStateStoreComponent, appConfiguratorComponent,
    alertControllerComponent, appDelegateComponent,
  ]

  /// The tracer every controller reports to.
  public var tracer: Tracer { core.tracer }

  /// The workspace, opened on first use; the shell starts without touching the database.
  public var workspace: Workspace {
    get throws {
      let path = databasePath
      return try core.singleton(Self.workspaceComponent) { try Workspace(path: path) }
    }
  }

  /// A PersistenceController for the store `identifier`: a prototype, as in BDModules, sharing the
  /// workspace.
  public func persistenceController(identifier: String) throws -> PersistenceController {
    try core.prototype(Self.persistenceControllerComponent) {
      PersistenceController(identifier: identifier, workspace: try workspace, tracer: tracer)
    }
  }

  /// A PersistenceController for one of the seed's stores.
  public func persistenceController(_ identifier: PersistenceController.Identifier) throws
    -> PersistenceController
  {
    try persistenceController(identifier: identifier.rawValue)
  }

  /// Where the app's coordinators and presenters record what they do.
  public var navigationLog: NavigationLog {
    get throws { try core.singleton(Self.navigationLogComponent) { NavigationLog(tracer: tracer) } }
  }

  /// What the app's coordinators and presenters are built with.
  public var appDependencies: AppDependencies {
    get throws {
      try core.singleton(Self.appDependenciesComponent) {
        AppDependencies(
          log: try navigationLog, mediaLibrary: try main.mediaLibrary,
          sessionStore: try entry.sessionStore, favourites: try main.favouritesStore,
          entry: entry, main: main, root: self)
      }
    }
  }

  /// Saves and loads the app's state in the workspace.
  public var appStateStore: AppStateStore {
    get throws {
      try core.singleton(Self.appStateStoreComponent) { AppStateStore(workspace: try workspace) }
    }
  }

  /// A new root coordinator.
  public func appConfigurator() throws -> AppConfigurator {
    try core.prototype(Self.appConfiguratorComponent) {
      AppConfigurator(dependencies: try appDependencies)
    }
  }

  /// A new alert controller, whose events go to `eventHandler`.
  public func alertController(
    dependencies: AppDependencies, error: AppError, eventHandler: @escaping (AlertEvent) -> Void
  ) -> ScreenControlling {
    core.screenController(Self.alertControllerComponent, .alert(error)) {
      AlertPresenter(error: error, dependencies: dependencies, eventHandler: eventHandler)
    }
  }

  /// The app's delegate: it keeps the running root coordinator.
  public var appDelegate: AppDelegate {
    get throws {
      try core.singleton(Self.appDelegateComponent) {
        AppDelegate(dependencies: try appDependencies, stateStore: try appStateStore) {
          [unowned self] in try self.appConfigurator()
        }
      }
    }
  }

  /// The app delegate if it has been built, without building it (for completion).
  public var builtAppDelegate: AppDelegate? {
    core.existing(Self.appDelegateComponent.name, as: AppDelegate.self)
  }

  /// The log book if it has been built, without building it or its factory (the shell writes
  /// it out after each command).
  public var builtLogBook: LogBook? {
    core.existing(APIFactory.logBookComponent.name, as: LogBook.self)
  }

  /// Writes what is held in memory (log lines, the access times of recent reads) before the
  /// process ends.
  public func shutdown() {
    try? builtLogBook?.flush()
    guard let workspace = core.existing(Self.workspaceComponent.name, as: Workspace.self) else {
      return
    }
    try? workspace.flushPendingTouches()
  }
}
