import Domain
import Foundation
import Synchronization

/// The type of a value an argument or option takes; parsing checks it and errors name it.
public enum ValueType: Sendable, Equatable {
  /// Any text.
  case text
  /// A whole number within `range`.
  case integer(ClosedRange<Int>)
  /// One of a fixed set of words; completion offers them.
  case choice([String])
  /// A file path; never empty.
  case path
  /// A name of something that lives in the session (a store, a key, a variable, a component);
  /// never empty.
  case name
  /// A byte count such as `1024` or `50MB`.
  case bytes
  /// A duration such as `90s`, `30d` or `0`, of at most `maximum` seconds when there is one.
  case duration(maximum: Double?)
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

  /// The same context for another typed prefix, for a completer that asks another.
  func withPrefix(_ prefix: String) -> CompletionContext {
    CompletionContext(
      session: session, previousWords: previousWords, prefix: prefix, registry: registry)
  }
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
  /// Which values are secret when not every value is (a header is secret when it is an
  /// `Authorization` header): a line that gives one is treated as one with a secret argument.
  public var isSecretValue: (@Sendable (String) -> Bool)?
  /// The placeholder for an option's value in usage lines (`N` in `--limit N`).
  public var valueName: String?
  /// Live values for completion, beyond a choice type's own words.
  public var completion: CompletionProvider?
  /// For a variadic positional: once it starts, it takes every remaining word as it is, options
  /// included (`time COMMAND...`).
  public var isPassthrough = false
  /// The input a Domain error names when it concerns this parameter's value: the dispatcher
  /// points such an error at this parameter's word.
  public var subject: ErrorSubject.Role?
  /// A one-letter alias for an option, written `-p`.
  public var shortName: Character?
  /// The name of a flag that makes this parameter's value secret when it is given (`set NAME
  /// VALUE --secret`).
  public var secretWithFlag: String?

  /// How the parameter appears in a usage line.
  var usage: String {
    switch kind {
    case .positional:
      let base = isVariadic ? "\(name)..." : name
      return isOptional ? "[\(base)]" : base
    case .option:
      let short = shortName.map { "-\($0) " } ?? "--\(name) "
      return "[\(short)\(valueName ?? type.placeholder)]" + (isVariadic ? "..." : "")
    case .flag:
      return "[--\(name)]"
    }
  }

  /// How the parameter is named in its help row.
  var helpLabel: String {
    switch kind {
    case .positional: return name
    case .option:
      return (shortName.map { "-\($0), " } ?? "") + "--\(name) \(valueName ?? type.placeholder)"
    case .flag: return "--\(name)"
    }
  }
}

/// A command's parameters, declared once: parsing, usage, help and completion derive from it.
///
/// A class: every parsed line refers to its command's signature, and a reference is one retain.
public final class Signature: Sendable {
  /// Every parameter, positionals in order.
  public let parameters: [Parameter]
  /// The indices of the positional parameters, in order; computed once, used on every line.
  let positionalSlots: [Int]
  /// The declared defaults, converted once, by slot.
  let defaults: [Int: Given]
  /// Which slots are secret, computed once, read on every line.
  let secretSlots: [Bool]
  /// The slot of the parameter that takes a command line (`time COMMAND...`), if any.
  let commandLineSlot: Int?

  /// Declares a signature from the command's parameter handles.
  public convenience init(_ handles: [any ParameterHandle] = []) {
    self.init(parameters: handles.map(\.parameter))
  }

  /// Declares a signature from its parameters.
  init(parameters: [Parameter]) {
    self.parameters = parameters
    self.positionalSlots = parameters.indices.filter { parameters[$0].kind == .positional }
    self.secretSlots = parameters.map(\.isSecret)
    self.commandLineSlot = parameters.firstIndex(where: \.isPassthrough)
    var defaults: [Int: Given] = [:]
    for (slot, parameter) in parameters.enumerated() {
      guard let text = parameter.defaultValue else { continue }
      let word = Word(text)
      if let converted = try? Self.convert(word, to: parameter.type, label: parameter.name) {
        defaults[slot] = Given(slot: slot, word: word, converted: converted)
      }
    }
    self.defaults = defaults
  }

  /// The positional parameters, in order.
  var positionals: [Parameter] { positionalSlots.map { parameters[$0] } }

