import Domain
import Foundation

/// The catalog's media items for the app's presenters: cached products, fetched over HTTP when
/// missing (the example app's first fifteen, as `ds new --products` lists them).
final class SessionMediaLibrary: MediaLibrary {
  private unowned let session: Session
  static let discoverIDs = Array(1...15)

  init(session: Session) { self.session = session }

  /// The cached products in one read, by id; a copy from the API in use wins over another
  /// server's.
  func mediaItems() throws -> [Product] {
    let cache = try session.persistenceController(.productCache)
    let preferred = session.knownAPIURL?.absoluteString
    var cached: [Int: Product] = [:]
    for entry in try StoreGroup.located(nil, { try cache.peekObjects() }) {
      guard let id = ProductGroup.productID(inKey: entry.key),
        cached[id] == nil || preferred.map(entry.key.hasPrefix) == true,
        let product = try? JSONDecoder().decode(Product.self, from: entry.value)
      else { continue }
      cached[id] = product
    }
    return try Self.discoverIDs.map { id in try cached[id] ?? mediaItem(id: id) }
  }

  func mediaItem(id: Int) throws -> Product {
    let word = Word(String(id))
    if let (product, _) = try? ProductGroup.cached(session, word) { return product }
    let url = try ProductGroup.remoteURL(for: word, session: session)
    return try session.productUpdater().updateProduct(from: url).get()
  }
}

/// `app`: AppConfigurator, the root of the MVC+C coordinators (seed 004).
enum AppGroup {
  static let group = CommandGroup(
    "app", summary: "launch the MVC+C app, log in and out, and raise app errors",
    discussion: """
      AppConfigurator (filmsstorm's MVC+C guide, seed 004) is the root coordinator. At launch a \
      session id stored in the 'user' store chooses the main flow (a tab bar container with the \
      Discover, Favourites and Profile flows); without one it chooses the login flow. A flow's \
      coordinator sends app events up: mainFlow, authorizationFlow, appError(KIND). Switching \
      flows drops the other root coordinator; appError shows an alert, and unauthorized removes \
      the session and routes to login.
      Where archsh differs from the guide: the guide never removes a child coordinator, and \
      archsh removes the root flow's coordinator when the other flow replaces it, so that 'coord \
      tree' shows what is alive. The session id is a secret: it is stored, never shown.
      The app's state (root flow, selected tab, alert, every stack) is saved in the workspace \
      after each change and restored on the next start; 'app reset' clears it.
      """,
    commands: [start, state, relaunch, reset, login, logout, error])

  // MARK: - Commands

  static let start = Command(
    "start", summary: "launch the app: the session in 'user' chooses the flow",
    discussion: """
      With --session ID, the id is stored in the 'user' store first, as a keychain would hold \
      it, so the main flow starts. The line is kept out of history. An app that is running, or \
      saved in the workspace, is not started again: see 'app relaunch' and 'app reset'.
      """,
    signature: Signature([
      .option("session", .text, value: "ID", "store this session id first", secret: true)
    ]),
    examples: ["app start", "app start --session s3cr3t"]
  ) { invocation in
    let session = invocation.session
    let dependencies = try dependencies(session)
    if let app = session.app { throw shellError(.alreadyRunning(flow: app.flow.rawValue)) }
    if let saved = try located(
      nil, { () throws(NavigationError) in try stateStore(session).load() })
    {
      throw shellError(.alreadyRunning(flow: saved.flow))
    }
    if let id = invocation.arguments.string("session") {
      try located(nil) { () throws(NavigationError) in
        try dependencies.sessionStore.store(id: id, email: nil)
      }
      dependencies.log.record("SessionStore", "stores the given session in 'user'")
    }
    let app = AppConfigurator(dependencies: dependencies)
    try located(nil) { () throws(NavigationError) in try app.launch() }
    session.app = app
    try save(session)
    return .sequence([.events(drain(session)), .tree(CoordGroup.tree(app))])
  }

