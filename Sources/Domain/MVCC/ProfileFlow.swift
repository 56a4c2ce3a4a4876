import Foundation

/// The Profile screen's events.
public enum ProfileEvent: EventProtocol {
  /// The settings row was tapped.
  case settingsTapped
  /// Log out was tapped; the presenter has already removed the session.
  case logoutTapped
  /// Something failed.
  case failed(AppError)

  /// settingsTapped, logoutTapped, failed(error).
  public static let descriptors = [
    EventDescriptor("settingsTapped"), EventDescriptor("logoutTapped"),
    EventDescriptor("failed", .error),
  ]

  /// Builds an event from its parts.
  public static func make(_ name: String, _ value: EventValue?) -> ProfileEvent? {
    switch (name, value) {
    case ("settingsTapped", nil): return .settingsTapped
    case ("logoutTapped", nil): return .logoutTapped
    case ("failed", .error(let error)?): return .failed(error)
    default: return nil
    }
  }

  /// `logoutTapped`.
  public var description: String {
    switch self {
    case .settingsTapped: return "settingsTapped"
    case .logoutTapped: return "logoutTapped"
    case .failed(let error): return "failed(\(error.rawValue))"
    }
  }
}

/// The Settings screen's events.
public enum SettingsEvent: EventProtocol {
  /// Back was tapped.
  case backTapped

  /// backTapped.
  public static let descriptors = [EventDescriptor("backTapped")]

  /// Builds an event from its parts.
  public static func make(_ name: String, _ value: EventValue?) -> SettingsEvent? {
    name == "backTapped" && value == nil ? .backTapped : nil
  }

  /// `backTapped`.
  public var description: String { "backTapped" }
}

/// The signed-in user: logging out removes the session from the `user` store.
final class ProfilePresenter: Presenter<ProfileEvent> {
  override func content() throws(NavigationError) -> ScreenContent<ProfileEvent> {
    let email = try dependencies.sessionStore.signedInEmail()
    let account = email.map { $0.isEmpty ? "a stored session" : $0 } ?? "nobody"
    return ScreenContent(
      title: "Profile",
      sections: [
        Section(rows: [.detail("Signed in as", account)]),
        Section(rows: [.text("Settings"), .text("Log out")]),
      ],
      selections: [
        IndexPath(row: 0, section: 1): .event(.settingsTapped),
        IndexPath(row: 1, section: 1): .event(.logoutTapped),
      ])
  }

  override func perform(_ event: ProfileEvent) throws(NavigationError) {
    guard case .logoutTapped = event else { return }
    try dependencies.sessionStore.logOut()
    dependencies.log.record(
      "SessionStore", "removes", subject: "session", text: "removes the session from 'user'")
  }
}

/// The profile's settings.
final class SettingsPresenter: Presenter<SettingsEvent> {
  override func content() throws(NavigationError) -> ScreenContent<SettingsEvent> {
    ScreenContent(
      title: "Settings",
      sections: [Section(rows: [.detail("Version", "1.0"), .text("Back")])],
      selections: [IndexPath(row: 1, section: 0): .event(.backTapped)])
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
