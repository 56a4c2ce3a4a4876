import Foundation
import Plumbing

/// An alert's events.
public enum AlertEvent: EventProtocol {
  /// OK was tapped.
  case dismissTapped

  /// dismissTapped.
  public static let descriptors = [EventDescriptor("dismissTapped")]

  /// Builds an event from its parts.
  public static func make(_ name: String, _ value: EventValue?) -> AlertEvent? {
    name == "dismissTapped" && value == nil ? .dismissTapped : nil
  }

  /// `dismissTapped`.
  public var description: String { "dismissTapped" }
}

/// An alert for an app error.
final class AlertPresenter: Presenter<AlertEvent> {
  let error: AppError

  init(error: AppError, dependencies: AppDependencies, eventHandler: @escaping (AlertEvent) -> Void)
  {
    self.error = error
    super.init("Alert", dependencies: dependencies, eventHandler: eventHandler)
  }

  override func content() throws(NavigationError) -> ScreenContent<AlertEvent> {
    ScreenContent(
      title: "Error",
      sections: [Section(rows: [.text(error.message), .text("OK")])],
      selections: [IndexPath(row: 1, section: 0): .event(.dismissTapped)])
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
