import Domain
import Foundation

/// `app`: AppConfigurator, the root of the MVC+C coordinators (seed 004).
enum AppGroup {
  static let group = CommandGroup(
    "app", summary: "launch the MVC+C app, log in and out, and raise app errors",
    from: [.mvcc],
    discussion: """
      AppConfigurator (filmsstorm's MVC+C guide, seed 004) is the root coordinator. At launch a \
      session id stored in the 'user' store chooses the main flow (a tab bar container with the \
      Discover, Favourites and Profile flows); without one it chooses the login flow. A flow's \
      coordinator sends app events up: mainFlow, authorizationFlow, appError(KIND); appError \
      shows an alert, and unauthorized removes the session and routes to login.
      Child coordinators, two levels: AppConfigurator's child is the root flow's coordinator \
      (login or main), and the main flow's TabBarContainer has one child per tab. The guide \
      shows no code that removes a child from childCoordinators at either level. Where archsh \
      differs: when mainFlow or authorizationFlow replaces the root flow, archsh removes the \
      old flow's coordinator from AppConfigurator's children, so that 'coord tree' shows what is \
      alive; a tab's coordinator is never removed, as in the guide. The session id is a \
      secret: it is stored, never shown.
      The app's state (root flow, selected tab, alert, every stack) is saved in the workspace \
      after each change and restored on the next start; 'app reset' clears it.
      Two sessions, kept apart as the seeds keep them: the app's session id (this group, the \
      MVC+C guide) and the OAuth2 credential of 'auth login' (BDModules) are separate. After \
      'auth login', 'app start' still shows the login flow and 'app state' says 'session: none'; \
      'app login EMAIL' (or 'app start --session ID') logs the app in.
      """,
    commands: [start, state, relaunch, reset, login, logout, error],
    hints: hint(for:), offered: offered(in:))

  /// The verbs Tab offers in the app's state: 'start' while it is not running, 'login' in the
  /// login flow, 'logout' in the main flow.
  static func offered(in session: Session) -> Set<String>? {
    guard let app = RunningApp.forCompletion(session) else { return ["start", "state", "reset"] }
    let always: Set<String> = ["state", "relaunch", "reset", "error"]
    return always.union(app.flow == .login ? ["login"] : ["logout"])
  }

  /// The shell's hints for NavigationError, which the app, coord, event and screen commands show.
  static func hint(for error: Error) -> String? {
    guard let error = error as? NavigationError else { return nil }
    switch error {
    case .notRunning: return "start it with 'app start'"
    case .alreadyRunning:
      return "'app relaunch' launches it again from the saved state; 'app reset' clears it"
    case .unknownCoordinator(_, .some): return nil
    case .unknownCoordinator:
      return "the coordinators are \(AppConfigurator.coordinatorNames.joined(separator: ", "))"
    case .coordinatorNotRunning(_, let flow):
      return flow == "login" ? "log in first: app login EMAIL" : "log out first: app logout"
    case .noScreen(let name):
      return name == "app"
        ? "AppConfigurator shows a screen only while it presents an alert" : "see 'coord tree'"
    case .blockedByAlert: return "dismiss it first: event send app dismissTapped"
    case .eventNotAllowed, .missingArgument, .badArgument, .unexpectedArgument:
      return "see 'event list'"
    case .rowOutOfRange, .rowNotSelectable: return "'screen show' lists the rows to select"
    case .rowNeedsArgument(_, _, .email): return "log in with 'app login EMAIL'"
    case .rowNeedsArgument: return "send its event with 'event send'"
    case .alreadyLoggedIn: return "log out first: app logout"
    case .loadFailed: return "'net log' shows the requests"
    case .storage: return nil
    case .unreadableState: return "'app reset' clears it"
    }
  }
  // MARK: - Parameters

  /// `app start --session ID`; secret, so the line stays out of history.
  static let sessionOption = Option(
    "session", .text, value: "ID", "store this session id first", secret: true)
  /// `app login EMAIL`.
  static let emailArgument = Argument("EMAIL", .text, "the email address")
  /// `app error KIND`.
  static let kindArgument = Argument(
    "KIND", Kind<AppError>.choice, "the app error")

  // MARK: - Commands

