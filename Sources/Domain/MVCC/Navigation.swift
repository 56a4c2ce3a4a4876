import Foundation

/// What went wrong in the app, as presenters forward it and AppConfigurator handles it (the guide's
/// `AppError`).
public enum AppError: String, Sendable, Equatable, CaseIterable, Codable {
  /// The session is no longer valid: AppConfigurator routes to the login flow.
  case unauthorized
  /// The network failed: an alert.
  case network
  /// The server failed: an alert.
  case server
  /// What was asked for does not exist: an alert.
  case notFound

  /// The alert's message.
  public var message: String {
    switch self {
    case .unauthorized: return "Your session has expired. Log in again."
    case .network: return "The network connection was lost."
    case .server: return "The server could not complete the request."
    case .notFound: return "The item could not be found."
    }
  }
}

/// What a coordinator sends up to its parent, and AppConfigurator at the root handles (the guide's
/// `AppEvent`).
public enum AppEvent: Sendable, Equatable, CustomStringConvertible {
  /// Show the main flow: the tab bar.
  case mainFlow
  /// Show the login flow.
  case authorizationFlow
  /// Something failed: an alert, or the login flow for `unauthorized`.
  case appError(AppError)

  /// `mainFlow`, `authorizationFlow`, `appError(network)`.
  public var description: String {
    switch self {
    case .mainFlow: return "mainFlow"
    case .authorizationFlow: return "authorizationFlow"
    case .appError(let error): return "appError(\(error.rawValue))"
    }
  }
}

/// A tab of the tab bar container.
public enum Tab: String, Sendable, Equatable, CaseIterable, Codable {
  /// The Discover flow.
  case discover
  /// The Favourites flow.
  case favourites
  /// The Profile flow.
  case profile
}

/// A screen on a navigation stack: what UINavigationController would keep a view controller for.
///
/// Coordinators keep screens, never controllers. The controller of a screen is built with its
/// presenter when the screen is shown or sends an event, and is dropped afterwards.
public enum Screen: Sendable, Equatable, Hashable, CustomStringConvertible {
  /// The login form.
  case login
  /// The sign-up form.
  case signUp
  /// The tab bar container's own screen.
  case tabBar
  /// The catalog's media items, by family.
  case discover
  /// One media item (a catalog product).
  case mediaItem(Int)
  /// The media items marked as favourites.
  case favourites
  /// The signed-in user.
  case profile
  /// The profile's settings.
  case settings
  /// An alert for an app error, presented modally.
  case alert(AppError)

  /// `Discover`, `MediaItem(42)`, `Alert(network)`.
  public var description: String {
    switch self {
    case .login: return "Login"
    case .signUp: return "SignUp"
    case .tabBar: return "TabBar"
    case .discover: return "Discover"
    case .mediaItem(let id): return "MediaItem(\(id))"
    case .favourites: return "Favourites"
    case .profile: return "Profile"
    case .settings: return "Settings"
    case .alert(let error): return "Alert(\(error.rawValue))"
    }
  }

  /// Parses a description back into a screen.
  public init?(_ text: String) {
    let simple: [String: Screen] = [
      "Login": .login, "SignUp": .signUp, "TabBar": .tabBar, "Discover": .discover,
      "Favourites": .favourites, "Profile": .profile, "Settings": .settings,
    ]
    if let screen = simple[text] {
      self = screen
      return
    }
    guard text.hasSuffix(")"), let open = text.firstIndex(of: "(") else { return nil }
    let argument = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
    switch text[..<open] {
    case "MediaItem":
      guard let id = Int(argument) else { return nil }
      self = .mediaItem(id)
    case "Alert":
      guard let error = AppError(rawValue: argument) else { return nil }
      self = .alert(error)
    default: return nil
    }
  }
}

/// A line of what the app did: a component and what it did, such as `DiscoverFlowCoordinator`
/// and `pushes MediaItem(42)`, with the action (`pushes`) and its subject (`MediaItem(42)`) apart
/// for programs.
public struct NavigationRecord: Sendable, Equatable, CustomStringConvertible {
  /// Who did it.
  public var component: String
  /// What it did, as a verb such as `pushes`, `presents` or `chooses flow`.
  public var action: String
  /// What it did it to, such as a screen, a coordinator or a flow; nil when nothing.
  public var subject: String?
  /// The whole sentence, such as `pushes MediaItem(42)`.
  public var text: String

  /// `DiscoverFlowCoordinator pushes MediaItem(42)`.
  public var description: String { "\(component) \(text)" }
}

