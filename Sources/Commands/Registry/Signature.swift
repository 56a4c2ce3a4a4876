import Domain
import Foundation

/// The type of a value an argument or option takes; parsing checks it and errors name it.
public enum ValueType: Sendable, Equatable {
  /// Any text.
  case text
  /// A whole number within `range`.
  case integer(ClosedRange<Int>)
  /// One of a fixed set of words; completion offers them.
  case choice([String])
  /// A file path.
  case path
  /// A name of something that lives in the session (a store, a variable, a component).
  case name
  /// A byte count such as `1024` or `50MB`.
  case bytes
  /// A duration such as `90s`, `30d` or `0`.
  case duration
  /// A date such as `2026-11-01` or `2026-11-01T12:00:00Z`.
  case date

  /// Any whole number.
  public static let anyInteger = ValueType.integer(Int.min...Int.max)

  /// The placeholder used in usage lines when the parameter does not name its own.
  var placeholder: String {
    switch self {
    case .text: return "TEXT"
    case .integer: return "N"
    case .choice(let words): return words.joined(separator: "|")
    case .path: return "FILE"
    case .name: return "NAME"
    case .bytes: return "BYTES"
    case .duration: return "DURATION"
    case .date: return "DATE"
    }
  }
}

/// What the completer knows when it asks a provider for values.
public struct CompletionContext {
  /// The session, for live values such as store names or variables.
  public let session: Session
  /// The words before the one being completed, starting with the command's own words.
  public let previousWords: [String]
  /// What has been typed of the word being completed.
  public let prefix: String
  /// The commands, for completers that complete command names.
  public let registry: CommandRegistry
}

/// Supplies live values for an argument during Tab completion.
public typealias CompletionProvider = @Sendable (CompletionContext) -> [String]

/// One positional argument, option or flag that a command declares.
public struct Parameter: Sendable {
  /// Where the parameter appears on the command line.
  public enum Kind: Sendable, Equatable {
    /// A positional argument, matched by position.
    case positional
    /// `--name VALUE`.
    case option
    /// `--name`, with no value.
    case flag
  }

  /// For a positional, its placeholder (`KEY`); for an option or flag, its long name (`limit`).
  public var name: String
  /// Positional, option or flag.
  public var kind: Kind
  /// The type of the value.
  public var type: ValueType
  /// One line for the help.
  public var summary: String
  /// Whether it may be left out.
  public var isOptional: Bool
  /// For a positional, it takes all remaining words; for an option, it may be repeated.
  public var isVariadic: Bool
  /// The value used when it is left out, shown in the help.
  public var defaultValue: String?
  /// Whether the value is a secret: the whole line is kept out of history and traces.
  public var isSecret: Bool
  /// The placeholder for an option's value in usage lines (`N` in `--limit N`).
  public var valueName: String?
  /// Live values for completion, beyond a choice type's own words.
  public var completion: CompletionProvider?
  /// For a variadic positional: once it starts, it takes every remaining word as it is, options
  /// included (`time COMMAND...`).
  public var isPassthrough = false

  /// A required positional argument.
  public static func argument(
    _ name: String, _ type: ValueType = .text, _ summary: String, secret: Bool = false,
    completion: CompletionProvider? = nil
  ) -> Parameter {
    Parameter(
      name: name, kind: .positional, type: type, summary: summary, isOptional: false,
      isVariadic: false, isSecret: secret, completion: completion)
  }

  /// An optional positional argument.
  public static func optionalArgument(
    _ name: String, _ type: ValueType = .text, _ summary: String, default value: String? = nil,
    completion: CompletionProvider? = nil
  ) -> Parameter {
    Parameter(
      name: name, kind: .positional, type: type, summary: summary, isOptional: true,
      isVariadic: false, defaultValue: value, isSecret: false, completion: completion)
  }

  /// A positional argument that takes every remaining word; `optional` allows none.
  public static func variadic(
    _ name: String, _ type: ValueType = .text, _ summary: String, optional: Bool = false,
    completion: CompletionProvider? = nil
  ) -> Parameter {
    Parameter(
      name: name, kind: .positional, type: type, summary: summary, isOptional: optional,
      isVariadic: true, isSecret: false, completion: completion)
  }

  /// A positional argument that takes the rest of the line as it is, options included.
  public static func remainder(
    _ name: String, _ summary: String, completion: CompletionProvider? = nil
  ) -> Parameter {
    var parameter = variadic(name, .text, summary, completion: completion)
    parameter.isPassthrough = true
    return parameter
  }

  /// An option with a value, `--name VALUE`.
  public static func option(
    _ name: String, _ type: ValueType = .text, value valueName: String? = nil, _ summary: String,
    default value: String? = nil, repeatable: Bool = false, secret: Bool = false,
    completion: CompletionProvider? = nil
  ) -> Parameter {
    Parameter(
      name: name, kind: .option, type: type, summary: summary, isOptional: true,
      isVariadic: repeatable, defaultValue: value, isSecret: secret, valueName: valueName,
      completion: completion)
  }

