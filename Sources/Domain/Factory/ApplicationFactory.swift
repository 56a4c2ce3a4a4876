import Foundation

/// How long an object built by the factory lives.
///
/// BDModules' factories express this in their shape: a lazy var is a singleton, built on first use
/// and shared afterwards; a method is a prototype, a new object on every call.
public enum FactoryLifetime: String, Sendable {
  /// Built once, on first use, and shared.
  case singleton
  /// Built anew on every request.
  case prototype
}

/// One object the factory knows how to build, as `factory graph` shows it.
public struct FactoryComponent: Sendable {
  /// The name the object is requested by, for example `persistenceController`.
  public let name: String
  /// The Swift type that is built.
  public let typeName: String
  /// Whether the object is shared or built per request.
  public let lifetime: FactoryLifetime
  /// The names of the components it is built from.
  public let dependencies: [String]
  /// What the object is for, in one line.
  public let summary: String

  /// Declares a component.
  public init(
    name: String, typeName: String, lifetime: FactoryLifetime, dependencies: [String] = [],
    summary: String
  ) {
    self.name = name
    self.typeName = typeName
    self.lifetime = lifetime
    self.dependencies = dependencies
    self.summary = summary
  }
}

/// What `ApplicationFactory.make(_:)` hands back: the object and how it was obtained.
public struct FactoryProduct: @unchecked Sendable {
  /// The component that was requested.
  public let component: FactoryComponent
  /// The object itself.
  public let instance: Any
  /// True when this call built the object; false when an existing singleton was returned.
  public let wasCreated: Bool
}

/// Errors the factory reports.
public enum FactoryError: Error, Equatable, CustomStringConvertible {
  /// No component has that name.
  case unknownComponent(String, suggestion: String?)
  /// A component of that name is already registered.
  case duplicateComponent(String)

  /// A one-line description.
  public var description: String {
    switch self {
    case .unknownComponent(let name, let suggestion):
      let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
      return "unknown component '\(name)'\(hint)"
    case .duplicateComponent(let name):
      return "component '\(name)' is already registered"
    }
  }
}

/// The composition root, after BDModules' ApplicationFactory: it builds every controller the shell
/// drives, lazily.
///
/// Singletons are built on first use and shared; prototypes are built on each request. Each
/// construction is reported to the tracer, so `trace on` shows when an object comes to life. Later
/// layers register their controllers with `register(_:make:)` and expose typed accessors that call
/// `singleton(_:)` or `prototype(_:)`.
public final class ApplicationFactory: @unchecked Sendable {
  /// The tracer every controller built here reports to.
  public let tracer: Tracer

  /// A component with the closure that builds it.
  ///
  /// A struct rather than a tuple: a dictionary of tuples holding a function type has its type
  /// metadata built from a mangled name at run time, which cost every start-up about 0.4 ms.
  private struct Builder {
    let component: FactoryComponent
    let make: () throws -> Any
  }

  private let lock = NSLock()
  private var order: [String] = []
  private var builders: [String: Builder] = [:]
  private var singletons: [String: Any] = [:]

  /// Where the workspace lives: a file path, or `:memory:`.
  public let databasePath: String

  /// Creates the factory with its tracer, which is itself a singleton component, and the
  /// workspace path its persistence components open (lazily, on first use).
  public init(tracer: Tracer = Tracer(), databasePath: String = ":memory:") {
    self.tracer = tracer
    self.databasePath = databasePath
    let tracerComponent = FactoryComponent(
      name: "tracer", typeName: "Tracer", lifetime: .singleton,
      summary: "records the spans controllers report; `trace on` shows them")
    order.append("tracer")
    builders["tracer"] = Builder(component: tracerComponent, make: { tracer })
    singletons["tracer"] = tracer
    registerPersistence()
  }

  /// Every component, in registration order.
  public var components: [FactoryComponent] {
    lock.withLock { order.compactMap { builders[$0]?.component } }
  }

  /// Whether a singleton has been built yet.
  ///
  /// Prototypes are never held, so this is false for them.
  public func isInstantiated(_ name: String) -> Bool {
    lock.withLock { singletons[name] != nil }
  }

