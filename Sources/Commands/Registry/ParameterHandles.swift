import Domain
import Foundation

/// How a parameter's value is typed: the type parsing checks, and how the converted value is read.
public struct Kind<Value>: Sendable {
  /// The type parsing checks and converts to.
  let type: ValueType
  /// Reads the typed value from the given word and its conversion.
  let extract: @Sendable (Word, Converted) -> Value?
}

/// A fixed set of words a `.choice` parameter accepts: an enum whose cases are its words.
///
/// Reading the parameter gives the case; its help and completion list `allCases`' words.
public protocol ChoiceWord: CaseIterable, Sendable {
  /// The word the user types for this case.
  var word: String { get }
}

extension ChoiceWord where Self: RawRepresentable, RawValue == String {
  /// The raw value.
  public var word: String { rawValue }
}

extension Kind where Value: ChoiceWord {
  /// One of `Value`'s cases, typed as its word; completion offers every word.
  public static var choice: Kind {
    let cases = Array(Value.allCases)
    return Kind(type: .choice(cases.map(\.word))) { word, _ in
      cases.first { $0.word == word.text }
    }
  }
}

extension Kind where Value == Word {
  /// Any text; the value is the word, so errors can point at it.
  public static var text: Kind { Kind(type: .text) { word, _ in word } }
  /// A file path; an empty word is refused.
  public static var path: Kind { Kind(type: .path) { word, _ in word } }
  /// The name of something that lives in the session (a store, a key, a variable, a component);
  /// an empty word is refused.
  public static var name: Kind { Kind(type: .name) { word, _ in word } }
}

extension Kind where Value == Int {
  /// A whole number within `range`.
  public static func integer(_ range: ClosedRange<Int>) -> Kind {
    Kind(type: .integer(range)) { _, converted in
      if case .integer(let value) = converted { return value }
      return nil
    }
  }
  /// Any whole number.
  public static var anyInteger: Kind { integer(Int.min...Int.max) }
  /// A byte count such as `1024` or `50MB`.
  public static var bytes: Kind {
    Kind(type: .bytes) { _, converted in
      if case .integer(let value) = converted { return value }
      return nil
    }
  }
}

extension Kind where Value == Double {
  /// A duration such as `90s`, `30d` or `0`, in seconds.
  public static var duration: Kind { duration(atMost: nil) }

  /// A duration of at most `maximum` seconds; parsing refuses a longer one, and the hint for a
  /// word that is not a duration gives examples within the bound.
  public static func duration(atMost maximum: Double?) -> Kind {
    Kind(type: .duration(maximum: maximum)) { _, converted in
      if case .seconds(let value) = converted { return value }
      return nil
    }
  }
}

extension Kind where Value == Date {
  /// A date such as `2026-11-01` or `2026-11-01T12:00:00Z`.
  public static var date: Kind {
    Kind(type: .date) { _, converted in
      if case .date(let value) = converted { return value }
      return nil
    }
  }
}

/// A declared parameter that a signature lists and a command reads its value through.
public protocol ParameterHandle: Sendable {
  /// What the signature, the help and completion know about it.
  var parameter: Parameter { get }
}

/// A required positional argument; reading it always gives a value.
public struct Argument<Value>: ParameterHandle {
  /// What the signature, the help and completion know about it.
  public internal(set) var parameter: Parameter
  let kind: Kind<Value>

  /// Declares a required positional argument; `secret` keeps a line that gives it out of history.
  public init(
    _ name: String, _ kind: Kind<Value>, _ summary: String, secret: Bool = false,
    completion: CompletionProvider? = nil
  ) {
    self.kind = kind
    parameter = Parameter(
      name: name, kind: .positional, type: kind.type, summary: summary, isOptional: false,
      isVariadic: false, isSecret: secret, completion: completion)
  }
}

/// A single value that may be left out: an optional positional argument, or `--name VALUE`.
public struct Option<Value>: ParameterHandle {
  /// What the signature, the help and completion know about it.
  public internal(set) var parameter: Parameter
  let kind: Kind<Value>

  private init(_ parameter: Parameter, _ kind: Kind<Value>) {
    self.parameter = parameter
    self.kind = kind
  }

  /// Declares an option with a value, `--name VALUE`; `value` names the value in usage lines.
  public init(
    _ name: String, _ kind: Kind<Value>, value valueName: String? = nil, _ summary: String,
    default value: String? = nil, secret: Bool = false, completion: CompletionProvider? = nil
  ) {
    self.init(
      Parameter(
        name: name, kind: .option, type: kind.type, summary: summary, isOptional: true,
        isVariadic: false, defaultValue: value, isSecret: secret, valueName: valueName,
        completion: completion), kind)
  }