  static let state = Command(
    "state", summary: "the flow, the session, the visible screen and the saved state",
    examples: ["app state"]
  ) { invocation in
    let session = invocation.session
    let dependencies = try dependencies(session)
    let email = try located(nil) { () throws(NavigationError) in
      try dependencies.sessionStore.signedInEmail()
    }
    let sessionText =
      email.map { $0.isEmpty ? "stored in 'user' (id hidden)" : "\($0) (id hidden, in 'user')" }
      ?? "none"
    let saved = try located(nil) { () throws(NavigationError) in try stateStore(session).load() }
    guard let app = try running(session, required: false) else {
      return .record([
        Field("running", .bool(false)), Field("session", .string(sessionText)),
        Field("saved", .bool(saved != nil)),
      ])
    }
    let visible = app.visibleCoordinator
    let screen = visible.navigationController.visibleScreen.map(\.description) ?? "nothing"
    return .record([
      Field("running", .bool(true)), Field("flow", .string(app.flow.rawValue)),
      Field("session", .string(sessionText)),
      Field("visible", .string("\(screen) (\(visible.name))")),
      Field(
        "alert", app.navigationController.presentedScreen.map { .string($0.description) } ?? .null),
      Field("coordinators", .int(app.coordinators.count)),
      Field("saved", .bool(saved != nil)),
    ])
  }

  static let relaunch = Command(
    "relaunch", summary: "end the app and launch it again from the saved state, as a new process",
    discussion: """
      The coordinators in memory are dropped and AppConfigurator launches again from the \
      workspace: the session chooses the flow, and the saved stacks of that flow's coordinators \
      are restored. A new archsh process on the same workspace does the same on first use.
      """,
    examples: ["app relaunch"]
  ) { invocation in
    let session = invocation.session
    session.app = nil
    guard let app = try running(session, required: true, quiet: false) else {
      throw shellError(.notRunning)
    }
    return .sequence([.events(drain(session)), .tree(CoordGroup.tree(app))])
  }

  static let reset = Command(
    "reset", summary: "stop the app and clear its saved state; the session is kept",
    discussion: """
      The session in 'user' stays, so the next 'app start' chooses the main flow if there is \
      one: 'app logout' first, or 'store remove user sessionID', to start logged out.
      """,
    examples: ["app reset"]
  ) { invocation in
    let session = invocation.session
    let wasRunning = session.app != nil
    session.app = nil
    let cleared = try located(nil) { () throws(NavigationError) in try stateStore(session).clear() }
    return .text(
      wasRunning || cleared
        ? "the app is stopped and its saved state cleared; the session in 'user' is kept"
        : "the app was not running and nothing was saved")
  }

  static let login = Command(
    "login", summary: "log in from the login flow: the presenter stores a session, then mainFlow",
    discussion: """
      The Login (or SignUp) presenter checks the email, stores a new session id in 'user', and \
      sends loginSucceeded(EMAIL); LoginFlowCoordinator clears its stack and sends mainFlow up, \
      and AppConfigurator replaces the login flow with the tab bar. The same as 'event send \
      login loginSucceeded EMAIL'.
      """,
    signature: Signature([.argument("EMAIL", .text, "the email address")]),
    examples: ["app login ada@example.com"]
  ) { invocation in
    let email = invocation.arguments.word("EMAIL") ?? Word("")
    return try navigate(invocation.session) { app in
      try located(email) { () throws(NavigationError) in try app.logIn(email: email.text) }
    }
  }

  static let logout = Command(
    "logout", summary: "remove the session and show the login flow, from any screen",
    examples: ["app logout"]
  ) { invocation in
    try navigate(invocation.session) { app in
      guard app.flow == .main else {
        throw ShellError(
          "nobody is logged in: the app is in the login flow",
          hint: "log in with 'app login EMAIL'")
      }
      try located(nil) { () throws(NavigationError) in try app.logOut() }
    }
  }

  static let error = Command(
    "error", summary: "send appError(KIND) to AppConfigurator, as a failing flow would",
    discussion: """
      unauthorized removes the session and routes to the login flow; any other kind presents \
      an alert over every screen until 'event send app dismissTapped'.
      """,
    signature: Signature([
      .argument("KIND", .choice(AppError.allCases.map(\.rawValue)), "the app error")
    ]),
    examples: ["app error network", "app error unauthorized"]
  ) { invocation in
    guard let kind = AppError(rawValue: invocation.arguments.string("KIND") ?? "") else {
      throw ShellError("unknown error kind")
    }
    return try navigate(invocation.session) { app in app.handle(.appError(kind)) }
  }

