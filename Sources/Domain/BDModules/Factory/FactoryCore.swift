import Foundation
import Synchronization

/// The machinery every factory shares: the singletons built so far, how often each product has
/// been built, the tracer that sees singletons built, and the dependencies each product's builder
/// resolved, which is what `factory graph` draws.
///
/// Dependencies are recorded, never declared. While a product's builder runs, the core knows it as
/// the requester (a task-local value, so concurrent builds on other threads do not mix); every
/// product requested through the core meanwhile is recorded as injected into it.
final class FactoryCore: Sendable {
  let tracer: Tracer
  private let state = Mutex(State())
  /// The singletons being built now, by slot, and the thread building each; read and changed
  /// only while `buildsChanged` is locked, which a request for one of them waits on.
  private let inProgress = Mutex<[Int: ObjectIdentifier]>([:])
  /// Signalled whenever a singleton's build ends, built or failed.
  private let buildsChanged = NSCondition()

  /// What the core has built and seen, behind its mutex.
  private struct State {
    /// The built singletons and how many times each product was built, by the product's slot
    /// (`ComponentDeclaration.slot`): an index, so that no name is hashed on a request, and a
    /// typed box, so that no `Any` is cast.
    var singletons: [AnyBuiltSingleton?] = []
    var constructions: [Int] = []
    /// What each product's builders resolved, by slot.
    ///
    /// A product's slot's set holds its dependencies' slots. A product asks for the same few
    /// dependencies on every command, and an integer set finds them without hashing two names;
    /// `factory graph` names them.
    var resolvedSlots: [Set<Int>] = []

    /// The singleton at `slot`, if it has been built.
    func built(at slot: Int) -> AnyBuiltSingleton? {
      slot < singletons.count ? singletons[slot] : nil
    }

    /// Keeps a built singleton at `slot`.
    mutating func keep(_ instance: AnyBuiltSingleton, at slot: Int) {
      if slot >= singletons.count {
        singletons.append(contentsOf: repeatElement(nil, count: slot + 1 - singletons.count))
      }
      singletons[slot] = instance
    }

    /// Counts one construction of the product at `slot`.
    mutating func count(_ slot: Int) {
      if slot >= constructions.count {
        constructions.append(contentsOf: repeatElement(0, count: slot + 1 - constructions.count))
      }
      constructions[slot] += 1
    }
  }

  /// The product whose builder is running, and the core that runs it.
  private struct Requester: Sendable {
    var core: ObjectIdentifier
    var slot: Int
  }

  /// The requester of the builder running now, if any: a task-local value, so that builds on
  /// other threads or tasks do not mix (a builder is synchronous, and runs to its end where it
  /// was called).
  @TaskLocal private static var requester: Requester?

  init(tracer: Tracer) {
    self.tracer = tracer
  }

  /// Holds an instance made before the factories, such as the tracer, as a built singleton.
  func hold<T>(_ declaration: ComponentDeclaration<T>, _ instance: T) {
    state.withLock {
      $0.keep(BuiltSingleton(instance), at: declaration.slot)
      $0.count(declaration.slot)
    }
  }

  /// Whether a singleton has been built.
  func isBuilt(_ name: String) -> Bool {
    guard let slot = FactorySlots.existing(name) else { return false }
    return state.withLock { $0.built(at: slot) != nil }
  }

  /// How many times the product named `name` has been built.
  func constructionCount(_ name: String) -> Int {
    guard let slot = FactorySlots.existing(name) else { return 0 }
    return state.withLock { slot < $0.constructions.count ? $0.constructions[slot] : 0 }
  }

  /// The shared instance of `declaration`, built by `make` on first use; the construction is
  /// traced under the factory's name.
  ///
  /// A singleton is built once, even when two threads ask for it first at the same time: the
  /// second waits for the first's build, and gets its instance (the seed's `lazy var`s are
  /// requested from the main thread only; here a command and a server thread may both ask).
  func singleton<T>(_ declaration: ComponentDeclaration<T>, _ make: () throws -> T) throws -> T {
    noteRequest(declaration)
    let slot = declaration.slot
    if let existing = state.withLock({ $0.built(at: slot) }) as? BuiltSingleton<T> {
      publish(declaration, built: false)
      return existing.value
    }
    if let existing: T = claimBuild(of: slot) {
      publish(declaration, built: false)
      return existing
    }
    defer {
      buildsChanged.lock()
      _ = inProgress.withLock { $0.removeValue(forKey: slot) }
      buildsChanged.broadcast()
      buildsChanged.unlock()
    }
    let component = declaration.component
    let attributes = [(key: "lifetime", value: component.lifetime.rawValue)]
    return try tracer.withSpan(component.factory, "make \(component.name)", attributes: attributes)
    { span in
      span.setAttribute("instance", "built")
      let instance = try building(declaration, make)
      state.withLock { $0.keep(BuiltSingleton(instance), at: slot) }
      publish(declaration, built: true)
      return instance
    }
  }

  /// Marks the singleton at `slot` as built by this thread and returns nil; or, when another
  /// thread builds it now, waits for that build and returns its instance (nil again when that
  /// build failed, and this thread builds it instead).
  private func claimBuild<T>(of slot: Int) -> T? {
    let me = ObjectIdentifier(Thread.current)
    buildsChanged.lock()
    defer { buildsChanged.unlock() }
    while true {
      if let existing = state.withLock({ $0.built(at: slot) }) as? BuiltSingleton<T> {
        return existing.value
      }
      let builder = inProgress.withLock { $0[slot] }
      // Nobody builds it, or this thread does already (a builder that asks for its own product,
      // which a dependency graph without cycles never does): this thread builds it.
      guard let builder, builder != me else {
        inProgress.withLock { $0[slot] = me }
        return nil
      }
      buildsChanged.wait()
    }
  }

