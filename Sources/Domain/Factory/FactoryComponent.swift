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

/// One product a factory builds, declared once next to the accessor that builds it.
///
/// `factory list` and `factory graph` are generated from these declarations, and the accessors
/// build through them, so the picture cannot drift from the code: a test builds every product
/// and compares what each construction asked for with `dependencies`.
public struct FactoryComponent: Sendable {
  /// The name the object is requested by, for example `persistenceController`.
  public let name: String
  /// The factory that builds it, for example `APIFactory`.
  public let factory: String
  /// The Swift type that is built.
  public let typeName: String
  /// Whether the object is shared or built per request.
  public let lifetime: FactoryLifetime
  /// The products injected into it when it is built.
  public let dependencies: [String]
  /// What the object is for, in one line.
  public let summary: String
  /// For a product built only from an input (a parser from its file), what that input is; a
  /// request by name cannot give it.
  public let input: String?
  /// Builds (or returns) the product as a generic request such as `factory get` makes it; nil
  /// when the product needs `input`.
  let obtain: (@Sendable (ApplicationFactory) throws -> Any)?

  init(
    _ name: String, factory: String, type typeName: String, _ lifetime: FactoryLifetime,
    dependencies: [String] = [], summary: String, input: String? = nil,
    obtain: (@Sendable (ApplicationFactory) throws -> Any)?
  ) {
    self.input = input
    self.name = name
    self.factory = factory
    self.typeName = typeName
    self.lifetime = lifetime
    self.dependencies = dependencies
    self.summary = summary
    self.obtain = obtain
  }
}

extension FactoryComponent {
  /// A prototype of the MVC+C app (a coordinator or a screen's controller), built with the app's
  /// dependencies injected; a request by name gets it with a handler that ignores its events.
  static func app(
    _ name: String, factory: String, type typeName: String, summary: String,
    obtain: @escaping @Sendable (ApplicationFactory, AppDependencies) -> Any
  ) -> FactoryComponent {
    FactoryComponent(
      name, factory: factory, type: typeName, .prototype, dependencies: ["appDependencies"],
      summary: summary
    ) { root in obtain(root, try root.appDependencies) }
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