  static let start = Command(
    "start", summary: "launch the app: the session in 'user' chooses the flow",
    discussion: """
      With --session ID, the id is stored in the 'user' store first, as a keychain would hold \
      it, so the main flow starts. The line is kept out of history. An app running in this shell \
      is not started again (see 'app relaunch' and 'app reset'); a state saved in the workspace, \
      by an earlier process or another one now, is what it launches into, as state restoration \
      would: the workspace keeps where the app was, never that a process runs it.
      """,
    signature: Signature([sessionOption]),
    examples: ["app start", "app start --session s3cr3t"],
    result: .sequence([
      .events(["component", "action", "subject", "text"]),
      .tree(["name", "type", "flow", "screen", "stack", "tab", "presents", "visible"]),
    ])
  ) { invocation in
    let delegate = try invocation.session.factory.appDelegate
    let app = try delegate.start(sessionID: invocation[sessionOption]?.text)
    return .sequence([.events(delegate.drain()), .tree(CoordinatorDrawing.tree(app))])
  }

  static let state = Command(
    "state", summary: "the flow, the session, the visible screen and the saved state",
    examples: ["app state"],
    result: .record(["running", "flow", "session", "visible", "alert", "coordinators", "saved"])
  ) { invocation in
    let delegate = try invocation.session.factory.appDelegate
    let email = try delegate.dependencies.sessionStore.signedInEmail()
    let sessionText =
      email.map { $0.isEmpty ? "stored in 'user' (id hidden)" : "\($0) (id hidden, in 'user')" }
      ?? "none"
    let saved = try delegate.savedState()
    guard let app = try delegate.running(required: false) else {
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
    examples: ["app relaunch"],
    result: .sequence([
      .events(["component", "action", "subject", "text"]),
      .tree(["name", "type", "flow", "screen", "stack", "tab", "presents", "visible"]),
    ])
  ) { invocation in
    let delegate = try invocation.session.factory.appDelegate
    let app = try delegate.relaunch()
    return .sequence([.events(delegate.drain()), .tree(CoordinatorDrawing.tree(app))])
  }

  static let reset = Command(
    "reset", summary: "stop the app and clear its saved state; the session is kept",
    discussion: """
      The session in 'user' stays, so the next 'app start' chooses the main flow if there is \
      one: 'app logout' first, or 'store remove user sessionID', to start logged out.
      """,
    examples: ["app reset"], result: .record(["stopped", "state_cleared"])
  ) { invocation in
    let stopped = try invocation.session.factory.appDelegate.reset()
    return .sentence(
      stopped
        ? "the app is stopped and its saved state cleared; the session in 'user' is kept"
        : "the app was not running and nothing was saved",
      [Field("stopped", .bool(stopped)), Field("state_cleared", .bool(stopped))])
  }

  static let login = Command(
    "login", summary: "log in from the login flow: the presenter stores a session, then mainFlow",
    discussion: """
      The Login (or SignUp) presenter checks the email, stores a new session id in 'user', and \
      sends loginSucceeded(EMAIL); LoginFlowCoordinator clears its stack and sends mainFlow up, \
      and AppConfigurator replaces the login flow with the tab bar. The same as 'event send \
      login loginSucceeded EMAIL'.
      """,
    signature: Signature([emailArgument]),
    examples: ["app login ada@example.com"],
    result: .events(["component", "action", "subject", "text"])
  ) { invocation in
    let email = try invocation[emailArgument]
    return try RunningApp.navigate(invocation.session) { app in
      try app.logIn(email: email.text)
    }
  }

  static let logout = Command(
    "logout", summary: "remove the session and show the login flow, from any screen",
    examples: ["app logout"], result: .events(["component", "action", "subject", "text"])
  ) { invocation in
    try RunningApp.navigate(invocation.session) { app in
      guard app.flow == .main else {
        throw ShellError(
          "nobody is logged in: the app is in the login flow",
          hint: "log in with 'app login EMAIL'")
      }
      try app.logOut()
    }
  }

  static let error = Command(
    "error", summary: "send appError(KIND) to AppConfigurator, as a failing flow would",
    discussion: """
      unauthorized removes the session and routes to the login flow; any other kind presents \
      an alert over every screen until 'event send app dismissTapped'.
      """,
    signature: Signature([kindArgument]),
    examples: ["app error network", "app error unauthorized"],
    result: .events(["component", "action", "subject", "text"])
  ) { invocation in
    let kind = try invocation[kindArgument]
    return try RunningApp.navigate(invocation.session) { app in app.handle(.appError(kind)) }
  }
}