/// Collects what presenters and coordinators do, and reports each step to the tracer too.
///
/// It is not Sendable: the compiler keeps it where it was made, the thread that runs commands.
public final class NavigationLog {
  /// The tracer each step is reported to, as an event on the running span.
  public let tracer: Tracing
  /// The steps since the last `drain()`.
  public private(set) var records: [NavigationRecord] = []

  /// Creates a log.
  public init(tracer: Tracing) { self.tracer = tracer }

  /// Records a step and reports it to the tracer, unless `traced` is false because a span of the
  /// same name reports it.
  ///
  /// `text` is the sentence people read; by default the action followed by the subject.
  public func record(
    _ component: String, _ action: String, subject: String? = nil, text: String? = nil,
    traced: Bool = true
  ) {
    let text = text ?? ([action] + (subject.map { [$0] } ?? [])).joined(separator: " ")
    records.append(
      NavigationRecord(component: component, action: action, subject: subject, text: text))
    if traced { tracer.event(component, text) }
    tracer.events.publish(.navigation) {
      .navigation(NavigationChange(component: component, text: text))
    }
  }

  /// Forgets the steps recorded after the first `count`, as when what they describe failed.
  public func truncate(to count: Int) {
    if count < records.count { records.removeSubrange(count...) }
  }

  /// Returns the steps since the previous call and forgets them.
  public func drain() -> [NavigationRecord] {
    defer { records = [] }
    return records
  }
}

/// A model of UINavigationController: a stack of screens pushed, popped and replaced, and one
/// screen presented modally over it.
///
/// It keeps screens, not controllers. Every change is recorded with the resulting stack.
public final class NavigationController {
  /// The stack, root first.
  public private(set) var screens: [Screen] = []
  /// The screen presented modally over the stack, if any.
  public private(set) var presentedScreen: Screen?
  private let owner: String
  private let log: NavigationLog

  /// Creates an empty navigation controller; `owner` names the coordinator in the log.
  public init(owner: String, log: NavigationLog) {
    self.owner = owner
    self.log = log
  }

  /// The screen on top of the stack.
  public var topScreen: Screen? { screens.last }

  /// The screen the user sees: the presented one, else the top of the stack.
  public var visibleScreen: Screen? { presentedScreen ?? screens.last }

  /// `Discover › MediaItem(42)`, or `(empty)`.
  public var stackDescription: String {
    screens.isEmpty ? "(empty)" : screens.map(\.description).joined(separator: " › ")
  }

  /// Sets the root screen when the coordinator starts.
  public func start(with root: Screen) {
    screens = [root]
    presentedScreen = nil
    log.record(owner, "starts with", subject: "\(root)")
  }

  /// Pushes a screen (pushViewController(_:animated:)).
  public func push(_ screen: Screen) {
    screens.append(screen)
    changed("pushes", "\(screen)")
  }

  /// Pops the top screen unless it is the root (popViewController(animated:)).
  public func pop() {
    guard screens.count > 1, let top = screens.popLast() else {
      let top = topScreen.map(\.description) ?? "nothing"
      log.record(owner, "stays", subject: top, text: "stays: \(top) is the root")
      return
    }
    changed("pops", "\(top)")
  }

  /// Pops every screen above the root (popToRootViewController(animated:)).
  public func popToRoot() {
    guard screens.count > 1 else {
      log.record(owner, "stays", text: "stays: already at the root")
      return
    }
    screens.removeSubrange(1...)
    changed("pops to the root", nil)
  }

  /// Replaces the whole stack (setViewControllers(_:animated:)); an empty array clears it.
  public func setScreens(_ newScreens: [Screen]) {
    screens = newScreens
    changed(newScreens.isEmpty ? "clears its stack" : "sets its stack", nil)
  }

  /// Presents a screen modally (present(_:animated:)).
  public func present(_ screen: Screen) {
    presentedScreen = screen
    log.record(owner, "presents", subject: "\(screen)")
  }

  /// Dismisses the presented screen (dismiss(animated:)).
  public func dismiss() {
    guard let presented = presentedScreen else { return }
    presentedScreen = nil
    log.record(owner, "dismisses", subject: "\(presented)")
  }

  /// Restores a saved stack and presented screen without recording them as changes.
  func restore(screens: [Screen], presented: Screen?) {
    self.screens = screens
    self.presentedScreen = presented
  }

  private func changed(_ action: String, _ subject: String?) {
    log.record(owner, action, subject: subject)
    log.record(owner, "stack", subject: stackDescription, text: "stack: \(stackDescription)")
  }
}

