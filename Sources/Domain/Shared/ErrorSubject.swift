/// The input a Domain error concerns: a store, a key, a value, a coordinator, and so on.
///
/// Domain says what an error is about, never where it was typed: the shell's dispatcher finds the
/// word that gave that input and points the error at its column, the same way for every command.
public struct ErrorSubject: Equatable, Sendable {
  /// What kind of input it is.
  public enum Role: String, Sendable {
    /// A store's name.
    case store
    /// A key in a store.
    case key
    /// A value being persisted or parsed.
    case value
    /// A coordinator's name.
    case coordinator
    /// A factory component's name.
    case component
    /// A data source's name.
    case dataSource
    /// A product's id, path or URL.
    case product
    /// A row of a screen or a data source.
    case row
    /// An event's name or argument.
    case event
    /// A file.
    case file
  }

  /// The kind of input.
  public let role: Role
  /// The input as given, when the error knows it.
  public let text: String?

  /// Creates a subject.
  public init(_ role: Role, _ text: String? = nil) {
    self.role = role
    self.text = text
  }

  /// A store's name.
  public static func store(_ name: String) -> ErrorSubject { ErrorSubject(.store, name) }
  /// A key.
  public static func key(_ key: String) -> ErrorSubject { ErrorSubject(.key, key) }
  /// The value.
  public static let value = ErrorSubject(.value)
  /// A coordinator's name.
  public static func coordinator(_ name: String) -> ErrorSubject {
    ErrorSubject(.coordinator, name)
  }
  /// A factory component's name.
  public static func component(_ name: String) -> ErrorSubject { ErrorSubject(.component, name) }
  /// A data source's name.
  public static func dataSource(_ name: String) -> ErrorSubject { ErrorSubject(.dataSource, name) }
  /// A product as named.
  public static func product(_ text: String) -> ErrorSubject { ErrorSubject(.product, text) }
  /// An event's name.
  public static func event(_ name: String) -> ErrorSubject { ErrorSubject(.event, name) }
  /// A row as given.
  public static func row(_ row: String) -> ErrorSubject { ErrorSubject(.row, row) }
}

/// An error that says which input it concerns.
public protocol SubjectError: Error {
  /// The input, or nil when the error concerns the whole operation.
  var subject: ErrorSubject? { get }
}
