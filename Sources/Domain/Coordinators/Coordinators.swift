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

/// The login flow: Login, and SignUp pushed over it.
public final class LoginFlowCoordinator: FlowCoordinator {
  /// `login`.
  public override class var coordinatorName: String { "login" }

  /// Creates the coordinator.
  public override init(dependencies: AppDependencies) {
    super.init(dependencies: dependencies)
  }

  /// Shows Login.
  public override func start() { navigationController.start(with: .login) }

  /// Login's or SignUp's controller.
  public override func makeController(for screen: Screen) -> ScreenControlling? {
    switch screen {
    case .login:
      return dependencies.entry.loginController(dependencies: dependencies) { [weak self] event in
        self?.handle(event)
      }
    case .signUp:
      return dependencies.entry.signUpController(dependencies: dependencies) { [weak self] event in
        self?.handle(event)
      }
    default: return nil
    }
  }

  func handle(_ event: LoginEvent) {
    handling(event) {
      switch event {
      case .loginSucceeded: loggedIn()
      case .signUpTapped: navigationController.push(.signUp)
      case .failed(let error): forward(.appError(error))
      }
    }
  }

  func handle(_ event: SignUpEvent) {
    handling(event) {
      switch event {
      case .loginSucceeded: loggedIn()
      case .backTapped: navigationController.pop()
      case .failed(let error): forward(.appError(error))
      }
    }
  }

  /// The guide's onLogin: clear the stack and send mainFlow up.
  private func loggedIn() {
    navigationController.setScreens([])
    forward(.mainFlow)
  }
}

/// The tab bar container: it creates the Discover, Favourites and Profile flows, appends each as a
/// child and starts it.
public final class TabBarContainer: FlowCoordinator {
  /// `tabbar`.
  public override class var coordinatorName: String { "tabbar" }

  /// The selected tab.
  public private(set) var selectedTab: Tab = .discover

  /// Creates the container.
  public override init(dependencies: AppDependencies) {
    super.init(dependencies: dependencies)
  }

  /// Shows the tab bar and starts one flow per tab.
  public override func start() {
    navigationController.start(with: .tabBar)
    let flows: [FlowCoordinator] = [
      dependencies.main.discoverFlowCoordinator(dependencies: dependencies),
      dependencies.main.favouritesFlowCoordinator(dependencies: dependencies),
      dependencies.main.profileFlowCoordinator(dependencies: dependencies),
    ]
    for flow in flows {
      startChild(flow) { [weak self] event in
        guard let self else { return }
        self.handling(event) { self.forward(event) }
      }
    }
  }

  /// The tab bar's controller.
  public override func makeController(for screen: Screen) -> ScreenControlling? {
    guard screen == .tabBar else { return nil }
    return dependencies.main.tabBarController(dependencies: dependencies, selectedTab: selectedTab)
    {
      [weak self] event in self?.handle(event)
    }
  }

  /// The coordinator of the selected tab.
  public var selectedFlow: FlowCoordinator? {
    children.first { $0.name == selectedTab.rawValue }
  }

  func handle(_ event: TabBarEvent) {
    handling(event) {
      switch event {
      case .tabSelected(let tab):
        selectedTab = tab
        dependencies.log.record(
          typeName, "selects tab", subject: tab.rawValue, text: "selects the \(tab.rawValue) tab")
      }
    }
  }

  func restore(selectedTab: Tab) { self.selectedTab = selectedTab }
}

/// The Discover flow: the catalog, and media items pushed over it.
public final class DiscoverFlowCoordinator: FlowCoordinator {
  /// `discover`.
  public override class var coordinatorName: String { "discover" }

  /// Creates the coordinator.
  public override init(dependencies: AppDependencies) {
    super.init(dependencies: dependencies)
  }

  /// Shows Discover.
  public override func start() { navigationController.start(with: .discover) }

