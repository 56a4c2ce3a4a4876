import Foundation

/// The kind of value an event carries.
public enum EventArgument: String, Sendable, Equatable {
  /// A media item's id: a catalog product id.
  case id
  /// An app error kind.
  case error
  /// An email address.
  case email
  /// A tab of the tab bar.
  case tab

  /// What the argument is, for errors and help.
  public var summary: String {
    switch self {
    case .id: return "a product id"
    case .error:
      return "an error kind (\(AppError.allCases.map(\.rawValue).joined(separator: ", ")))"
    case .email: return "an email address"
    case .tab: return "a tab (\(Tab.allCases.map(\.rawValue).joined(separator: ", ")))"
    }
  }
}

/// A parsed event argument.
public enum EventValue: Sendable, Equatable {
  /// A product id.
  case id(Int)
  /// An app error kind.
  case error(AppError)
  /// An email address, not yet validated.
  case email(String)
  /// A tab.
  case tab(Tab)
}

/// One event a screen's presenter can send: its name and the argument it carries.
public struct EventDescriptor: Sendable, Equatable {
  /// The name, such as `mediaItemSelected`.
  public let name: String
  /// The argument, if the event carries one.
  public let argument: EventArgument?

  /// Creates a descriptor.
  public init(_ name: String, _ argument: EventArgument? = nil) {
    self.name = name
    self.argument = argument
  }

  /// `mediaItemSelected(id)` or `headerTapped`.
  public var signature: String { argument.map { "\(name)(\($0.rawValue))" } ?? name }

  /// Checks that `value` is what this event carries: present exactly when it takes an argument,
  /// and of that argument's kind.
  public func check(_ value: EventValue?) throws(NavigationError) {
    switch (argument, value) {
    case (nil, nil): return
    case (nil, let value?): throw .unexpectedArgument(event: name, value: value.description)
    case (let argument?, nil): throw .missingArgument(event: name, argument: argument.summary)
    case (let argument?, let value?):
      guard value.argument == argument else {
        throw .badArgument(
          event: name, value: value.description, reason: "is not \(argument.summary)")
      }
    }
  }
}

extension EventValue: CustomStringConvertible {
  /// The kind of argument this value is.
  public var argument: EventArgument {
    switch self {
    case .id: return .id
    case .error: return .error
    case .email: return .email
    case .tab: return .tab
    }
  }

  /// The value as it would be typed.
  public var description: String {
    switch self {
    case .id(let id): return String(id)
    case .error(let error): return error.rawValue
    case .email(let email): return email
    case .tab(let tab): return tab.rawValue
    }
  }
}

/// A screen's event enum: named for what happened, not for what to do (the guide's `EventProtocol`).
public protocol EventProtocol: Sendable, Equatable, CustomStringConvertible {
  /// Every event of the enum, which is every event its screen can send.
  static var descriptors: [EventDescriptor] { get }
  /// The event for a descriptor's name and parsed value; nil when they do not fit.
  static func make(_ name: String, _ value: EventValue?) -> Self?
}

extension EventProtocol {
  /// The descriptor of the event `name`, or an error that says what this screen can send.
  public static func descriptor(named name: String, screen: Screen) throws(NavigationError)
    -> EventDescriptor
  {
    guard let descriptor = descriptors.first(where: { $0.name == name }) else {
      throw .eventNotAllowed(
        screen: screen.description, event: name, allowed: descriptors.map(\.signature))
    }
    return descriptor
  }

  /// The event `name` of this screen with its typed argument.
  public static func make(_ name: String, value: EventValue?, screen: Screen)
    throws(NavigationError) -> Self
  {
    try descriptor(named: name, screen: screen).check(value)
    guard let event = make(name, value) else {
      throw .badArgument(event: name, value: value?.description ?? "", reason: "does not fit")
    }
    return event
  }
}

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

/// The Discover screen's events.
public enum DiscoverEvent: EventProtocol {
  /// A media item's row was selected.
  case mediaItemSelected(Int)
  /// The header (the navigation bar's title) was tapped.
  case headerTapped
  /// Something failed.
  case failed(AppError)

  /// mediaItemSelected(id), headerTapped, failed(error).
  public static let descriptors = [
    EventDescriptor("mediaItemSelected", .id), EventDescriptor("headerTapped"),
    EventDescriptor("failed", .error),
  ]

  /// Builds an event from its parts.
  public static func make(_ name: String, _ value: EventValue?) -> DiscoverEvent? {
    switch (name, value) {
    case ("mediaItemSelected", .id(let id)?): return .mediaItemSelected(id)
    case ("headerTapped", nil): return .headerTapped
    case ("failed", .error(let error)?): return .failed(error)
    default: return nil
    }
  }

  /// `mediaItemSelected(42)`.
  public var description: String {
    switch self {
    case .mediaItemSelected(let id): return "mediaItemSelected(\(id))"
    case .headerTapped: return "headerTapped"
    case .failed(let error): return "failed(\(error.rawValue))"
    }
  }
}

/// A media item screen's events, in the Discover and Favourites flows alike.
public enum MediaItemEvent: EventProtocol {
  /// Back was tapped.
  case backTapped
  /// The header (the navigation bar's title) was tapped.
  case headerTapped
  /// A related media item was selected.
  case mediaItemSelected(Int)
  /// The favourite button was tapped; the presenter has already toggled the favourite.
  case favouriteToggled
  /// Something failed.
  case failed(AppError)

  /// backTapped, headerTapped, mediaItemSelected(id), favouriteToggled, failed(error).
  public static let descriptors = [
    EventDescriptor("backTapped"), EventDescriptor("headerTapped"),
    EventDescriptor("mediaItemSelected", .id), EventDescriptor("favouriteToggled"),
    EventDescriptor("failed", .error),
  ]

  /// Builds an event from its parts.
  public static func make(_ name: String, _ value: EventValue?) -> MediaItemEvent? {
    switch (name, value) {
    case ("backTapped", nil): return .backTapped
    case ("headerTapped", nil): return .headerTapped
    case ("mediaItemSelected", .id(let id)?): return .mediaItemSelected(id)
    case ("favouriteToggled", nil): return .favouriteToggled
    case ("failed", .error(let error)?): return .failed(error)
    default: return nil
    }
  }

  /// `backTapped`.
  public var description: String {
    switch self {
    case .backTapped: return "backTapped"
    case .headerTapped: return "headerTapped"
    case .mediaItemSelected(let id): return "mediaItemSelected(\(id))"
    case .favouriteToggled: return "favouriteToggled"
    case .failed(let error): return "failed(\(error.rawValue))"
    }
  }
}

/// The Favourites screen's events.
public enum FavouritesEvent: EventProtocol {
  /// A favourite's row was selected.
  case mediaItemSelected(Int)
  /// Something failed.
  case failed(AppError)

  /// mediaItemSelected(id), failed(error).
  public static let descriptors = [
    EventDescriptor("mediaItemSelected", .id), EventDescriptor("failed", .error),
  ]

  /// Builds an event from its parts.
  public static func make(_ name: String, _ value: EventValue?) -> FavouritesEvent? {
    switch (name, value) {
    case ("mediaItemSelected", .id(let id)?): return .mediaItemSelected(id)
    case ("failed", .error(let error)?): return .failed(error)
    default: return nil
    }
  }

  /// `mediaItemSelected(42)`.
  public var description: String {
    switch self {
    case .mediaItemSelected(let id): return "mediaItemSelected(\(id))"
    case .failed(let error): return "failed(\(error.rawValue))"
    }
  }
}

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
