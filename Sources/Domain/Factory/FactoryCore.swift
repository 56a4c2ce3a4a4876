import Foundation

/// The machinery every factory shares: the singletons built so far, the tracer that sees them
/// built, and, for the test that keeps `factory graph` true, what each construction asked for.
final class FactoryCore: @unchecked Sendable {
  let tracer: Tracer
  private let lock = NSLock()
  private var singletons: [String: Any] = [:]
  private var building: [String] = []
  private var requests: [String: Set<String>] = [:]

  init(tracer: Tracer) {
    self.tracer = tracer
  }

  /// Holds an instance made before the factories, such as the tracer, as a built singleton.
  func hold(_ name: String, _ instance: Any) { lock.withLock { singletons[name] = instance } }

  /// Whether a singleton has been built.
  func isBuilt(_ name: String) -> Bool { lock.withLock { singletons[name] != nil } }

  /// The shared instance of `component`, built by `make` on first use; the construction is
  /// traced under the factory's name.
  func singleton<T>(_ component: FactoryComponent, _ make: () throws -> T) throws -> T {
    noteRequest(component.name)
    if let existing = lock.withLock({ singletons[component.name] }) as? T { return existing }
    let attributes = [(key: "lifetime", value: component.lifetime.rawValue)]
    return try tracer.withSpan(component.factory, "make \(component.name)", attributes: attributes)
    { span in
      span.setAttribute("instance", "built")
      let instance = try building(component.name, make)
      lock.withLock { singletons[component.name] = instance }
      return instance
    }
  }

  /// A new instance of `component`; a prototype's construction is not traced, since presenters
  /// and updaters are made on every command (`factory get` traces a request by name).
  func prototype<T>(_ component: FactoryComponent, _ make: () throws -> T) rethrows -> T {
    noteRequest(component.name)
    return try building(component.name, make)
  }

  /// Forgets a singleton, so the next request builds it again (a re-pointed API, a relaunch).
  func discard(_ name: String) {
    lock.withLock { _ = singletons.removeValue(forKey: name) }
  }

  /// The singleton if it has been built, without building it.
  func existing<T>(_ name: String, as type: T.Type = T.self) -> T? {
    lock.withLock { singletons[name] as? T }
  }

  /// What each product's constructions requested from the factories, by product name.
  var observedDependencies: [String: Set<String>] { lock.withLock { requests } }

  private func building<T>(_ name: String, _ make: () throws -> T) rethrows -> T {
    lock.withLock { building.append(name) }
    defer { lock.withLock { _ = building.popLast() } }
    return try make()
  }

  private func noteRequest(_ name: String) {
    lock.withLock {
      guard let parent = building.last, parent != name else { return }
      requests[parent, default: []].insert(name)
    }
  }
}

extension FactoryCore {
  /// A new controller for `screen` with the presenter `makePresenter` builds: how every screen of
  /// the MVC+C app is made.
  func screenController<Event: EventProtocol>(
    _ component: FactoryComponent, _ screen: Screen, _ makePresenter: () -> Presenter<Event>
  ) -> ScreenControlling {
    prototype(component) { ScreenController(screen: screen, presenter: makePresenter()) }
  }
}

/// A factory that ApplicationFactory creates: it builds its products through the root's shared
/// machinery, so that every factory's singletons, traces and declarations are kept in one place.
public class Factory {
  unowned let root: ApplicationFactory
  var core: FactoryCore { root.core }

  init(root: ApplicationFactory) { self.root = root }
}
