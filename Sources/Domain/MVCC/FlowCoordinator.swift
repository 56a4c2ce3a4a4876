import Foundation

/// Handles app events: a coordinator sends them up to its parent (the guide's `AppEventSource`).
public protocol AppEventSource: AnyObject {
  /// The parent's handler.
  var eventHandler: ((AppEvent) -> Void)? { get }
}

/// Manages controllers and child coordinators (the guide's `Coordinator`).
///
/// It keeps its navigation stack of screens and never a controller: it builds a screen's
/// controller with its presenter when asked, and does not keep it. `name` and `makeController`
/// are archsh's additions, for the shell.
public protocol Coordinator: AppEventSource {
  /// The coordinator's short name in commands: `discover`.
  var name: String { get }
  /// The child coordinators it started.
  var childCoordinators: [Coordinator] { get set }
  /// Its navigation stack.
  var navigationController: NavigationController { get }
  /// Shows its first screen and starts its children.
  func start()
  /// Builds the controller of one of its screens, with the screen's presenter.
  func makeController(for screen: Screen) -> ScreenControlling?
}

/// A coordinator and everything under it, as a value: what the TCA-style tests compare after each
/// event.
public struct CoordinatorState: Equatable, Sendable, CustomStringConvertible {
  /// The coordinator's type, such as `DiscoverFlowCoordinator`.
  public var coordinator: String
  /// Its stack, root first.
  public var stack: [Screen]
  /// The screen it presents modally.
  public var presented: Screen?
  /// The selected tab, for the tab bar container.
  public var selectedTab: Tab?
  /// Its children.
  public var children: [CoordinatorState]

  /// Creates a state.
  public init(
    _ coordinator: String, stack: [Screen], presented: Screen? = nil, selectedTab: Tab? = nil,
    children: [CoordinatorState] = []
  ) {
    self.coordinator = coordinator
    self.stack = stack
    self.presented = presented
    self.selectedTab = selectedTab
    self.children = children
  }

  /// One line per coordinator, indented, for failure messages.
  public var description: String { lines(indent: "").joined(separator: "\n") }

  private func lines(indent: String) -> [String] {
    var line = "\(indent)\(coordinator) [\(stack.map(\.description).joined(separator: ", "))]"
    if let presented { line += " presented: \(presented)" }
    if let selectedTab { line += " tab: \(selectedTab.rawValue)" }
    return [line] + children.flatMap { $0.lines(indent: indent + "  ") }
  }
}

/// What every archsh coordinator shares: its name, stack, children and the way it records and
/// forwards what happens.
public class FlowCoordinator: Coordinator {
  /// The short name used by commands.
  public let name: String
  /// The type's name, as traces show it.
  public let typeName: String
  /// The children it started.
  public var childCoordinators: [Coordinator] = []
  /// Its stack.
  public let navigationController: NavigationController
  /// The parent's handler.
  public var eventHandler: ((AppEvent) -> Void)?
  let dependencies: AppDependencies

  /// The short name commands use for coordinators of this type, declared once, by each type.
  public class var coordinatorName: String { "coordinator" }

  init(dependencies: AppDependencies) {
    let typeName = _typeName(Self.self, qualified: false)
    self.name = Self.coordinatorName
    self.typeName = typeName
    self.dependencies = dependencies
    self.navigationController = dependencies.root.navigationController(
      owner: typeName, log: dependencies.log)
  }

  /// Shows the first screen; subclasses override.
  public func start() {}

  /// Builds a screen's controller; subclasses override.
  public func makeController(for screen: Screen) -> ScreenControlling? { nil }

  /// The children that are archsh coordinators.
  public var children: [FlowCoordinator] { childCoordinators.compactMap { $0 as? FlowCoordinator } }

  /// This coordinator and everything under it.
  public var state: CoordinatorState {
    CoordinatorState(
      typeName, stack: navigationController.screens,
      presented: navigationController.presentedScreen,
      selectedTab: (self as? TabBarContainer)?.selectedTab,
      children: children.map(\.state))
  }

  /// Runs the handling of an event in a span, so that traces show the path.
  func handling(_ event: CustomStringConvertible, _ body: () -> Void) {
    dependencies.log.tracer.withSpan(typeName, "handles \(event)") { _ in body() }
  }

  /// Sends an app event up to the parent.
  func forward(_ event: AppEvent) {
    dependencies.log.record(typeName, "sends up", subject: "\(event)", text: "sends \(event) up")
    eventHandler?(event)
  }

  /// Appends a child, routes its app events to `handler`, and starts it.
  func startChild(_ child: FlowCoordinator, handler: @escaping (AppEvent) -> Void) {
    child.eventHandler = handler
    childCoordinators.append(child)
    dependencies.log.record(
      typeName, "appends", subject: child.typeName,
      text: "appends \(child.typeName) and starts it")
    child.start()
  }

  /// A media item's controller; its events are handled by `handle(_:)` below.
  func mediaItemController(_ id: Int) -> ScreenControlling {
    dependencies.main.mediaItemController(dependencies: dependencies, id: id) {
      [weak self] event in self?.handle(event)
    }
  }

  /// A media item's events: pop, pop to the root, push a related item, or forward an error.
  func handle(_ event: MediaItemEvent) {
    handling(event) {
      switch event {
      case .backTapped: navigationController.pop()
      case .headerTapped: navigationController.popToRoot()
      case .mediaItemSelected(let id): navigationController.push(.mediaItem(id))
      case .favouriteToggled: dependencies.log.record(typeName, "does not navigate")
      case .failed(let error): forward(.appError(error))
      }
    }
  }
}
