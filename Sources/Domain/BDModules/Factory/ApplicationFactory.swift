import Foundation
import Plumbing
import Runtime
import Synchronization

/// The composition root, after BDModules' ApplicationFactory: it creates the other factories and,
/// through them, every controller the shell drives.
///
/// As in BDModules, a singleton is a property, built on first use and shared; a prototype is a
/// method that builds a new object on every call. Each product is declared once, typed by what it
/// builds (`ComponentDeclaration`), next to the accessor that builds through it; `factory list`
/// reads those declarations. What each product is injected with is not declared: the core records
/// what its builder resolves, and `factory graph` draws that (`graph()`). A singleton's
/// construction is reported to the tracer under the name of the factory that built it.
public final class ApplicationFactory: Sendable {
  let core: FactoryCore
  /// What the factory was built with.
  public let configuration: ApplicationConfiguration

  /// Creates the root; nothing is built until it is asked for.
  public init(configuration: ApplicationConfiguration, tracer: Tracer = Tracer()) {
    self.core = FactoryCore(tracer: tracer)
    self.configuration = configuration
    core.hold(Self.tracerComponent, tracer)
    tracer.events.subscribe(networkLog, to: .http)
  }

  /// `net log`'s reader of the event stream.
  public let networkLog = NetworkLog()

  /// Creates a root for the workspace at `databasePath` (in memory by default).
  public convenience init(tracer: Tracer = Tracer(), databasePath: String = ":memory:") {
    self.init(configuration: ApplicationConfiguration(databasePath: databasePath), tracer: tracer)
  }

  /// Stops what the factories started (the embedded API) when the root goes away.
  deinit {
    core.existing(APIFactory.embeddedAPIComponent)?.stop()
  }

  /// Where the workspace lives: a file path, or `:memory:`.
  public var databasePath: String { configuration.databasePath }

  // MARK: - The factories

  /// NetworkController, the updaters and the API services.
  public var api: APIFactory { factories.api }
  /// Decoding and mapping: the translator and the parsers.
  public var model: ModelFactory { factories.model }
  /// JSON encoding and decoding.
  public var json: JSONFactory { factories.json }
  /// The data sources the shell opens, and their delegates.
  public var dataSource: DataSourceFactory { factories.dataSource }
  /// The MVC+C app's login flow.
  public var entry: EntryFactory { factories.entry }
  /// The MVC+C app's main flow.
  public var main: MainFactory { factories.main }

  /// The factories the root creates, each once, on first use (lazy vars in BDModules).
  private struct Factories: Sendable {
    let api: APIFactory
    let model: ModelFactory
    let json: JSONFactory
    let dataSource: DataSourceFactory
    let entry: EntryFactory
    let main: MainFactory

    init(root: ApplicationFactory) {
      api = APIFactory(root: root)
      model = ModelFactory(root: root)
      json = JSONFactory(root: root)
      dataSource = DataSourceFactory(root: root)
      entry = EntryFactory(root: root)
      main = MainFactory(root: root)
    }
  }

  private let made = Mutex<Factories?>(nil)

  private var factories: Factories {
    made.withLock { made in
      if let factories = made { return factories }
      let factories = Factories(root: self)
      made = factories
      return factories
    }
  }