  /// Discover's or a media item's controller.
  public override func makeController(for screen: Screen) -> ScreenControlling? {
    switch screen {
    case .discover:
      return dependencies.main.discoverController(dependencies: dependencies) { [weak self] event in
        self?.handle(event)
      }
    case .mediaItem(let id): return mediaItemController(id)
    default: return nil
    }
  }

  func handle(_ event: DiscoverEvent) {
    handling(event) {
      switch event {
      case .mediaItemSelected(let id): navigationController.push(.mediaItem(id))
      case .headerTapped: navigationController.popToRoot()
      case .failed(let error): forward(.appError(error))
      }
    }
  }
}

/// The Favourites flow: the favourites, and media items pushed over them.
public final class FavouritesFlowCoordinator: FlowCoordinator {
  /// `favourites`.
  public override class var coordinatorName: String { "favourites" }

  /// Creates the coordinator.
  public override init(dependencies: AppDependencies) {
    super.init(dependencies: dependencies)
  }

  /// Shows Favourites.
  public override func start() { navigationController.start(with: .favourites) }

  /// Favourites' or a media item's controller.
  public override func makeController(for screen: Screen) -> ScreenControlling? {
    switch screen {
    case .favourites:
      return dependencies.main.favouritesController(dependencies: dependencies) {
        [weak self] event in self?.handle(event)
      }
    case .mediaItem(let id): return mediaItemController(id)
    default: return nil
    }
  }

  func handle(_ event: FavouritesEvent) {
    handling(event) {
      switch event {
      case .mediaItemSelected(let id): navigationController.push(.mediaItem(id))
      case .failed(let error): forward(.appError(error))
      }
    }
  }
}

/// The Profile flow: the profile, and its settings.
public final class ProfileFlowCoordinator: FlowCoordinator {
  /// `profile`.
  public override class var coordinatorName: String { "profile" }

  /// Creates the coordinator.
  public override init(dependencies: AppDependencies) {
    super.init(dependencies: dependencies)
  }

  /// Shows Profile.
  public override func start() { navigationController.start(with: .profile) }

  /// Profile's or Settings' controller.
  public override func makeController(for screen: Screen) -> ScreenControlling? {
    switch screen {
    case .profile:
      return dependencies.main.profileController(dependencies: dependencies) { [weak self] event in
        self?.handle(event)
      }
    case .settings:
      return dependencies.main.settingsController(dependencies: dependencies) {
        [weak self] event in self?.handle(event)
      }
    default: return nil
    }
  }

  func handle(_ event: ProfileEvent) {
    handling(event) {
      switch event {
      case .settingsTapped: navigationController.push(.settings)
      case .logoutTapped: forward(.authorizationFlow)
      case .failed(let error): forward(.appError(error))
      }
    }
  }

  func handle(_ event: SettingsEvent) {
    handling(event) {
      switch event {
      case .backTapped: navigationController.pop()
      }
    }
  }
}

/// The root: it chooses the flow at launch, switches flows on app events, and presents alerts
/// (the guide's AppConfigurator).
///
/// The guide never removes a child coordinator. archsh removes the root flow's coordinator when
/// the other flow replaces it, so that the tree shows what is alive.
public final class AppConfigurator: FlowCoordinator {
  /// `app`.
  public override class var coordinatorName: String { "app" }

  /// The two root flows.
  public enum Flow: String, Sendable {
    /// LoginFlowCoordinator.
    case login
    /// TabBarContainer and its three flows.
    case main
  }

  /// Every coordinator type, in tree order.
  public static let coordinatorTypes: [FlowCoordinator.Type] = [
    AppConfigurator.self, LoginFlowCoordinator.self, TabBarContainer.self,
    DiscoverFlowCoordinator.self, FavouritesFlowCoordinator.self, ProfileFlowCoordinator.self,
  ]

  /// Every coordinator name, in tree order, as each type declares it.
  public static let coordinatorNames = coordinatorTypes.map { $0.coordinatorName }

