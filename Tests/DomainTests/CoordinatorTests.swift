import Foundation
import Testing

@testable import Domain

/// A catalog of four media items in two families; a fake, so that no test needs HTTP.
private final class FakeLibrary: MediaLibrary {
  let products = [
    Product(id: 1, name: "iPhone 15 Pro", family: "iPhones", priceCents: 99_900),
    Product(id: 2, name: "iPhone SE", family: "iPhones", priceCents: 42_900),
    Product(id: 5, name: "iPad Air", family: "iPads", priceCents: 59_900),
    Product(id: 9, name: "Apple TV HD", family: "Apple TVs", priceCents: 9_900),
  ]
  func mediaItems() throws -> [Product] { products }
  func mediaItem(id: Int) throws -> Product {
    guard let product = products.first(where: { $0.id == id }) else {
      throw NavigationError.storage("no product \(id)")
    }
    return product
  }
}

/// A TestStore-style harness: each step sends one event and asserts the whole coordinator tree,
/// the session, and exactly what the app recorded.
private final class AppHarness {
  let factory = ApplicationFactory(databasePath: ":memory:")
  let tracer: Tracer
  let dependencies: AppDependencies
  let app: AppConfigurator

  init(session: String? = nil) throws {
    tracer = factory.tracer
    dependencies = AppDependencies(
      log: NavigationLog(tracer: tracer), mediaLibrary: FakeLibrary(),
      sessionStore: SessionStore(
        store: try factory.persistenceController(identifier: "user"),
        makeSessionID: { "sess-test" }),
      favourites: FavouritesStore(
        store: try factory.persistenceController(identifier: "bookmarks"),
        decoder: factory.json.decoder(), encoder: factory.json.encoder()),
      entry: factory.entry, main: factory.main, root: factory)
    if let session { try dependencies.sessionStore.store(id: session, email: "ada@example.com") }
    app = AppConfigurator(dependencies: dependencies)
  }

  var email: String? { (try? dependencies.sessionStore.signedInEmail()) ?? nil }

  /// Sends `event` from the screen `coordinator` shows and asserts the whole state afterwards.
  func send(
    _ coordinator: String, _ event: String, _ argument: EventValue? = nil, records: [String],
    state: CoordinatorState, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let controller = try app.controller(forCoordinatorNamed: coordinator)
    try controller.send(eventNamed: event, value: argument)
    assert(records: records, state: state, sourceLocation: sourceLocation)
  }

  func assert(
    records: [String], state: CoordinatorState, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(dependencies.log.drain().map(\.description) == records, sourceLocation: sourceLocation)
    #expect(app.state == state, "\n\(app.state)", sourceLocation: sourceLocation)
  }
}

// The expected trees, built the way the tests read them.
func app(
  _ child: CoordinatorState, presented: Screen? = nil
) -> CoordinatorState {
  CoordinatorState("AppConfigurator", stack: [], presented: presented, children: [child])
}

func login(_ stack: [Screen] = [.login]) -> CoordinatorState {
  CoordinatorState("LoginFlowCoordinator", stack: stack)
}

func main(
  tab: Tab = .discover, discover: [Screen] = [.discover], favourites: [Screen] = [.favourites],
  profile: [Screen] = [.profile]
) -> CoordinatorState {
  CoordinatorState(
    "TabBarContainer", stack: [.tabBar], selectedTab: tab,
    children: [
      CoordinatorState("DiscoverFlowCoordinator", stack: discover),
      CoordinatorState("FavouritesFlowCoordinator", stack: favourites),
      CoordinatorState("ProfileFlowCoordinator", stack: profile),
    ])
}

private let mainFlowStarts = [
  "AppConfigurator appends TabBarContainer and starts it", "TabBarContainer starts with TabBar",
  "TabBarContainer appends DiscoverFlowCoordinator and starts it",
  "DiscoverFlowCoordinator starts with Discover",
  "TabBarContainer appends FavouritesFlowCoordinator and starts it",
  "FavouritesFlowCoordinator starts with Favourites",
  "TabBarContainer appends ProfileFlowCoordinator and starts it",
  "ProfileFlowCoordinator starts with Profile",

]

