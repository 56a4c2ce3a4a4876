import Foundation

/// The login screen's events.
public enum LoginEvent: EventProtocol {
  /// The email was accepted and a session stored.
  case loginSucceeded(email: String)
  /// The sign-up link was tapped.
  case signUpTapped
  /// Something failed.
  case failed(AppError)

  /// loginSucceeded(email), signUpTapped, failed(error).
  public static let descriptors = [
    EventDescriptor("loginSucceeded", .email), EventDescriptor("signUpTapped"),
    EventDescriptor("failed", .error),
  ]

  /// Builds an event from its parts.
  public static func make(_ name: String, _ value: EventValue?) -> LoginEvent? {
    switch (name, value) {
    case ("loginSucceeded", .email(let email)?): return .loginSucceeded(email: email)
    case ("signUpTapped", nil): return .signUpTapped
    case ("failed", .error(let error)?): return .failed(error)
    default: return nil
    }
  }

  /// `loginSucceeded(ada@example.com)`.
  public var description: String {
    switch self {
    case .loginSucceeded(let email): return "loginSucceeded(\(email))"
    case .signUpTapped: return "signUpTapped"
    case .failed(let error): return "failed(\(error.rawValue))"
    }
  }
}

/// The sign-up screen's events.
public enum SignUpEvent: EventProtocol {
  /// The account was created and a session stored.
  case loginSucceeded(email: String)
  /// Back was tapped.
  case backTapped
  /// Something failed.
  case failed(AppError)

  /// loginSucceeded(email), backTapped, failed(error).
  public static let descriptors = [
    EventDescriptor("loginSucceeded", .email), EventDescriptor("backTapped"),
    EventDescriptor("failed", .error),
  ]

  /// Builds an event from its parts.
  public static func make(_ name: String, _ value: EventValue?) -> SignUpEvent? {
    switch (name, value) {
    case ("loginSucceeded", .email(let email)?): return .loginSucceeded(email: email)
    case ("backTapped", nil): return .backTapped
    case ("failed", .error(let error)?): return .failed(error)
    default: return nil
    }
  }

  /// `backTapped`.
  public var description: String {
    switch self {
    case .loginSucceeded(let email): return "loginSucceeded(\(email))"
    case .backTapped: return "backTapped"
    case .failed(let error): return "failed(\(error.rawValue))"
    }
  }
}

/// The login form: logging in stores a session in the `user` store.
final class LoginPresenter: Presenter<LoginEvent> {
  override func content() throws(NavigationError) -> ScreenContent<LoginEvent> {
    ScreenContent(
      title: "Log in",
      sections: [
        Section(
          sectionData: SectionDataModel(
            header: "Welcome", footer: "A session id is kept in 'user'"),
          rows: [.text("Log in with email"), .text("Sign up")])
      ],
      selections: [
        IndexPath(row: 0, section: 0): .needs(.email),
        IndexPath(row: 1, section: 0): .event(.signUpTapped),
      ])
  }

  override func perform(_ event: LoginEvent) throws(NavigationError) {
    if case .loginSucceeded(let email) = event { try logIn(email, dependencies) }
  }
}

/// Validates an email and stores a session for it.
func logIn(_ email: String, _ dependencies: AppDependencies) throws(NavigationError) {
  let parts = email.split(separator: "@", omittingEmptySubsequences: false)
  guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
    !email.contains(where: \.isWhitespace)
  else {
    throw .badArgument(event: "loginSucceeded", value: email, reason: "is not an email address")
  }
  try dependencies.sessionStore.logIn(email: email)
  dependencies.log.record(
    "SessionStore", "stores", subject: "session", text: "stores a session for \(email) in 'user'")
}

/// The sign-up form.
final class SignUpPresenter: Presenter<SignUpEvent> {
  override func content() throws(NavigationError) -> ScreenContent<SignUpEvent> {
    ScreenContent(
      title: "Sign up",
      sections: [Section(rows: [.text("Create an account with email"), .text("Back to log in")])],
      selections: [
        IndexPath(row: 0, section: 0): .needs(.email),
        IndexPath(row: 1, section: 0): .event(.backTapped),
      ])
  }

  override func perform(_ event: SignUpEvent) throws(NavigationError) {
    if case .loginSucceeded(let email) = event { try logIn(email, dependencies) }
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