  /// A flag, `--name`; `secret` makes its presence keep the line out of history.
  public static func flag(_ name: String, _ summary: String, secret: Bool = false) -> Parameter {
    Parameter(
      name: name, kind: .flag, type: .text, summary: summary, isOptional: true, isVariadic: false,
      isSecret: secret)
  }

  /// How the parameter appears in a usage line.
  var usage: String {
    switch kind {
    case .positional:
      let base = isVariadic ? "\(name)..." : name
      return isOptional ? "[\(base)]" : base
    case .option:
      return "[--\(name) \(valueName ?? type.placeholder)]"
    case .flag:
      return "[--\(name)]"
    }
  }

  /// How the parameter is named in its help row.
  var helpLabel: String {
    switch kind {
    case .positional: return name
    case .option: return "--\(name) \(valueName ?? type.placeholder)"
    case .flag: return "--\(name)"
    }
  }
}

/// A command's parameters, declared once: parsing, usage, help and completion derive from it.
public struct Signature: Sendable {
  /// Every parameter, positionals in order.
  public let parameters: [Parameter]
  /// The indices of the positional parameters, in order; computed once, used on every line.
  let positionalSlots: [Int]

  /// Declares a signature.
  public init(_ parameters: [Parameter] = []) {
    self.parameters = parameters
    self.positionalSlots = parameters.indices.filter { parameters[$0].kind == .positional }
  }

  /// The positional parameters, in order.
  var positionals: [Parameter] { positionalSlots.map { parameters[$0] } }

  /// The usage line's argument part, for example `STORE KEY... [--limit N]`.
  var usage: String {
    let positional = parameters.filter { $0.kind == .positional }.map(\.usage)
    let named = parameters.filter { $0.kind != .positional }.map(\.usage)
    return (positional + named).joined(separator: " ")
  }
}

/// The values a command line supplied, checked against the signature.
public struct Arguments {
  /// The signature the values were parsed against.
  public let signature: Signature
  /// Each given word with the index of its parameter, in command-line order.
  ///
  /// One flat array keeps parsing to a single allocation per line.
  var entries: [(slot: Int, word: Word)] = []

  init(signature: Signature) {
    self.signature = signature
  }

  private func index(_ name: String) -> Int? {
    signature.parameters.firstIndex { $0.name == name }
  }

  func given(_ slot: Int) -> Bool { entries.contains { $0.slot == slot } }

  /// The word given for `name`, or nil when it was left out.
  public func word(_ name: String) -> Word? {
    guard let slot = index(name) else { return nil }
    return entries.last { $0.slot == slot }?.word
  }

  /// Every word given for a variadic positional or a repeatable option.
  public func words(_ name: String) -> [Word] {
    guard let slot = index(name) else { return [] }
    return entries.filter { $0.slot == slot }.map(\.word)
  }

  /// The text given for `name`, or its declared default, or nil.
  public func string(_ name: String) -> String? {
    guard let slot = index(name) else { return nil }
    return entries.last { $0.slot == slot }?.word.text ?? signature.parameters[slot].defaultValue
  }

  /// Every text given for a variadic positional or a repeatable option.
  public func strings(_ name: String) -> [String] {
    words(name).map(\.text)
  }

  /// The integer given for `name`, or its default.
  ///
  /// Parsing already checked the type.
  public func int(_ name: String) -> Int? {
    string(name).flatMap { Int($0) }
  }

  /// The byte count given for `name`, or its default.
  public func bytes(_ name: String) -> Int? {
    string(name).flatMap(Quantities.bytes)
  }

  /// The duration in seconds given for `name`, or its default.
  public func duration(_ name: String) -> Double? {
    string(name).flatMap(Quantities.duration)
  }

  /// The date given for `name`.
  public func date(_ name: String) -> Date? {
    string(name).flatMap(Quantities.date)
  }

  /// Whether a flag was given.
  public func flag(_ name: String) -> Bool {
    index(name).map(given) ?? false
  }

  /// Whether any parameter declared secret was given a value.
  public var containsSecret: Bool {
    entries.contains { signature.parameters[$0.slot].isSecret }
  }
}