/// Every value an object stores, through its superclasses, and inside arrays and optionals.
private func storedValues(_ subject: Any) -> [Any] {
  var values: [Any] = []
  var mirror: Mirror? = Mirror(reflecting: subject)
  while let current = mirror {
    for child in current.children {
      values.append(child.value)
      let inner = Mirror(reflecting: child.value)
      if inner.displayStyle == .collection || inner.displayStyle == .optional {
        values += inner.children.map(\.value)
      }
    }
    mirror = current.superclassMirror
  }
  return values
}

@Suite("MVC+C coordinators, TestStore-style")
struct CoordinatorTests {
  @Test("a launch without a session shows login; logging in clears its stack and starts the tabs")
  func loginToMain() throws {
    // Given no session in 'user'
    let harness = try AppHarness()
    // When the app launches, then the login flow is the only child
    try harness.app.launch()
    harness.assert(
      records: [
        "AppConfigurator finds no session in 'user': login flow",
        "AppConfigurator appends LoginFlowCoordinator and starts it",
        "LoginFlowCoordinator starts with Login",
      ], state: app(login()))

    try harness.send(
      "login", "signUpTapped",
      records: [
        "Presenter(Login) sends signUpTapped", "LoginFlowCoordinator pushes SignUp",
        "LoginFlowCoordinator stack: Login › SignUp",
      ], state: app(login([.login, .signUp])))

    // A bad email fails in the presenter: nothing is recorded, stored or navigated
    #expect(
      throws: NavigationError.badArgument(
        event: "loginSucceeded", value: "ada", reason: "is not an email address")
    ) {
      try harness.app.logIn(email: "ada")
    }
    harness.assert(records: [], state: app(login([.login, .signUp])))
    #expect(harness.email == nil)