  /// The usage line's argument part, for example `STORE KEY... [--limit N]`.
  var usage: String {
    let positional = parameters.filter { $0.kind == .positional }.map(\.usage)
    let named = parameters.filter { $0.kind != .positional }.map(\.usage)
    return (positional + named).joined(separator: " ")
  }

  /// The slot of a handle's parameter, or nil when this signature does not declare it.
  func slot(of parameter: borrowing Parameter) -> Int? {
    slot(named: parameter.name, parameter.kind)
  }

  /// The slot of the parameter with this name and kind.
  func slot(named name: String, _ kind: Parameter.Kind) -> Int? {
    for slot in parameters.indices where parameters[slot].name == name {
      if parameters[slot].kind == kind { return slot }
    }
    return nil
  }
}

/// A value converted once, while the line is parsed, to the type its parameter declares.
enum Converted: Sendable {
  /// Text, a path, a name or a choice: the word itself.
  case word
  /// A whole number or a byte count.
  case integer(Int)
  /// A duration in seconds.
  case seconds(Double)
  /// A date.
  case date(Date)
}

/// One word a command line gave a parameter, with its converted value.
struct Given: Sendable {
  var slot: Int
  var word: Word
  var converted: Converted
}

/// The values a command line supplied, checked against the signature and converted.
///
/// Commands read them through their parameter handles (`invocation[key]`), so an argument name is
/// a Swift identifier: a misspelt one does not compile.
public struct Arguments {
  /// The signature the values were parsed against.
  public let signature: Signature
  /// Each given word with its parameter's slot, in command-line order.
  ///
  /// One flat array keeps parsing to a single allocation per line.
  var entries: [Given] = []

  init(signature: Signature) {
    self.signature = signature
  }

  func given(_ slot: Int) -> Bool { entries.contains { $0.slot == slot } }

  /// The last value given for the parameter `name` of `kind`, or its declared default.
  func last(_ name: String, _ kind: Parameter.Kind) -> Given? {
    guard let slot = declaredSlot(name, kind) else { return nil }
    return entries.last { $0.slot == slot } ?? signature.defaults[slot]
  }

  /// Every value given for the parameter `name` of `kind`.
  func all(_ name: String, _ kind: Parameter.Kind) -> [Given] {
    guard let slot = declaredSlot(name, kind) else { return [] }
    return entries.filter { $0.slot == slot }
  }

  /// Where the word that gave `subject` starts: a word of a parameter declared to concern its
  /// role, the one with the subject's text first; else any argument word with that text.
  func offset(of subject: ErrorSubject) -> Int? {
    let concerned = entries.filter { signature.parameters[$0.slot].subject == subject.role }
    if let text = subject.text,
      let match = concerned.first(where: { $0.word.text == text })
        ?? entries.first(where: { $0.word.text == text })
    {
      return match.word.offset
    }
    return concerned.first?.word.offset
  }

  /// Whether any parameter declared secret was given a value, or a value that is secret.
  public var containsSecret: Bool {
    entries.contains(where: isSecret)
  }

  /// The offsets of the words that hold a secret: the values of secret parameters, values that
  /// their parameter calls secret, and words interpolated from a secret variable.
  ///
  /// A secret flag is not a secret itself (`--secret` stays readable): it makes the values of
  /// the parameters that name it secret.
  public var secretWordOffsets: [Int] {
    let flags = Set(
      entries.compactMap { entry -> String? in
        let parameter = signature.parameters[entry.slot]
        return parameter.kind == .flag ? parameter.name : nil
      })
    return entries.filter { entry in
      let parameter = signature.parameters[entry.slot]
      if entry.word.isSecret { return true }
      if let flag = parameter.secretWithFlag, flags.contains(flag) { return true }
      return parameter.kind != .flag && isSecret(entry)
    }.map(\.word.offset)
  }

  /// The name of the parameter each secret word was given to, by the word's offset.
  var secretParameterNames: [Int: String] {
    let secret = Set(secretWordOffsets)
    var names: [Int: String] = [:]
    for entry in entries where secret.contains(entry.word.offset) {
      names[entry.word.offset] = signature.parameters[entry.slot].name
    }
    return names
  }

  private func isSecret(_ entry: Given) -> Bool {
    signature.secretSlots[entry.slot]
      || signature.parameters[entry.slot].isSecretValue?(entry.word.text) == true
  }