  // MARK: - Shared with coord, event and screen

  /// The session's app dependencies: the `user` and `bookmarks` stores and the media library.
  static func dependencies(_ session: Session) throws -> AppDependencies {
    if let made = session.appDependencies { return made }
    let made = AppDependencies(
      log: NavigationLog(tracer: session.tracer),
      mediaLibrary: SessionMediaLibrary(session: session),
      sessionStore: SessionStore(store: try session.persistenceController(.user)),
      favourites: FavouritesStore(store: try session.persistenceController(.bookmarks)))
    session.appDependencies = made
    return made
  }

  static func stateStore(_ session: Session) throws(NavigationError) -> AppStateStore {
    do {
      return AppStateStore(workspace: try session.factory.workspace())
    } catch {
      throw .storage(String(describing: error))
    }
  }

  /// The running app, restored from the workspace on first use; an error when there is none.
  static func runningApp(_ session: Session) throws -> AppConfigurator {
    guard let app = try running(session, required: true) else { throw shellError(.notRunning) }
    _ = drain(session)
    return app
  }

  /// The running app, restored from the saved state when the session has none in memory.
  ///
  /// A restore's own steps are dropped unless `quiet` is false.
  static func running(_ session: Session, required: Bool, quiet: Bool = true) throws
    -> AppConfigurator?
  {
    if let app = session.app { return app }
    let dependencies = try dependencies(session)
    guard
      let saved = try located(nil, { () throws(NavigationError) in try stateStore(session).load() })
    else {
      if required { throw shellError(.notRunning) }
      return nil
    }
    let app = AppConfigurator(dependencies: dependencies)
    try located(nil) { () throws(NavigationError) in try app.launch(restoring: saved) }
    session.app = app
    if quiet { _ = dependencies.log.drain() }
    try save(session)
    return app
  }

  /// Runs a navigation on the running app, saves the state, and shows what each part did.
  static func navigate(_ session: Session, _ body: (AppConfigurator) throws -> Void) throws
    -> Output
  {
    let app = try runningApp(session)
    try body(app)
    try save(session)
    return .events(drain(session))
  }

  /// Saves the app's state in the workspace.
  static func save(_ session: Session) throws {
    guard let app = session.app else { return }
    try located(nil) { () throws(NavigationError) in try stateStore(session).save(app.snapshot) }
  }

  /// The steps recorded since the last call, as `~` lines.
  static func drain(_ session: Session) -> [String] {
    (session.appDependencies?.log.drain() ?? []).map(\.description)
  }

  /// Runs `body`, turning a navigation error into a shell error at `word`.
  static func located<T>(_ word: Word?, _ body: () throws(NavigationError) -> T) throws -> T {
    do {
      return try body()
    } catch {
      throw shellError(error, at: word?.offset)
    }
  }

  /// A navigation error as a one-line shell error with its hint.
  static func shellError(_ error: NavigationError, at offset: Int? = nil) -> ShellError {
    let hint: String?
    switch error {
    case .notRunning: hint = "start it with 'app start'"
    case .alreadyRunning:
      hint = "'app relaunch' launches it again from the saved state; 'app reset' clears it"
    case .unknownCoordinator(_, .some):
      hint = nil
    case .unknownCoordinator:
      hint = "the coordinators are \(AppConfigurator.coordinatorNames.joined(separator: ", "))"
    case .coordinatorNotRunning(_, let flow):
      hint = flow == "login" ? "log in first: app login EMAIL" : "log out first: app logout"
    case .noScreen(let name):
      hint =
        name == "app"
        ? "AppConfigurator shows a screen only while it presents an alert" : "see 'coord tree'"
    case .blockedByAlert: hint = "dismiss it first: event send app dismissTapped"
    case .eventNotAllowed, .missingArgument, .badArgument, .unexpectedArgument:
      hint = "see 'event list'"
    case .rowOutOfRange, .rowNotSelectable: hint = "'screen show' lists the rows to select"
    case .alreadyLoggedIn: hint = "log out first: app logout"
    case .loadFailed: hint = "'net log' shows the requests"
    case .storage: hint = nil
    }
    return ShellError(error.description, hint: hint, at: offset)
  }
}