extension Signature {
  /// Checks `words` (the arguments after the command's own words) and assigns them to parameters.
  ///
  /// `--` ends the options: every later word is positional. A quoted word is never an option, and
  /// a word such as `-5` is a positional number. `--name=value` is accepted as `--name value`.
  public func parse(_ words: ArraySlice<Word>, command: String) throws(ShellError) -> Arguments {
    var arguments = Arguments(signature: self)
    var positionalIndex = 0
    var optionsEnded = false
    var cursor = words.startIndex
    arguments.entries.reserveCapacity(words.count)

    while cursor < words.endIndex {
      let word = words[cursor]
      cursor += 1
      if positionalIndex < positionalSlots.count,
        parameters[positionalSlots[positionalIndex]].isPassthrough
      {
        let slot = positionalSlots[positionalIndex]
        for word in words[(cursor - 1)...] { arguments.entries.append((slot, word)) }
        break
      }
      if !optionsEnded && !word.isQuoted && word.text == "--" {
        optionsEnded = true
        continue
      }
      if !optionsEnded && !word.isQuoted && isOptionLike(word.text) {
        var name = String(word.text.dropFirst(2))
        var inlineValue: String?
        if let equals = name.firstIndex(of: "=") {
          inlineValue = String(name[name.index(after: equals)...])
          name = String(name[..<equals])
        }
        guard let slot = parameters.firstIndex(where: { $0.kind != .positional && $0.name == name })
        else {
          let names = parameters.filter { $0.kind != .positional }.map { "--\($0.name)" }
          let hint =
            ShellError.didYouMean("--\(name)", among: names)
            ?? (names.isEmpty
              ? "'\(command)' takes no options" : "options: \(names.joined(separator: ", "))")
          throw ShellError(
            "unknown option '--\(name)' for '\(command)'", hint: hint, at: word.offset)
        }
        if parameters[slot].kind == .flag {
          guard inlineValue == nil else {
            throw ShellError(
              "flag '--\(name)' takes no value", hint: "write '--\(name)' alone", at: word.offset)
          }
          if !arguments.given(slot) { arguments.entries.append((slot, word)) }
          continue
        }
        let value: Word
        if let inlineValue {
          value = Word(
            inlineValue, offset: word.offset + name.utf8.count + 3, isQuoted: word.isQuoted)
        } else {
          guard cursor < words.endIndex else {
            throw ShellError(
              "option '--\(name)' needs a value",
              hint: "usage: \(command) \(usage)", at: word.offset)
          }
          value = words[cursor]
          cursor += 1
        }
        try check(value, against: parameters[slot], label: "--\(name)")
        if !parameters[slot].isVariadic && arguments.given(slot) {
          throw ShellError(
            "option '--\(name)' is given twice", hint: "give it once", at: word.offset)
        }
        arguments.entries.append((slot, value))
        continue
      }
      guard positionalIndex < positionalSlots.count else {
        throw ShellError(
          "too many arguments for '\(command)': unexpected '\(word.text)'",
          hint: hintForExtraArgument(command), at: word.offset)
      }
      let slot = positionalSlots[positionalIndex]
      try check(word, against: parameters[slot], label: parameters[slot].name)
      arguments.entries.append((slot, word))
      if !parameters[slot].isVariadic { positionalIndex += 1 }
    }

    for slot in positionalSlots where !parameters[slot].isOptional && !arguments.given(slot) {
      let end = words.last.map { $0.offset + $0.text.utf8.count + 1 }
      throw ShellError(
        "missing argument \(parameters[slot].name) for '\(command)'",
        hint: "usage: \(command) \(usage)", at: end)
    }
    return arguments
  }

  private func isOptionLike(_ text: String) -> Bool {
    let utf8 = text.utf8
    guard utf8.count > 2, utf8.first == UInt8(ascii: "-") else { return false }
    return utf8.dropFirst().first == UInt8(ascii: "-")
  }

  private func hintForExtraArgument(_ command: String) -> String {
    if positionals.isEmpty { return "'\(command)' takes no arguments" }
    return "usage: \(command) \(usage); quote a value that contains spaces"
  }

  private func check(_ word: Word, against parameter: borrowing Parameter, label: String)
    throws(ShellError)
  {
    switch parameter.type {
    case .text, .path, .name:
      return
    case .bytes:
      guard Quantities.bytes(word.text) != nil else {
        throw ShellError(
          "expected a byte count for \(label), not '\(word.text)'",
          hint: "for example 1024, 64KB or 50MB",
          at: word.offset)
      }
    case .duration:
      guard Quantities.duration(word.text) != nil else {
        throw ShellError(
          "expected a duration for \(label), not '\(word.text)'",
          hint: "for example 90s, 12h, 30d or 0 for none",
          at: word.offset)
      }
    case .date:
      guard Quantities.date(word.text) != nil else {
        throw ShellError(
          "expected a date for \(label), not '\(word.text)'",
          hint: "for example 2026-11-01 or 2026-11-01T12:00:00Z",
          at: word.offset)
      }
    case .integer(let range):
      guard let value = Int(word.text) else {
        throw ShellError(
          "expected a whole number for \(label), not '\(word.text)'", at: word.offset)
      }
      guard range.contains(value) else {
        throw ShellError(
          "expected \(label) between \(range.lowerBound) and \(range.upperBound), not '\(value)'",
          at: word.offset)
      }
    case .choice(let words):
      guard words.contains(word.text) else {
        let hint =
          ShellError.didYouMean(word.text, among: words)
          ?? "choose one of: \(words.joined(separator: ", "))"
        throw ShellError("'\(word.text)' is not a valid \(label)", hint: hint, at: word.offset)
      }
    }
  }
}