  /// The flow shown.
  public private(set) var flow: Flow = .login

  /// Creates the root; `launch` starts it.
  public override init(dependencies: AppDependencies) {
    super.init(dependencies: dependencies)
  }

  /// Launches, reporting a session store it cannot read as no session.
  public override func start() {
    do {
      try launch()
    } catch {
      dependencies.log.record(
        typeName, "chooses flow", subject: "login",
        text: "cannot read the session (\(error)): login flow")
      show(.login)
    }
  }

  /// Launches: a session stored in `user` chooses the main flow, none the login flow.
  ///
  /// The stacks saved in `snapshot` are then restored for the coordinators of that flow.
  public func launch(restoring snapshot: AppSnapshot? = nil) throws(NavigationError) {
    try storage {
      try dependencies.log.tracer.withSpan(typeName, "start") { _ in try launchInSpan(snapshot) }
    }
  }

  private func launchInSpan(_ snapshot: AppSnapshot?) throws(NavigationError) {
    if let email = try dependencies.sessionStore.signedInEmail() {
      let who = email.isEmpty ? "a session" : "a session for \(email)"
      dependencies.log.record(
        typeName, "chooses flow", subject: "main", text: "finds \(who) in 'user': main flow")
      show(.main)
    } else {
      dependencies.log.record(
        typeName, "chooses flow", subject: "login", text: "finds no session in 'user': login flow")
      show(.login)
    }
    if let snapshot { restore(snapshot) }
  }

  /// The alert's controller.
  public override func makeController(for screen: Screen) -> ScreenControlling? {
    guard case .alert(let error) = screen else { return nil }
    return dependencies.root.alertController(dependencies: dependencies, error: error) {
      [weak self] event in self?.handle(event)
    }
  }

  /// Handles an app event from a flow, or from `app error`.
  public func handle(_ event: AppEvent) {
    handling(event) {
      switch event {
      case .mainFlow: show(.main)
      case .authorizationFlow: show(.login)
      case .appError(.unauthorized):
        do {
          if try dependencies.sessionStore.logOut() {
            dependencies.log.record(
              "SessionStore", "removes", subject: "session", text: "removes the session from 'user'"
            )
          }
        } catch {
          dependencies.log.record(
            "SessionStore", "cannot remove", subject: "session",
            text: "cannot remove the session: \(error)")
        }
        show(.login)
      case .appError(let error): navigationController.present(.alert(error))
      }
    }
  }

  func handle(_ event: AlertEvent) {
    handling(event) {
      switch event {
      case .dismissTapped: navigationController.dismiss()
      }
    }
  }

  /// Logs in from the login flow's screen: its presenter stores the session and sends
  /// `loginSucceeded`.
  public func logIn(email: String) throws(NavigationError) {
    guard flow == .login else {
      throw .alreadyLoggedIn(email: (try? dependencies.sessionStore.signedInEmail() ?? "") ?? "")
    }
    try controller(forCoordinatorNamed: "login").send(
      eventNamed: "loginSucceeded", value: .email(email))
  }

  /// Removes the session and shows the login flow, whatever screen is shown.
  public func logOut() throws(NavigationError) {
    try storage {
      try dependencies.log.tracer.withSpan(typeName, "logs out") { _ in
        try dependencies.sessionStore.logOut()
        dependencies.log.record(
          "SessionStore", "removes", subject: "session", text: "removes the session from 'user'")
        handle(.authorizationFlow)
      }
    }
  }

  /// This coordinator and every one under it, in tree order.
  public var coordinators: [FlowCoordinator] {
    var result: [FlowCoordinator] = []
    func walk(_ coordinator: FlowCoordinator) {
      result.append(coordinator)
      coordinator.children.forEach(walk)
    }
    walk(self)
    return result
  }

