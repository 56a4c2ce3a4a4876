import Foundation

/// The machinery every factory shares: the singletons built so far, how often each product has
/// been built, the tracer that sees singletons built, and the dependencies each product's builder
/// resolved, which is what `factory graph` draws.
///
/// Dependencies are recorded, never declared. While a product's builder runs, the core knows it as
/// the requester (a task-local value, so concurrent builds on other threads do not mix); every
/// product requested through the core meanwhile is recorded as injected into it.
final class FactoryCore: @unchecked Sendable {
  let tracer: Tracer
  private let lock = NSLock()
  private var singletons: [String: Any] = [:]
  private var constructions: [String: Int] = [:]
  private var resolved: [String: Set<String>] = [:]
  /// The last dependency recorded in `resolved`.
  private var lastResolved: (product: String, dependency: String)?

  /// The product whose builder is running, and the core that runs it.
  private struct Requester {
    let core: ObjectIdentifier
    let product: String
  }

  /// What the task (or thread) is building now, innermost first.
  @TaskLocal private static var requester: Requester?

  init(tracer: Tracer) {
    self.tracer = tracer
  }

  /// Holds an instance made before the factories, such as the tracer, as a built singleton.
  func hold(_ name: String, _ instance: Any) {
    lock.withLock {
      singletons[name] = instance
      constructions[name] = 1
    }
  }

  /// Whether a singleton has been built.
  func isBuilt(_ name: String) -> Bool { lock.withLock { singletons[name] != nil } }

  /// How many times the product named `name` has been built.
  func constructionCount(_ name: String) -> Int { lock.withLock { constructions[name] ?? 0 } }

  /// The shared instance of `declaration`, built by `make` on first use; the construction is
  /// traced under the factory's name.
  func singleton<T>(_ declaration: ComponentDeclaration<T>, _ make: () throws -> T) throws -> T {
    let name = declaration.name
    noteRequest(name)
    if let existing = lock.withLock({ singletons[name] }) as? T {
      publish(declaration, built: false)
      return existing
    }
    let component = declaration.component
    let attributes = [(key: "lifetime", value: component.lifetime.rawValue)]
    return try tracer.withSpan(component.factory, "make \(component.name)", attributes: attributes)
    { span in
      span.setAttribute("instance", "built")
      let instance = try building(component.name, make)
      lock.withLock { singletons[component.name] = instance }
      publish(declaration, built: true)
      return instance
    }
  }

  /// A new instance of `declaration`; a prototype's construction is not traced, since presenters
  /// and updaters are made on every command (`factory get` traces a request by name).
  func prototype<T>(_ declaration: ComponentDeclaration<T>, _ make: () throws -> T) rethrows -> T {
    noteRequest(declaration.name)
    let instance = try building(declaration.name, make)
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
    noteRequest(declaration.name)
    return make
  }

  /// The singleton if it has been built, without building it.
  func existing<T>(_ name: String, as type: T.Type = T.self) -> T? {
    // Unwrapped before the cast: casting a nil `Any?` asks the runtime whether Optional<Any> is
    // bridgeable, a scan of every conformance in the binary (about 90 µs, at every exit).
    lock.withLock {
      guard let instance = singletons[name] else { return nil }
      return instance as? T
    }
  }

  /// What each product's builders resolved through the core, by product name.
  var resolvedDependencies: [String: Set<String>] { lock.withLock { resolved } }

  private func building<T>(_ name: String, _ make: () throws -> T) rethrows -> T {
    let instance = try Self.$requester.withValue(
      Requester(core: ObjectIdentifier(self), product: name), operation: make)
    lock.withLock { constructions[name, default: 0] += 1 }
    return instance
  }

  private func noteRequest(_ name: String) {
    guard let requester = Self.requester, requester.core == ObjectIdentifier(self),
      requester.product != name
    else { return }
    lock.withLock {
      // The same product asks for the same dependency on every command (a controller for its
      // workspace): comparing with the last pair recorded is cheaper than hashing both names.
      if let last = lastResolved, last.product == requester.product, last.dependency == name {
        return
      }
      _ = resolved[requester.product, default: []].insert(name)
      lastResolved = (requester.product, name)
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
public class Factory {
  unowned let root: ApplicationFactory
  var core: FactoryCore { root.core }

  init(root: ApplicationFactory) { self.root = root }
}