  /// Declares an optional positional argument; `secret` keeps a line that gives it out of
  /// history and traces.
  public static func argument(
    _ name: String, _ kind: Kind<Value>, _ summary: String, default value: String? = nil,
    secret: Bool = false, completion: CompletionProvider? = nil
  ) -> Option {
    Option(
      Parameter(
        name: name, kind: .positional, type: kind.type, summary: summary, isOptional: true,
        isVariadic: false, defaultValue: value, isSecret: secret, completion: completion), kind)
  }
}

/// Any number of values: a variadic positional argument, or a repeatable option.
public struct Many<Value>: ParameterHandle {
  /// What the signature, the help and completion know about it.
  public internal(set) var parameter: Parameter
  let kind: Kind<Value>

  private init(_ parameter: Parameter, _ kind: Kind<Value>) {
    self.parameter = parameter
    self.kind = kind
  }

  /// Declares a positional argument that takes every remaining word; `optional` allows none.
  public static func arguments(
    _ name: String, _ kind: Kind<Value>, _ summary: String, optional: Bool = false,
    completion: CompletionProvider? = nil
  ) -> Many {
    Many(
      Parameter(
        name: name, kind: .positional, type: kind.type, summary: summary, isOptional: optional,
        isVariadic: true, isSecret: false, completion: completion), kind)
  }

  /// Declares an option that may be repeated, `--name VALUE`; `secret` keeps a line that gives it
  /// out of history.
  public static func option(
    _ name: String, short: Character? = nil, _ kind: Kind<Value>, value valueName: String? = nil,
    _ summary: String, secret: Bool = false, completion: CompletionProvider? = nil
  ) -> Many {
    var parameter = Parameter(
      name: name, kind: .option, type: kind.type, summary: summary, isOptional: true,
      isVariadic: true, isSecret: secret, valueName: valueName, completion: completion)
    parameter.shortName = short
    return Many(parameter, kind)
  }
}

extension Many where Value == Word {
  /// Declares a positional argument that takes the rest of the line as it is, options included:
  /// a command line for another command (`time COMMAND...`).
  public static func commandLine(
    _ name: String, _ summary: String, completion: CompletionProvider? = nil
  ) -> Many {
    var many = arguments(name, .text, summary, completion: completion)
    var parameter = many.parameter
    parameter.isPassthrough = true
    many = Many(parameter, .text)
    return many
  }
}

/// A flag, `--name`, with no value.
public struct Flag: ParameterHandle {
  /// What the signature, the help and completion know about it.
  public internal(set) var parameter: Parameter

  /// Declares a flag; `secret` makes its presence keep the line out of history.
  public init(_ name: String, _ summary: String, secret: Bool = false) {
    parameter = Parameter(
      name: name, kind: .flag, type: .text, summary: summary, isOptional: true, isVariadic: false,
      isSecret: secret)
  }
}

/// A handle whose parameter can be declared to concern a subject of Domain errors.
protocol SubjectDeclaring: ParameterHandle {
  /// The declared parameter.
  var parameter: Parameter { get set }
}

extension SubjectDeclaring {
  /// The same handle, declared to be what Domain errors about `role` concern: the dispatcher
  /// points such an error at this parameter's word.
  func concerning(_ role: ErrorSubject.Role) -> Self {
    var copy = self
    copy.parameter.subject = role
    return copy
  }
}

extension Option {
  /// The same argument, whose value is secret when the flag named `flag` is given.
  func secret(withFlag flag: String) -> Self {
    var copy = self
    copy.parameter.secretWithFlag = flag
    return copy
  }
}

extension Argument {
  /// The same argument, whose value is secret when the flag named `flag` is given.
  func secret(withFlag flag: String) -> Self {
    var copy = self
    copy.parameter.secretWithFlag = flag
    return copy
  }
}

extension Many {
  /// The same option, with the values that `isSecret` picks treated as secrets: a line that gives
  /// one stays out of history, and traces show the value redacted.
  func secret(when isSecret: @escaping @Sendable (String) -> Bool) -> Self {
    var copy = self
    copy.parameter.isSecretValue = isSecret
    return copy
  }
}

extension Argument: SubjectDeclaring {}
extension Option: SubjectDeclaring {}
extension Many: SubjectDeclaring {}

extension Invocation {
  /// The value of a required argument.
  public subscript<Value>(_ argument: Argument<Value>) -> Value {
    get throws(ShellError) { try parsed.arguments[argument] }
  }

  /// The value of an optional argument or an option, or its default, or nil.
  public subscript<Value>(_ option: Option<Value>) -> Value? { parsed.arguments[option] }

  /// Every value of a variadic argument or a repeatable option.
  public subscript<Value>(_ many: Many<Value>) -> [Value] { parsed.arguments[many] }

  /// Whether a flag was given.
  public subscript(_ flag: Flag) -> Bool { parsed.arguments[flag] }

  /// The word that gave a parameter's value, for an error that points at it.
  public func word(for handle: some ParameterHandle) -> Word? {
    parsed.arguments.word(for: handle)
  }
}
