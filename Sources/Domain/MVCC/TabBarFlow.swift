import Foundation

/// The tab bar's events.
public enum TabBarEvent: EventProtocol {
  /// A tab was tapped.
  case tabSelected(Tab)

  /// tabSelected(tab).
  public static let descriptors = [EventDescriptor("tabSelected", .tab)]

  /// Builds an event from its parts.
  public static func make(_ name: String, _ value: EventValue?) -> TabBarEvent? {
    if name == "tabSelected", case .tab(let tab)? = value { return .tabSelected(tab) }
    return nil
  }

  /// `tabSelected(profile)`.
  public var description: String {
    switch self {
    case .tabSelected(let tab): return "tabSelected(\(tab.rawValue))"
    }
  }
}

/// The tab bar container's tabs.
final class TabBarPresenter: Presenter<TabBarEvent> {
  let selectedTab: Tab

  init(
    selectedTab: Tab, dependencies: AppDependencies,
    eventHandler: @escaping (TabBarEvent) -> Void
  ) {
    self.selectedTab = selectedTab
    super.init("TabBar", dependencies: dependencies, eventHandler: eventHandler)
  }

  override func content() throws(NavigationError) -> ScreenContent<TabBarEvent> {
    let rows = Tab.allCases.map { tab in
      RowModel.detail(tab.rawValue.capitalized, tab == selectedTab ? "selected" : "")
    }
    var selections: [IndexPath: RowSelection<TabBarEvent>] = [:]
    for (index, tab) in Tab.allCases.enumerated() {
      selections[IndexPath(row: index, section: 0)] = .event(.tabSelected(tab))
    }
    return ScreenContent(title: "Tabs", sections: [Section(rows: rows)], selections: selections)
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
