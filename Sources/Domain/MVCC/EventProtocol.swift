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
