import Foundation

/// How long an object built by a factory lives.
///
/// BDModules' factories express this in their shape: a lazy var is a singleton, built on first use
/// and shared afterwards; a method is a prototype, a new object on every call.
public enum FactoryLifetime: String, Sendable {
  /// Built once, on first use, and shared.
  case singleton
  /// Built anew on every request.
  case prototype
}

/// One product a factory builds, as `factory list`, `factory graph` and `factory get` see it.
///
/// It is read from the product's typed declaration (`ComponentDeclaration`), which the accessor
/// builds through: the type's name is the built type's own, and what the product is injected with
/// is not declared at all, but recorded by the factory core while it is built.
public struct FactoryComponent: Sendable {
  /// The name the object is requested by, for example `persistenceController`.
  public let name: String
  /// The factory that builds it, for example `APIFactory`.
  public let factory: String
  /// The Swift type that is built, as Swift spells it.
  public let typeName: String
  /// Whether the object is shared or built per request.
  public let lifetime: FactoryLifetime
  /// Whose part the product is: a seed architecture's, or archsh's own (the workspace, the
  /// tracer, the embedded API…), which the original factories never had.
  public let origin: Origin
  /// What the object is for, in one line.
  public let summary: String
  /// For a product built only from an input (a parser from its file), what that input is; a
  /// request by name cannot give it.
  public let input: String?
  /// Builds (or returns) the product as a generic request such as `factory get` makes it; nil
  /// when the product needs `input`.
  let obtain: (@Sendable (ApplicationFactory) throws -> Any)?
  /// Builds the product through its accessor, with a made-up input where it needs one: what the
  /// survey of the factories runs to record each product's dependencies.
  let sample: @Sendable (ApplicationFactory) throws -> Any
}

/// A product's declaration, typed by the object its accessor builds.
///
/// The accessor passes it to the factory core (`singleton` or `prototype`), so the compiler holds
/// the declared type to the built one, and the name `factory list` shows is that type's
/// (`_typeName`, which `String(describing:)` prints too, without the runtime scanning every
/// protocol conformance to see whether the type describes itself), never a string typed by hand.
/// The factory's name comes from the
/// factory's type the same way.
struct ComponentDeclaration<Instance>: Sendable {
  /// The erased description the commands read.
  let component: FactoryComponent

  /// The name the product is requested by.
  var name: String { component.name }
  /// Where the factory core keeps its singleton and its count (`FactorySlots`).
  let slot: Int

  /// A product that a request by name can build: `obtain` asks its accessor for it.
  init(
    _ name: String, of factory: Any.Type, _ lifetime: FactoryLifetime, from origin: Origin,
    _ summary: String, obtain: @escaping @Sendable (ApplicationFactory) throws -> Instance
  ) {
    component = FactoryComponent(
      name: name, factory: _typeName(factory, qualified: false),
      typeName: _typeName(Instance.self, qualified: false), lifetime: lifetime, origin: origin,
      summary: summary, input: nil, obtain: obtain, sample: obtain)
    slot = FactorySlots.slot(for: name)
  }

  /// A product built only from an input, which a request by name cannot give; `sample` builds one
  /// through its accessor from a made-up input, for the survey.
  init(
    _ name: String, of factory: Any.Type, _ lifetime: FactoryLifetime, from origin: Origin,
    _ summary: String, input: String,
    sample: @escaping @Sendable (ApplicationFactory) throws -> Instance
  ) {
    component = FactoryComponent(
      name: name, factory: _typeName(factory, qualified: false),
      typeName: _typeName(Instance.self, qualified: false), lifetime: lifetime, origin: origin,
      summary: summary, input: input, obtain: nil, sample: sample)
    slot = FactorySlots.slot(for: name)
  }
}

extension ComponentDeclaration {
  /// A prototype of the MVC+C app (a coordinator or a screen's controller, seed 004): its accessor is given
  /// the app's dependencies by whoever asks, so a request by name passes the shared ones, and a
  /// handler that ignores the events.
  static func app(
    _ name: String, of factory: Any.Type, _ summary: String,
    obtain: @escaping @Sendable (ApplicationFactory, AppDependencies) throws -> Instance
  ) -> ComponentDeclaration {
    ComponentDeclaration(name, of: factory, .prototype, from: .mvcc, summary) { root in
      try obtain(root, try root.appDependencies)
    }
  }
}

/// What `ApplicationFactory.make(_:)` hands back: the object and how it was obtained.
public struct FactoryProduct {
  /// The component that was requested.
  public let component: FactoryComponent
  /// The object itself.
  public let instance: Any
  /// True when this call built the object; false when an existing singleton was returned.
  public let wasCreated: Bool

  /// The instance's number among those `make` has handed out, `#1` first: the same for two
  /// requests of a singleton, different for two prototypes.
  public let identity: String
}

/// Errors the factories report.
public enum FactoryError: Error, Equatable, CustomStringConvertible, SubjectError {
  /// No component has that name.
  case unknownComponent(String, suggestion: String?)
  /// The component is built only from an input, which a generic request cannot give.
  case needsInput(String, input: String)

  /// A one-line description.
  public var description: String {
    switch self {
    case .unknownComponent(let name, let suggestion):
      let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
      return "unknown component '\(name)'\(hint)"
    case .needsInput(let name, let input):
      return "'\(name)' is built from \(input), which a request by name cannot give"
    }
  }

  /// The input the error concerns.
  public var subject: ErrorSubject? {
    switch self {
    case .unknownComponent(let name, _), .needsInput(let name, _): return .component(name)
    }
  }
}
