import Foundation

/// The MVC+C app's login flow, after BDModules' EntryFactory: the session store, the login flow's
/// coordinator, and the controllers of its screens with their presenters.
public final class EntryFactory: Factory {
  /// The root that created it.
  public unowned let root: ApplicationFactory

  init(root: ApplicationFactory) { self.root = root }

  static let sessionStoreComponent = ComponentDeclaration<SessionStore>(
    "sessionStore", of: EntryFactory.self, .singleton, from: .mvcc,
    "the signed-in session, in the 'user' store (a keychain on iOS)"
  ) { try $0.entry.sessionStore }

  static let loginFlowCoordinatorComponent = ComponentDeclaration<LoginFlowCoordinator>.app(
    "loginFlowCoordinator", of: EntryFactory.self, "the login flow: Login, and SignUp over it"
  ) { $0.entry.loginFlowCoordinator(dependencies: $1) }

  static let loginControllerComponent = ComponentDeclaration<ScreenController<LoginEvent>>.app(
    "loginController", of: EntryFactory.self, "the Login screen and its presenter"
  ) { $0.entry.loginController(dependencies: $1) { _ in } }

  static let signUpControllerComponent = ComponentDeclaration<ScreenController<SignUpEvent>>.app(
    "signUpController", of: EntryFactory.self, "the SignUp screen and its presenter"
  ) { $0.entry.signUpController(dependencies: $1) { _ in } }

  static let components = [
    sessionStoreComponent.component, loginFlowCoordinatorComponent.component,
    loginControllerComponent.component, signUpControllerComponent.component,
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
  ) -> ScreenController<LoginEvent> {
    core.screenController(Self.loginControllerComponent, .login, providers: root.dataSource) {
      LoginPresenter("Login", dependencies: dependencies, eventHandler: eventHandler)
    }
  }

  /// A new SignUp controller whose events go to `eventHandler`.
  public func signUpController(
    dependencies: AppDependencies, eventHandler: @escaping (SignUpEvent) -> Void
  ) -> ScreenController<SignUpEvent> {
    core.screenController(Self.signUpControllerComponent, .signUp, providers: root.dataSource) {
      SignUpPresenter("SignUp", dependencies: dependencies, eventHandler: eventHandler)
    }
  }
}