  /// The factories under the root, in the order `factory graph` draws them.
  public static let factoryNames: [String] =
    ([
      ApplicationFactory.self, APIFactory.self, ModelFactory.self, JSONFactory.self,
      DataSourceFactory.self, EntryFactory.self, MainFactory.self,
    ] as [Any.Type]).map { _typeName($0, qualified: false) }

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
    let key = ObjectIdentifier(object)
    let (number, isNew) = handedOut.withLock { handedOut in
      if let index = handedOut.firstIndex(of: key) { return (index + 1, false) }
      handedOut.append(key)
      return (handedOut.count, true)
    }
    // Kept for the session's life, so that its number is never another object's.
    if isNew { _ = Unmanaged.passRetained(object) }
    return "#\(number)"
  }

  private let handedOut = Mutex<[ObjectIdentifier]>([])

  /// What each product's builders resolved through the factories in this session, by product.
  public var resolvedDependencies: [String: Set<String>] { core.resolvedDependencies }

  /// How many times this session has built the product named `name`: 0 or 1 for a singleton
  /// (more after a re-pointed API or a relaunch), one per request for a prototype.
  public func constructionCount(_ name: String) -> Int { core.constructionCount(name) }

  // MARK: - The root's own products

  static let tracerComponent = ComponentDeclaration<Tracer>(
    "tracer", of: ApplicationFactory.self, .singleton, from: .archsh,
    "records the spans that controllers report"
  ) { $0.tracer }

  static let workspaceComponent = ComponentDeclaration<Workspace>(
    "workspace", of: ApplicationFactory.self, .singleton, from: .archsh,
    "the SQLite workspace (WAL, busy timeout 5 s), opened on first use"
  ) { try $0.workspace }

  static let persistenceControllerComponent = ComponentDeclaration<PersistenceController>(
    "persistenceController", of: ApplicationFactory.self, .prototype, from: .lickability,
    "persists and retrieves keys in one store, with PINCache's semantics (generalCache here)"
  ) {
    try $0.persistenceController(identifier: PersistenceController.Identifier.generalCache.rawValue)
  }

  static let navigationLogComponent = ComponentDeclaration<NavigationLog>(
    "navigationLog", of: ApplicationFactory.self, .singleton, from: .archsh,
    "where coordinators and presenters record what they do"
  ) { try $0.navigationLog }

  static let appDependenciesComponent = ComponentDeclaration<AppDependencies>(
    "appDependencies", of: ApplicationFactory.self, .singleton, from: .archsh,
    "what coordinators inject into the presenters they have built"
  ) { try $0.appDependencies }

  static let appStateStoreComponent = ComponentDeclaration<AppStateStore>(
    "appStateStore", of: ApplicationFactory.self, .singleton, from: .archsh,
    "saves the app's flow, tab, alert and stacks"
  ) { try $0.appStateStore }

  static let appConfiguratorComponent = ComponentDeclaration<AppConfigurator>(
    "appConfigurator", of: ApplicationFactory.self, .prototype, from: .mvcc,
    "the root coordinator: chooses the login or the main flow"
  ) { try $0.appConfigurator() }

  static let navigationControllerComponent = ComponentDeclaration<NavigationController>(
    "navigationController", of: ApplicationFactory.self, .prototype, from: .mvcc,
    "a coordinator's stack of screens, and the one presented over it (UINavigationController)"
  ) { root in
    root.navigationController(owner: "NavigationController", log: try root.navigationLog)
  }

  static let alertControllerComponent = ComponentDeclaration<ScreenController<AlertEvent>>.app(
    "alertController", of: ApplicationFactory.self,
    "the alert AppConfigurator presents over every screen"
  ) { $0.alertController(dependencies: $1, error: .network) { _ in } }

  static let appDelegateComponent = ComponentDeclaration<AppDelegate>(
    "appDelegate", of: ApplicationFactory.self, .singleton, from: .mvcc,
    "keeps the running AppConfigurator, restores and saves its state"
  ) { try $0.appDelegate }

  static let ownComponents = [
    tracerComponent.component, workspaceComponent.component,
    persistenceControllerComponent.component, navigationLogComponent.component,
    appDependenciesComponent.component, appStateStoreComponent.component,
    appConfiguratorComponent.component, navigationControllerComponent.component,
    alertControllerComponent.component, appDelegateComponent.component,
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
      try core.singleton(Self.appStateStoreComponent) {
        AppStateStore(workspace: try workspace, decoder: json.decoder(), encoder: json.encoder())
      }
    }
  }

  /// A new root coordinator.
  public func appConfigurator() throws -> AppConfigurator {
    try core.prototype(Self.appConfiguratorComponent) {
      AppConfigurator(dependencies: try appDependencies)
    }
  }

  /// A new navigation controller for the coordinator `owner`, recording in `log`.
  public func navigationController(owner: String, log: NavigationLog) -> NavigationController {
    core.prototype(Self.navigationControllerComponent) {
      NavigationController(owner: owner, log: log)
    }
  }

  /// A new alert controller, whose events go to `eventHandler`.
  public func alertController(
    dependencies: AppDependencies, error: AppError, eventHandler: @escaping (AlertEvent) -> Void
  ) -> ScreenController<AlertEvent> {
    core.screenController(Self.alertControllerComponent, .alert(error), providers: dataSource) {
      AlertPresenter(error: error, dependencies: dependencies, eventHandler: eventHandler)
    }
  }

  /// The app's delegate: it keeps the running root coordinator.
  public var appDelegate: AppDelegate {
    get throws {
      try core.singleton(Self.appDelegateComponent) {
        AppDelegate(
          dependencies: try appDependencies, stateStore: try appStateStore,
          makeConfigurator: core.provider(of: Self.appConfiguratorComponent) {
            [unowned self] in try self.appConfigurator()
          })
      }
    }
  }

  /// The app delegate if it has been built, without building it (for completion).
  public var builtAppDelegate: AppDelegate? {
    core.existing(Self.appDelegateComponent)
  }

  /// The log book if it has been built, without building it or its factory (the shell writes
  /// it out after each command).
  public var builtLogBook: LogBook? {
    core.existing(APIFactory.logBookComponent)
  }

  /// Writes what is held in memory (log lines, the access times of recent reads) and closes the
  /// workspace, before the process ends.
  public func shutdown() {
    try? builtLogBook?.flush()
    guard let workspace = core.existing(Self.workspaceComponent) else {
      return
    }
    try? workspace.flushPendingTouches()
    workspace.close()
  }
}
