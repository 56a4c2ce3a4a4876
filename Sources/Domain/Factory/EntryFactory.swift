import Foundation

/// The MVC+C app's login flow, after BDModules' EntryFactory: the session store, the login flow's
/// coordinator, and the controllers of its screens with their presenters.
public final class EntryFactory: Factory {

  static let sessionStoreComponent = FactoryComponent(
    "sessionStore", factory: "EntryFactory", type: "SessionStore", .singleton,
    dependencies: ["persistenceController"],
    summary: "the signed-in session, in the 'user' store (a keychain on iOS)"
  ) { try $0.entry.sessionStore }

  static let loginFlowCoordinatorComponent = FactoryComponent.app(
    "loginFlowCoordinator", factory: "EntryFactory", type: "LoginFlowCoordinator",
    summary: "the login flow: Login, and SignUp over it"
  ) { $0.entry.loginFlowCoordinator(dependencies: $1) }

  static let loginControllerComponent = FactoryComponent.app(
    "loginController", factory: "EntryFactory", type: "ScreenController<LoginEvent>",
    summary: "the Login screen and its presenter"
  ) { $0.entry.loginController(dependencies: $1) { _ in } }

  static let signUpControllerComponent = FactoryComponent.app(
    "signUpController", factory: "EntryFactory", type: "ScreenController<SignUpEvent>",
    summary: "the SignUp screen and its presenter"
  ) { $0.entry.signUpController(dependencies: $1) { _ in } }

  static let components = [
    sessionStoreComponent, loginFlowCoordinatorComponent, loginControllerComponent,
    signUpControllerComponent,
  ]

  /// The session store over the `user` store.
  public var sessionStore: SessionStore {
    get throws {
      try core.singleton(Self.sessionStoreComponent) {
        SessionStore(store: try root.persistenceController(.user))
      }
    }
  }

  /// A new login flow coordinator.
  public func loginFlowCoordinator(dependencies: AppDependencies) -> LoginFlowCoordinator {
    core.prototype(Self.loginFlowCoordinatorComponent) {
      LoginFlowCoordinator(dependencies: dependencies)
    }
  }

  /// A new Login controller whose events go to `eventHandler`.
  public func loginController(
    dependencies: AppDependencies, eventHandler: @escaping (LoginEvent) -> Void
  ) -> ScreenControlling {
    core.screenController(Self.loginControllerComponent, .login) {
      LoginPresenter("Login", dependencies: dependencies, eventHandler: eventHandler)
    }
  }

  /// A new SignUp controller whose events go to `eventHandler`.
  public func signUpController(
    dependencies: AppDependencies, eventHandler: @escaping (SignUpEvent) -> Void
  ) -> ScreenControlling {
    core.screenController(Self.signUpControllerComponent, .signUp) {
      SignUpPresenter("SignUp", dependencies: dependencies, eventHandler: eventHandler)
    }
  }
}