  /// A new instance of `declaration`; a prototype's construction is not traced, since presenters
  /// and updaters are made on every command (`factory get` traces a request by name).
  func prototype<T>(_ declaration: ComponentDeclaration<T>, _ make: () throws -> T) rethrows -> T {
    noteRequest(declaration)
    let instance = try building(declaration, make)
    publish(declaration, built: true)
    return instance
  }

  private func publish<T>(_ declaration: ComponentDeclaration<T>, built: Bool) {
    tracer.events.publish(.factory) {
      .factory(
        FactoryProductEvent(
          product: declaration.name, factory: declaration.component.factory, built: built))
    }
  }

  /// Hands `make`, a way to request `declaration` later, to the product being built, and records
  /// the dependency now: a product that is given a provider of another depends on it, although
  /// the first instance may be made long after its own construction.
  func provider<T, Provider>(of declaration: ComponentDeclaration<T>, _ make: Provider) -> Provider
  {
    noteRequest(declaration)
    return make
  }

  /// The singleton if it has been built, without building it.
  func existing<T>(_ declaration: ComponentDeclaration<T>) -> T? {
    state.withLock { ($0.built(at: declaration.slot) as? BuiltSingleton<T>)?.value }
  }

  /// What each product's builders resolved through the core, by product name.
  var resolvedDependencies: [String: Set<String>] {
    let slots = state.withLock { $0.resolvedSlots }
    var resolved: [String: Set<String>] = [:]
    for (product, dependencies) in slots.enumerated() where !dependencies.isEmpty {
      guard let name = FactorySlots.name(of: product) else { continue }
      resolved[name] = Set(dependencies.compactMap(FactorySlots.name(of:)))
    }
    return resolved
  }

  private func building<T>(_ declaration: ComponentDeclaration<T>, _ make: () throws -> T) rethrows
    -> T
  {
    let requester = Requester(
      core: ObjectIdentifier(self), slot: declaration.slot)
    let instance = try Self.$requester.withValue(requester) { try make() }
    state.withLock { $0.count(declaration.slot) }
    return instance
  }

  private func noteRequest<T>(_ declaration: ComponentDeclaration<T>) {
    guard let requester = Self.requester, requester.core == ObjectIdentifier(self),
      requester.slot != declaration.slot
    else {
      return
    }
    state.withLock { state in
      if requester.slot < state.resolvedSlots.count,
        state.resolvedSlots[requester.slot].contains(declaration.slot)
      {
        return
      }
      if requester.slot >= state.resolvedSlots.count {
        state.resolvedSlots.append(
          contentsOf: repeatElement([], count: requester.slot + 1 - state.resolvedSlots.count))
      }
      state.resolvedSlots[requester.slot].insert(declaration.slot)
    }
  }
}

/// A built singleton, whatever its type.
private protocol AnyBuiltSingleton: AnyObject, Sendable {}

/// A built singleton, typed as its declaration is: getting it back is a class cast, which
/// compares one pointer, where an `Any` cast asks the runtime about the type.
private final class BuiltSingleton<Instance>: AnyBuiltSingleton, @unchecked Sendable {
  // @unchecked: a singleton is handed to whichever thread asks the factory for it, as in the seed.
  let value: Instance
  init(_ value: Instance) { self.value = value }
}

/// Numbers each product's name once for the process: the slot of its singleton and its count in
/// every factory core.
enum FactorySlots {
  private static let registry = Registry()

  /// The slot of `name`, numbered on first use (when its declaration is made).
  static func slot(for name: String) -> Int { registry.slot(for: name, adding: true) ?? 0 }

  /// The slot of `name`, or nil when no declaration has that name.
  static func existing(_ name: String) -> Int? { registry.slot(for: name, adding: false) }

  /// The name whose slot is `slot`, or nil when no declaration has it.
  static func name(of slot: Int) -> String? { registry.name(of: slot) }

  private final class Registry: Sendable {
    /// The slots by name, and the names in slot order.
    private let numbering = Mutex<(slots: [String: Int], names: [String])>(([:], []))

    func slot(for name: String, adding: Bool) -> Int? {
      numbering.withLock { numbering in
        if let slot = numbering.slots[name] { return slot }
        guard adding else { return nil }
        numbering.slots[name] = numbering.names.count
        numbering.names.append(name)
        return numbering.names.count - 1
      }
    }

    func name(of slot: Int) -> String? {
      numbering.withLock { slot < $0.names.count ? $0.names[slot] : nil }
    }
  }
}

extension FactoryCore {
  /// A new controller for `screen` with the presenter `makePresenter` builds, given the way to
  /// make its table view providers: how every screen of the MVC+C app is made.
  func screenController<Event: EventProtocol>(
    _ declaration: ComponentDeclaration<ScreenController<Event>>, _ screen: Screen,
    providers: DataSourceFactory, _ makePresenter: () -> Presenter<Event>
  ) -> ScreenController<Event> {
    prototype(declaration) {
      ScreenController(
        screen: screen, presenter: makePresenter(),
        tableViewProviders: providers.tableViewProviders())
    }
  }
}

/// A factory that ApplicationFactory creates: it builds its products through the root's shared
/// machinery, so that every factory's singletons, traces and records are kept in one place.
public protocol Factory: AnyObject, Sendable {
  /// The root that created it.
  var root: ApplicationFactory { get }
}

extension Factory {
  var core: FactoryCore { root.core }
}