    // Logging in from SignUp stores the session, clears the stack, sends mainFlow up, and the
    // login flow's coordinator is removed (the guide keeps it)
    try harness.app.logIn(email: "ada@example.com")
    harness.assert(
      records: [
        "Presenter(SignUp) sends loginSucceeded(ada@example.com)",
        "SessionStore stores a session for ada@example.com in 'user'",
        "LoginFlowCoordinator clears its stack", "LoginFlowCoordinator stack: (empty)",
        "LoginFlowCoordinator sends mainFlow up", "AppConfigurator removes LoginFlowCoordinator",
      ] + mainFlowStarts, state: app(main()))
    #expect(harness.email == "ada@example.com")
    #expect(harness.app.flow == .main)
    #expect(throws: NavigationError.alreadyLoggedIn(email: "ada@example.com")) {
      try harness.app.logIn(email: "bob@example.com")
    }
  }

  @Test("Discover pushes, pops and resets its stack; a related item pushes another")
  func discoverNavigation() throws {
    let harness = try AppHarness(session: "s")
    try harness.app.launch()
    harness.assert(
      records: ["AppConfigurator finds a session for ada@example.com in 'user': main flow"]
        + mainFlowStarts, state: app(main()))

    try harness.send(
      "discover", "mediaItemSelected", .id(1),
      records: [
        "Presenter(Discover) sends mediaItemSelected(1)",
        "DiscoverFlowCoordinator pushes MediaItem(1)",
        "DiscoverFlowCoordinator stack: Discover › MediaItem(1)",
      ], state: app(main(discover: [.discover, .mediaItem(1)])))

    // The media item's related row (section 2, row 0) is iPhone SE: selecting it pushes it
    let controller = try harness.app.controller(forCoordinatorNamed: "discover")
    try controller.loadRootView().provider.didSelectRow(at: IndexPath(row: 0, section: 2))
    harness.assert(
      records: [
        "Presenter(MediaItem) sends mediaItemSelected(2)",
        "DiscoverFlowCoordinator pushes MediaItem(2)",
        "DiscoverFlowCoordinator stack: Discover › MediaItem(1) › MediaItem(2)",
      ], state: app(main(discover: [.discover, .mediaItem(1), .mediaItem(2)])))

    try harness.send(
      "discover", "backTapped",
      records: [
        "Presenter(MediaItem) sends backTapped", "DiscoverFlowCoordinator pops MediaItem(2)",
        "DiscoverFlowCoordinator stack: Discover › MediaItem(1)",
      ], state: app(main(discover: [.discover, .mediaItem(1)])))

    try harness.send(
      "discover", "mediaItemSelected", .id(5),
      records: [
        "Presenter(MediaItem) sends mediaItemSelected(5)",
        "DiscoverFlowCoordinator pushes MediaItem(5)",
        "DiscoverFlowCoordinator stack: Discover › MediaItem(1) › MediaItem(5)",
      ], state: app(main(discover: [.discover, .mediaItem(1), .mediaItem(5)])))

    try harness.send(
      "discover", "headerTapped",
      records: [
        "Presenter(MediaItem) sends headerTapped", "DiscoverFlowCoordinator pops to the root",
        "DiscoverFlowCoordinator stack: Discover",
      ], state: app(main()))

    // At the root, headerTapped changes nothing
    try harness.send(
      "discover", "headerTapped",
      records: [
        "Presenter(Discover) sends headerTapped",
        "DiscoverFlowCoordinator stays: already at the root",
      ], state: app(main()))
  }

  @Test("an event the screen cannot send is an error listing what it can send")
  func eventNotAllowed() throws {
    let harness = try AppHarness(session: "s")
    try harness.app.launch()
    _ = harness.dependencies.log.drain()
    #expect(
      throws: NavigationError.eventNotAllowed(
        screen: "Discover", event: "backTapped",
        allowed: ["mediaItemSelected(id)", "headerTapped", "failed(error)"])
    ) {
      try harness.app.controller(forCoordinatorNamed: "discover").send(
        eventNamed: "backTapped", value: nil)
    }
    #expect(
      throws: NavigationError.badArgument(
        event: "mediaItemSelected", value: "x", reason: "is not a product id")
    ) {
      try harness.app.controller(forCoordinatorNamed: "discover").send(
        eventNamed: "mediaItemSelected", value: .email("x"))
    }
    #expect(throws: NavigationError.coordinatorNotRunning("login", flow: "main")) {
      try harness.app.controller(forCoordinatorNamed: "login")
    }
    #expect(throws: NavigationError.unknownCoordinator("discovr", suggestion: "discover")) {
      try harness.app.controller(forCoordinatorNamed: "discovr")
    }
    harness.assert(records: [], state: app(main()))
  }

  @Test("tabs, favourites, settings and logout: each event's whole state")
  func tabsAndProfile() throws {
    let harness = try AppHarness(session: "s")
    try harness.app.launch()
    _ = harness.dependencies.log.drain()

    try harness.send(
      "discover", "mediaItemSelected", .id(9),
      records: [
        "Presenter(Discover) sends mediaItemSelected(9)",
        "DiscoverFlowCoordinator pushes MediaItem(9)",
        "DiscoverFlowCoordinator stack: Discover › MediaItem(9)",
      ], state: app(main(discover: [.discover, .mediaItem(9)])))
    try harness.send(
      "discover", "favouriteToggled",
      records: [
        "Presenter(MediaItem) sends favouriteToggled", "FavouritesStore adds 9 to 'bookmarks'",
        "DiscoverFlowCoordinator does not navigate",
      ], state: app(main(discover: [.discover, .mediaItem(9)])))
    #expect(try harness.dependencies.favourites.ids() == [9])

    try harness.send(
      "tabbar", "tabSelected", .tab(.favourites),
      records: [
        "Presenter(TabBar) sends tabSelected(favourites)",
        "TabBarContainer selects the favourites tab",
      ], state: app(main(tab: .favourites, discover: [.discover, .mediaItem(9)])))
    #expect(harness.app.visibleCoordinator.name == "favourites")

    // The favourites list is the bookmarks store, through the provider: row 0 is item 9
    let favourites = try harness.app.controller(forCoordinatorNamed: nil)
    #expect(try favourites.loadRootView().dataSourceController.totalRowCount == 1)
    try favourites.loadRootView().provider.didSelectRow(at: IndexPath(row: 0, section: 0))
    harness.assert(
      records: [
        "Presenter(Favourites) sends mediaItemSelected(9)",
        "FavouritesFlowCoordinator pushes MediaItem(9)",
        "FavouritesFlowCoordinator stack: Favourites › MediaItem(9)",
      ],
      state: app(
        main(
          tab: .favourites, discover: [.discover, .mediaItem(9)],
          favourites: [.favourites, .mediaItem(9)])))

    try harness.send(
      "tabbar", "tabSelected", .tab(.profile),
      records: [
        "Presenter(TabBar) sends tabSelected(profile)", "TabBarContainer selects the profile tab",
      ],
      state: app(
        main(
          tab: .profile, discover: [.discover, .mediaItem(9)],
          favourites: [.favourites, .mediaItem(9)])))
    try harness.send(
      "profile", "settingsTapped",
      records: [
        "Presenter(Profile) sends settingsTapped", "ProfileFlowCoordinator pushes Settings",
        "ProfileFlowCoordinator stack: Profile › Settings",
      ],
      state: app(
        main(
          tab: .profile, discover: [.discover, .mediaItem(9)],
          favourites: [.favourites, .mediaItem(9)], profile: [.profile, .settings])))
    try harness.send(
      "profile", "backTapped",
      records: [
        "Presenter(Settings) sends backTapped", "ProfileFlowCoordinator pops Settings",
        "ProfileFlowCoordinator stack: Profile",
      ],
      state: app(
        main(
          tab: .profile, discover: [.discover, .mediaItem(9)],
          favourites: [.favourites, .mediaItem(9)])))

    // Log out: the presenter removes the session, the flow sends authorizationFlow up through
    // the tab bar, and the whole main flow is replaced by a fresh login flow
    try harness.send(
      "profile", "logoutTapped",
      records: [
        "Presenter(Profile) sends logoutTapped", "SessionStore removes the session from 'user'",
        "ProfileFlowCoordinator sends authorizationFlow up",
        "TabBarContainer sends authorizationFlow up", "AppConfigurator removes TabBarContainer",
        "AppConfigurator appends LoginFlowCoordinator and starts it",
        "LoginFlowCoordinator starts with Login",
      ], state: app(login()))
    #expect(harness.email == nil)
  }

  @Test("appError presents an alert that blocks every other screen; unauthorized routes to login")
  func appErrors() throws {
    let harness = try AppHarness(session: "s")
    try harness.app.launch()
    _ = harness.dependencies.log.drain()

    try harness.send(
      "discover", "failed", .error(.network),
      records: [
        "Presenter(Discover) sends failed(network)",
        "DiscoverFlowCoordinator sends appError(network) up",
        "TabBarContainer sends appError(network) up", "AppConfigurator presents Alert(network)",
      ], state: app(main(), presented: .alert(.network)))
    #expect(throws: NavigationError.blockedByAlert("Alert(network)")) {
      try harness.app.controller(forCoordinatorNamed: "discover")
    }
    #expect(harness.app.visibleCoordinator === harness.app)

    try harness.send(
      "app", "dismissTapped",
      records: [
        "Presenter(Alert) sends dismissTapped", "AppConfigurator dismisses Alert(network)",
      ],
      state: app(main()))
    #expect(throws: NavigationError.noScreen("app")) {
      try harness.app.controller(forCoordinatorNamed: "app")
    }

    harness.app.handle(.appError(.unauthorized))
    harness.assert(
      records: [
        "SessionStore removes the session from 'user'", "AppConfigurator removes TabBarContainer",
        "AppConfigurator appends LoginFlowCoordinator and starts it",
        "LoginFlowCoordinator starts with Login",
      ], state: app(login()))
    #expect(harness.email == nil)
  }

  @Test("the state saved in the workspace is restored for the flow the session chooses")
  func saveAndRestore() throws {
    let harness = try AppHarness(session: "s")
    try harness.app.launch()
    let events: [(String, String, EventValue?)] = [
      ("discover", "mediaItemSelected", .id(1)), ("tabbar", "tabSelected", .tab(.profile)),
      ("profile", "settingsTapped", nil),
    ]
    for (name, event, argument) in events {
      try harness.app.controller(forCoordinatorNamed: name).send(
        eventNamed: event, value: argument)
    }
    harness.app.handle(.appError(.server))
    let store = try harness.factory.appStateStore
    try store.save(harness.app.snapshot)

    // A new AppConfigurator, as a new process would make, restores every stack
    let saved = try #require(try store.load())
    let relaunched = AppConfigurator(dependencies: harness.dependencies)
    try relaunched.launch(restoring: saved)
    #expect(
      relaunched.state
        == app(
          main(
            tab: .profile, discover: [.discover, .mediaItem(1)], profile: [.profile, .settings]),
          presented: .alert(.server)))

    // Without a session, the login flow is chosen and the main flow's stacks are not applied
    try harness.dependencies.sessionStore.logOut()
    let loggedOut = AppConfigurator(dependencies: harness.dependencies)
    try loggedOut.launch(restoring: saved)
    #expect(loggedOut.state == app(login()))

    // A saved stack a coordinator cannot show is ignored
    var tampered = saved
    tampered.stacks["discover"] = ["Discover", "Settings"]
    tampered.alert = nil
    try harness.dependencies.sessionStore.store(id: "s", email: nil)
    let guarded = AppConfigurator(dependencies: harness.dependencies)
    try guarded.launch(restoring: tampered)
    #expect(guarded.state == app(main(tab: .profile, profile: [.profile, .settings])))

    #expect(try store.clear())
    #expect(try store.load() == nil)
    #expect(try !store.clear())
  }

  @Test("a coordinator never stores a controller, only its stack of screens")
  func coordinatorsStoreNoControllers() throws {
    let harness = try AppHarness(session: "s")
    try harness.app.launch()
    // Every screen has been shown and has sent an event, so a controller would have been kept
    for name in ["discover", "favourites", "profile", "tabbar"] {
      let controller = try harness.app.controller(forCoordinatorNamed: name)
      _ = try controller.loadRootView()
    }
    try harness.app.controller(forCoordinatorNamed: "discover").send(
      eventNamed: "mediaItemSelected", value: .id(1))
    for coordinator in harness.app.coordinators {
      let held = storedValues(coordinator)
      #expect(
        !held.contains { $0 is ScreenControlling }, "\(coordinator.typeName) keeps a controller")
      #expect(!held.contains { $0 is any EventSource })
      #expect(held.contains { $0 is NavigationController })
    }
  }

  @Test("a controller never navigates: its row selection only reaches its presenter's handler")
  func controllersDoNotNavigate() throws {
    let harness = try AppHarness(session: "s")
    try harness.app.launch()
    _ = harness.dependencies.log.drain()
    // A Discover controller whose presenter reports to a recorder instead of a coordinator
    var heard: [DiscoverEvent] = []
    let presenter = DiscoverPresenter("Discover", dependencies: harness.dependencies) {
      heard.append($0)
    }
    let controller = harness.factory.core.screenController(
      MainFactory.discoverControllerComponent, .discover, providers: harness.factory.dataSource
    ) { presenter }
    let view = try controller.loadRootView()
    // The provider supplies the list through a DataSourceController with products as detail cells
    #expect(view.dataSourceController.sections.map(\.rows.count) == [2, 1, 1])
    let cell = view.dataSourceController.cellDataController(at: IndexPath(row: 1, section: 0))
    #expect(
      cell as? DetailCellDataController
        == DetailCellDataController(titleText: "iPhone SE", detailText: "$429.00"))
    try view.provider.didSelectRow(at: IndexPath(row: 0, section: 1))
    #expect(heard == [.mediaItemSelected(5)])
    // A row the list does not have is an error, and sends nothing
    #expect(throws: NavigationError.rowOutOfRange(screen: "Discover", row: "3-0", count: 4)) {
      try view.provider.didSelectRow(at: IndexPath(row: 0, section: 3))
    }
    #expect(heard == [.mediaItemSelected(5)])
    // Nothing navigated: the app is as it was
    harness.assert(records: ["Presenter(Discover) sends mediaItemSelected(5)"], state: app(main()))
    // And the controller holds no coordinator or navigation controller to navigate with
    let held = storedValues(controller)
    #expect(!held.contains { $0 is Coordinator || $0 is NavigationController })
  }

  @Test("with tracing on, an event's path is a span tree: presenter, coordinator, push, stack")
  func tracedPath() throws {
    let harness = try AppHarness(session: "s")
    try harness.app.launch()
    harness.tracer.enable()
    try harness.app.controller(forCoordinatorNamed: "discover").send(
      eventNamed: "mediaItemSelected", value: .id(2))
    let spans = harness.tracer.drainCompleted()
    #expect(spans.count == 1)
    let presenter = try #require(spans.first)
    #expect(presenter.component == "Presenter(Discover)")
    #expect(presenter.operation == "sends mediaItemSelected(2)")
    let coordinator = try #require(presenter.children.first)
    #expect(coordinator.component == "DiscoverFlowCoordinator")
    #expect(coordinator.operation == "handles mediaItemSelected(2)")
    #expect(coordinator.events == ["pushes MediaItem(2)", "stack: Discover › MediaItem(2)"])
  }
}