/// Why a navigation request failed.
public enum NavigationError: Error, Equatable, CustomStringConvertible, SubjectError {
  /// The app has not been started and nothing is saved.
  case notRunning
  /// The app is already running.
  case alreadyRunning(flow: String)
  /// No coordinator has that name, in this app or at all.
  case unknownCoordinator(String, suggestion: String?)
  /// The coordinator exists in the other flow.
  case coordinatorNotRunning(String, flow: String)
  /// The coordinator shows no screen.
  case noScreen(String)
  /// A modally presented alert blocks every other screen.
  case blockedByAlert(String)
  /// The screen's presenter cannot send that event.
  case eventNotAllowed(screen: String, event: String, allowed: [String])
  /// An event was sent without its argument.
  case missingArgument(event: String, argument: String)
  /// An event's argument is not valid.
  case badArgument(event: String, value: String, reason: String)
  /// An event that takes no argument was given one.
  case unexpectedArgument(event: String, value: String)
  /// `screen select` named a row the screen does not have.
  case rowOutOfRange(screen: String, row: String, count: Int)
  /// A row that sends no event when selected.
  case rowNotSelectable(screen: String, row: String, reason: String)
  /// Selecting the row would send an event whose argument only sending the event can give.
  case rowNeedsArgument(screen: String, row: String, argument: EventArgument)
  /// Logging in needs the login flow.
  case alreadyLoggedIn(email: String)
  /// A presenter could not load its data.
  case loadFailed(screen: String, reason: String)
  /// The saved state or the session could not be read or written.
  case storage(String)
  /// The saved state is not the JSON archsh saves (a file changed outside archsh): where in it,
  /// and what.
  case unreadableState(place: String, problem: String)

  /// The input the error concerns.
  public var subject: ErrorSubject? {
    switch self {
    case .unknownCoordinator(let name, _), .coordinatorNotRunning(let name, _),
      .noScreen(let name):
      return .coordinator(name)
    case .eventNotAllowed(_, let event, _), .missingArgument(let event, _):
      return .event(event)
    case .badArgument(_, let value, _), .unexpectedArgument(_, let value):
      return ErrorSubject(.value, value)
    case .rowOutOfRange(_, let row, _), .rowNotSelectable(_, let row, _),
      .rowNeedsArgument(_, let row, _):
      return .row(row)
    case .blockedByAlert:
      // The coordinator asked for, whichever it was: every one is blocked.
      return ErrorSubject(.coordinator)
    case .notRunning, .alreadyRunning, .alreadyLoggedIn, .loadFailed, .storage, .unreadableState:
      return nil
    }
  }

  /// A one-line description.
  public var description: String {
    switch self {
    case .notRunning: return "the app is not running"
    case .alreadyRunning(let flow): return "the app is already running, in the \(flow) flow"
    case .unknownCoordinator(let name, let suggestion):
      return "no coordinator '\(name)'"
        + (suggestion.map { " (did you mean '\($0)'?)" } ?? "")
    case .coordinatorNotRunning(let name, let flow):
      return "coordinator '\(name)' is not running: the app is in the \(flow) flow"
    case .noScreen(let name): return "coordinator '\(name)' shows no screen"
    case .blockedByAlert(let alert): return "\(alert) is presented over every other screen"
    case .eventNotAllowed(let screen, let event, let allowed):
      return "\(screen) cannot send '\(event)'; it can send \(allowed.joined(separator: ", "))"
    case .missingArgument(let event, let argument): return "\(event) needs \(argument)"
    case .badArgument(let event, let value, let reason):
      return "\(event): '\(value)' \(reason)"
    case .unexpectedArgument(let event, let value):
      return "\(event) takes no argument, and '\(value)' was given"
    case .rowOutOfRange(let screen, let row, let count):
      return "\(screen) has no row \(row); it has \(count) row\(count == 1 ? "" : "s")"
    case .rowNotSelectable(let screen, let row, let reason):
      return "row \(row) of \(screen) \(reason)"
    case .rowNeedsArgument(let screen, let row, let argument):
      return "row \(row) of \(screen) needs \(argument.summary), which selecting cannot give"
    case .alreadyLoggedIn(let email): return "already logged in as \(email)"
    case .loadFailed(let screen, let reason): return "\(screen) could not load: \(reason)"
    case .storage(let message): return message
    case .unreadableState(let place, let problem):
      return "the saved app state cannot be read (\(place): \(problem))"
    }
  }
}