  /// Registers a component with the closure that builds it.
  public func register(_ component: FactoryComponent, make: @escaping () throws -> Any) throws {
    try lock.withLock {
      guard builders[component.name] == nil else {
        throw FactoryError.duplicateComponent(component.name)
      }
      order.append(component.name)
      builders[component.name] = Builder(component: component, make: make)
    }
  }

  /// Returns the component by name, building it if it is a prototype or a singleton not yet built.
  ///
  /// Every call is reported to the tracer with whether the object was built or shared, so
  /// `factory get` shows the lifetime rules at work.
  public func make(_ name: String) throws -> FactoryProduct {
    guard let entry = lock.withLock({ builders[name] }) else {
      throw FactoryError.unknownComponent(name, suggestion: nearest(to: name))
    }
    let component = entry.component
    let attributes = [(key: "lifetime", value: component.lifetime.rawValue)]
    return try tracer.withSpan("ApplicationFactory", "make \(name)", attributes: attributes) {
      span in
      let product = try obtain(entry)
      span.setAttribute("instance", product.wasCreated ? "built" : "shared")
      return product
    }
  }

  /// Returns a singleton, building it on first use; only its construction is traced.
  ///
  /// This is what typed accessors call, so that using a controller on every command does not fill
  /// traces with factory lookups.
  public func singleton<T>(_ name: String, as type: T.Type = T.self) throws -> T? {
    guard let entry = lock.withLock({ builders[name] }) else {
      throw FactoryError.unknownComponent(name, suggestion: nearest(to: name))
    }
    if let existing = lock.withLock({ singletons[name] }) { return existing as? T }
    let attributes = [(key: "lifetime", value: entry.component.lifetime.rawValue)]
    return try tracer.withSpan("ApplicationFactory", "make \(name)", attributes: attributes) {
      span in
      span.setAttribute("instance", "built")
      return try obtain(entry).instance as? T
    }
  }

  private func obtain(_ entry: Builder) throws -> FactoryProduct {
    let component = entry.component
    guard component.lifetime == .singleton else {
      return FactoryProduct(component: component, instance: try entry.make(), wasCreated: true)
    }
    if let existing = lock.withLock({ singletons[component.name] }) {
      return FactoryProduct(component: component, instance: existing, wasCreated: false)
    }
    let instance = try entry.make()
    lock.withLock { singletons[component.name] = instance }
    return FactoryProduct(component: component, instance: instance, wasCreated: true)
  }

  private func nearest(to name: String) -> String? {
    let names = lock.withLock { order }
    return Suggestion.nearest(to: name, among: names)
  }
}

extension ApplicationFactory {
  /// The workspace, opened on first use; the shell starts without touching the database.
  public func workspace() throws -> Workspace {
    guard let workspace = try singleton("workspace", as: Workspace.self) else {
      throw WorkspaceError.database("the factory built something other than a Workspace")
    }
    return workspace
  }

  /// A PersistenceController for the store `identifier`: a prototype, as in BDModules, sharing the
  /// workspace singleton.
  public func persistenceController(identifier: String) throws -> PersistenceController {
    PersistenceController(identifier: identifier, workspace: try workspace(), tracer: tracer)
  }

  fileprivate func registerPersistence() {
    let path = databasePath
    try? register(
      FactoryComponent(
        name: "workspace", typeName: "Workspace", lifetime: .singleton,
        summary: "the SQLite workspace (WAL, busy timeout 5 s), opened on first use")
    ) { try Workspace(path: path) }
    try? register(
      FactoryComponent(
        name: "persistenceController", typeName: "PersistenceController", lifetime: .prototype,
        dependencies: ["workspace", "tracer"],
        summary:
          "persists and retrieves keys in one store (generalCache here), with PINCache's semantics")
    ) { [unowned self] in
      try self.persistenceController(
        identifier: PersistenceController.Identifier.generalCache.rawValue)
    }
  }
}

extension ApplicationFactory {
  /// Writes what is held in memory (the access times of recent reads) before the process ends.
  public func shutdown() {
    guard isInstantiated("workspace"),
      let workspace = try? singleton("workspace", as: Workspace.self)
    else { return }
    try? workspace.flushPendingTouches()
  }
}