  /// The value of a required argument.
  ///
  /// Parsing guarantees it; a handle the command does not declare is an error that names it.
  public subscript<Value>(_ argument: Argument<Value>) -> Value {
    get throws(ShellError) {
      guard let given = last(argument.parameter.name, argument.parameter.kind),
        let value = argument.kind.extract(given.word, given.converted)
      else {
        throw ShellError(
          "the command does not declare the argument \(argument.parameter.name)",
          hint: "this is a bug in archsh: the command reads a parameter its signature lacks")
      }
      return value
    }
  }

  /// The value of an optional argument or an option, or its default, or nil.
  public subscript<Value>(_ option: Option<Value>) -> Value? {
    last(option.parameter.name, option.parameter.kind).flatMap {
      option.kind.extract($0.word, $0.converted)
    }
  }

  /// Every value of a variadic argument or a repeatable option, in order.
  public subscript<Value>(_ many: Many<Value>) -> [Value] {
    guard let slot = declaredSlot(many.parameter.name, many.parameter.kind) else { return [] }
    // One pass and one array: this runs on every command that takes keys or words.
    var values: [Value] = []
    for given in entries where given.slot == slot {
      if let value = many.kind.extract(given.word, given.converted) { values.append(value) }
    }
    return values
  }

  /// Whether a flag was given.
  public subscript(_ flag: Flag) -> Bool {
    declaredSlot(flag.parameter.name, .flag).map(given) ?? false
  }

  /// The slot of a parameter the command reads; one its signature does not declare reads as
  /// absent, and is recorded in `UndeclaredReads` for the test that runs every example.
  private func declaredSlot(_ name: String, _ kind: Parameter.Kind) -> Int? {
    guard let slot = signature.slot(named: name, kind) else {
      UndeclaredReads.current?.record(name, declared: signature.parameters.map(\.name))
      return nil
    }
    return slot
  }

  /// The word that gave a parameter's value, for an error that points at it.
  public func word(for handle: some ParameterHandle) -> Word? {
    guard let slot = signature.slot(of: handle.parameter) else { return nil }
    return entries.last { $0.slot == slot }?.word
  }
}

/// Where a partial command line stands, for completion.
public struct PartialArguments {
  /// The parameter the next word fills: an option waiting for its value, or the next positional.
  public var awaiting: Parameter?
  /// Whether the next word may be an option: no option is waiting for its value.
  public var acceptsOption: Bool
  /// The options and flags already given.
  public var givenNames: Set<String>
  /// For a command that takes a command line (`time`), where that line starts.
  public var passthroughStart: Int?
}

extension Signature {
  /// Checks `words` (the arguments after the command's own words), assigns them to parameters and
  /// converts each value once.
  ///
  /// `--` ends the options: every later word is positional. A quoted word is never an option, and
  /// a word such as `-5` is a positional number. `--name=value` is accepted as `--name value`.
  public func parse(_ words: ArraySlice<Word>, command: String) throws(ShellError) -> Arguments {
    try walk(words, command: command, checking: true).arguments
  }

  /// Walks the words of a line still being typed, as parsing does, without checking them.
  public func partial(_ words: ArraySlice<Word>) -> PartialArguments {
    // An unchecked walk never throws.
    guard let walk = try? walk(words, command: "", checking: false) else {
      return PartialArguments(awaiting: nil, acceptsOption: false, givenNames: [])
    }
    var given = Set<String>()
    for entry in walk.arguments.entries where parameters[entry.slot].kind != .positional {
      if !parameters[entry.slot].isVariadic { given.insert(parameters[entry.slot].name) }
    }
    return PartialArguments(
      awaiting: walk.awaiting.map { parameters[$0] },
      acceptsOption: !walk.awaitingValue && !walk.optionsEnded,
      givenNames: given, passthroughStart: walk.passthroughStart)
  }

  private struct Walk {
    var arguments: Arguments
    var awaiting: Int?
    var awaitingValue = false
    var passthroughStart: Int?
    var optionsEnded = false
  }