  /// The coordinator named `name`.
  public func coordinator(named name: String) throws(NavigationError) -> FlowCoordinator {
    if let found = coordinators.first(where: { $0.name == name }) { return found }
    if Self.coordinatorNames.contains(name) {
      throw .coordinatorNotRunning(name, flow: flow.rawValue)
    }
    throw .unknownCoordinator(
      name, suggestion: Suggestion.nearest(to: name, among: Self.coordinatorNames))
  }

  /// The coordinator whose screen the user sees: the alert's, the login flow's, or the selected
  /// tab's.
  public var visibleCoordinator: FlowCoordinator {
    if navigationController.presentedScreen != nil { return self }
    if let tabBar = children.first as? TabBarContainer { return tabBar.selectedFlow ?? tabBar }
    return children.first ?? self
  }

  /// The coordinator named `name`, or the visible one when `name` is nil.
  public func target(_ name: String?) throws(NavigationError) -> FlowCoordinator {
    guard let name else { return visibleCoordinator }
    return try coordinator(named: name)
  }

  /// A new controller for the screen a coordinator shows (the visible one when `name` is nil).
  ///
  /// While an alert is presented, only the alert's controller can be reached.
  public func controller(forCoordinatorNamed name: String?) throws(NavigationError)
    -> ScreenControlling
  {
    let coordinator = try target(name)
    if let alert = navigationController.presentedScreen, coordinator !== self {
      throw .blockedByAlert(alert.description)
    }
    guard let screen = coordinator.navigationController.visibleScreen,
      let controller = coordinator.makeController(for: screen)
    else { throw .noScreen(coordinator.name) }
    return controller
  }

  /// The state to save.
  public var snapshot: AppSnapshot {
    var stacks: [String: [String]] = [:]
    for coordinator in coordinators where coordinator !== self {
      stacks[coordinator.name] = coordinator.navigationController.screens.map(\.description)
    }
    return AppSnapshot(
      flow: flow.rawValue, selectedTab: (children.first as? TabBarContainer)?.selectedTab,
      alert: navigationController.presentedScreen?.description, stacks: stacks)
  }

  private func show(_ newFlow: Flow) {
    if let current = children.first {
      childCoordinators.removeAll()
      dependencies.log.record(typeName, "removes", subject: current.typeName)
    }
    navigationController.dismiss()
    flow = newFlow
    let child: FlowCoordinator =
      newFlow == .main
      ? dependencies.main.tabBarContainer(dependencies: dependencies)
      : dependencies.entry.loginFlowCoordinator(dependencies: dependencies)
    startChild(child) { [weak self] event in self?.handle(event) }
  }

  /// Restores saved stacks whose root matches and whose screens the coordinator can show.
  private func restore(_ snapshot: AppSnapshot) {
    var restored: [String] = []
    for coordinator in coordinators where coordinator !== self {
      guard let saved = snapshot.stacks[coordinator.name] else { continue }
      let screens = saved.compactMap(Screen.init)
      guard screens.count == saved.count, !screens.isEmpty,
        screens.first == coordinator.navigationController.screens.first,
        screens.allSatisfy({ coordinator.makeController(for: $0) != nil })
      else { continue }
      coordinator.navigationController.restore(screens: screens, presented: nil)
      if screens.count > 1 {
        restored.append("\(coordinator.name): \(coordinator.navigationController.stackDescription)")
      }
    }
    if let tabBar = children.first as? TabBarContainer, let tab = snapshot.selectedTab {
      tabBar.restore(selectedTab: tab)
      if tab != .discover { restored.append("tab: \(tab.rawValue)") }
    }
    if snapshot.flow == flow.rawValue, let text = snapshot.alert, let alert = Screen(text),
      case .alert = alert
    {
      navigationController.restore(screens: [], presented: alert)
      restored.append("alert: \(alert)")
    }
    dependencies.log.record(
      typeName, "restores", subject: "saved state",
      text: restored.isEmpty
        ? "restores the saved state"
        : "restores the saved state (\(restored.joined(separator: "; ")))")
  }
}