  /// The one walk behind parsing and completion; `checking` makes every mistake an error.
  private func walk(_ words: ArraySlice<Word>, command: String, checking: Bool)
    throws(ShellError) -> Walk
  {
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
        for word in words[(cursor - 1)...] {
          arguments.entries.append(Given(slot: slot, word: word, converted: .word))
        }
        return Walk(arguments: arguments, awaiting: slot, passthroughStart: cursor - 1)
      }
      if !optionsEnded && !word.isQuoted && word.text == "--" {
        optionsEnded = true
        continue
      }
      let short = optionsEnded || word.isQuoted ? nil : shortOption(word.text)
      if short != nil || (!optionsEnded && !word.isQuoted && isOptionLike(word.text)) {
        var name = short ?? String(word.text.dropFirst(2))
        var inlineValue: String?
        if let equals = name.firstIndex(of: "=") {
          inlineValue = String(name[name.index(after: equals)...])
          name = String(name[..<equals])
        }
        guard let slot = parameters.firstIndex(where: { $0.kind != .positional && $0.name == name })
        else {
          guard checking else { continue }
          let names = parameters.filter { $0.kind != .positional }.map { "--\($0.name)" }
          let hint =
            ShellError.didYouMean("--\(name)", among: names)
            ?? (names.isEmpty
              ? "'\(command)' takes no options" : "options: \(names.joined(separator: ", "))")
          throw ShellError(
            "unknown option '--\(name)' for '\(command)'", hint: hint, at: word.offset)
        }
        if parameters[slot].kind == .flag {
          if checking, inlineValue != nil {
            throw ShellError(
              "flag '--\(name)' takes no value", hint: "write '--\(name)' alone", at: word.offset)
          }
          if !arguments.given(slot) {
            arguments.entries.append(Given(slot: slot, word: word, converted: .word))
          }
          continue
        }
        let value: Word
        if let inlineValue {
          value = Word(
            inlineValue, offset: word.offset + name.utf8.count + 3, isQuoted: word.isQuoted)
        } else {
          guard cursor < words.endIndex else {
            guard checking else {
              return Walk(arguments: arguments, awaiting: slot, awaitingValue: true)
            }
            throw ShellError(
              "option '--\(name)' needs a value",
              hint: "usage: \(command) \(usage)", at: word.offset)
          }
          value = words[cursor]
          cursor += 1
        }
        if checking, !parameters[slot].isVariadic && arguments.given(slot) {
          throw ShellError(
            "option '--\(name)' is given twice", hint: "give it once", at: word.offset)
        }
        let converted =
          checking ? try Self.convert(value, to: parameters[slot].type, label: "--\(name)") : .word
        arguments.entries.append(Given(slot: slot, word: value, converted: converted))
        continue
      }
      guard positionalIndex < positionalSlots.count else {
        guard checking else { continue }
        throw ShellError(
          "too many arguments for '\(command)': unexpected '\(word.text)'",
          hint: hintForExtraArgument(command), at: word.offset)
      }
      let slot = positionalSlots[positionalIndex]
      let converted =
        checking
        ? try Self.convert(word, to: parameters[slot].type, label: parameters[slot].name) : .word
      arguments.entries.append(Given(slot: slot, word: word, converted: converted))
      if !parameters[slot].isVariadic { positionalIndex += 1 }
    }

    if checking {
      for slot in positionalSlots where !parameters[slot].isOptional && !arguments.given(slot) {
        let end = words.last.map { $0.offset + $0.text.utf8.count + 1 }
        throw ShellError(
          "missing argument \(parameters[slot].name) for '\(command)'",
          hint: "usage: \(command) \(usage)", at: end)
      }
    }
    let awaiting = positionalIndex < positionalSlots.count ? positionalSlots[positionalIndex] : nil
    return Walk(arguments: arguments, awaiting: awaiting, optionsEnded: optionsEnded)
  }

  /// The option a one-letter alias such as `-p` names, if any.
  private func shortOption(_ text: String) -> String? {
    let utf8 = text.utf8
    guard utf8.count == 2, utf8.first == UInt8(ascii: "-"), let letter = text.last else {
      return nil
    }
    return parameters.first { $0.shortName == letter && $0.kind != .positional }?.name
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

  /// Checks a word against its parameter's type and converts it, once.
  static func convert(_ word: Word, to type: ValueType, label: @autoclosure () -> String)
    throws(ShellError) -> Converted
  {
    switch type {
    case .text:
      return .word
    case .path, .name:
      // Quotes around nothing give an empty word, which names nothing: refused here, once, for
      // every command that takes a name or a path.
      guard !word.text.isEmpty else {
        throw ShellError(
          "\(label()) cannot be empty", hint: type == .path ? "give a file's path" : "give a name",
          at: word.offset)
      }
      return .word
    case .bytes:
      return .integer(
        try quantity(
          word, label(), Quantities.bytes, "a byte count", hint: "for example 1024, 64KB or 50MB"))
    case .duration(let maximum):
      let seconds = try quantity(
        word, label(), Quantities.duration, "a duration",
        hint: durationHint(for: word.text, maximum: maximum))
      if let maximum, seconds > maximum {
        throw ShellError(
          "expected at most \(format(bound: maximum)) for \(label()), not '\(word.text)'",
          at: word.offset)
      }
      return .seconds(seconds)
    case .date:
      return .date(
        try quantity(
          word, label(), Quantities.date, "a date",
          hint: "for example 2026-11-01 or 2026-11-01T12:00:00Z"))
    case .integer(let range):
      guard let value = Int(word.text) else {
        throw ShellError(
          "expected a whole number for \(label()), not '\(word.text)'", at: word.offset)
      }
      guard range.contains(value) else {
        throw ShellError(
          "expected \(label()) between \(range.lowerBound) and \(range.upperBound), not '\(value)'",
          at: word.offset)
      }
      return .integer(value)
    case .choice(let words):
      guard words.contains(word.text) else {
        let hint =
          ShellError.didYouMean(word.text, among: words)
          ?? "choose one of: \(words.joined(separator: ", "))"
        throw ShellError("'\(word.text)' is not a valid \(label())", hint: hint, at: word.offset)
      }
      return .word
    }
  }

  /// The hint for a word that is not a duration: examples within the parameter's own bound, and
  /// for a bare number, the same number with a unit.
  static func durationHint(for text: String, maximum: Double?) -> String {
    let bound = maximum.map { "; at most \(format(bound: $0))" } ?? ""
    if let number = Double(text), number > 0, number <= (maximum ?? .infinity) {
      return "a duration needs a unit, such as \(text)s\(bound)"
    }
    guard let maximum else { return "for example 90s, 12h, 30d or 0 for none" }
    let examples = ["500ms", "2s", "90s", "15m", "12h", "30d"].filter {
      (Quantities.duration($0) ?? .infinity) <= maximum
    }.suffix(2)
    guard !examples.isEmpty else { return "at most \(format(bound: maximum))" }
    return "for example \(examples.joined(separator: " or "))\(bound)"
  }

  /// A duration's bound as its help states it: in seconds up to two minutes (`60s`, not `1m`).
  private static func format(bound: Double) -> String {
    bound <= 120 && bound.rounded() == bound
      ? "\(Int(bound))s" : Quantities.format(duration: bound)
  }

  /// A quantity read by `read`, or an error that names what was expected.
  private static func quantity<T>(
    _ word: Word, _ label: String, _ read: (String) -> T?, _ noun: String, hint: String
  ) throws(ShellError) -> T {
    guard let value = read(word.text) else {
      throw ShellError(
        "expected \(noun) for \(label), not '\(word.text)'", hint: hint, at: word.offset)
    }
    return value
  }
}

/// The parameters commands read without declaring them.
///
/// Such a read silently gives nothing, so it is always a bug; `TypedParameterTests` runs every
/// help example inside `collect` and expects none.
final class UndeclaredReads: Sendable {
  /// The record of the task running `collect`, if any.
  @TaskLocal static var current: UndeclaredReads?

  /// Runs `body`, and returns the undeclared reads it made.
  static func collect(_ body: () throws -> Void) rethrows -> [String] {
    let reads = UndeclaredReads()
    try $current.withValue(reads) { try body() }
    return reads.take()
  }

  private let reads = Mutex<Set<String>>([])

  /// Records that `name` was read from a signature declaring only `declared`.
  func record(_ name: String, declared: [String]) {
    let entry = "\(name) (declared: \(declared.joined(separator: ", ")))"
    reads.withLock { _ = $0.insert(entry) }
  }

  /// What was recorded, which is then forgotten.
  func take() -> [String] {
    reads.withLock { reads in
      defer { reads = [] }
      return reads.sorted()
    }
  }
}
