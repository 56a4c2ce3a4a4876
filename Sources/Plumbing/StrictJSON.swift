import Foundation

// MARK: - Values

/// A JSON value exactly as an RFC 8259 text spells it.
///
/// Numbers keep their literal text, never converted, so `1e400` and a 300-digit integer survive.
/// Object members keep their input order and their duplicates (RFC 8259 allows duplicate names
/// and leaves their meaning open).
public enum JSONValue: Equatable, Sendable {
  /// The literal `null`.
  case null
  /// The literal `true` or `false`.
  case bool(Bool)
  /// A number, as the exact literal text of the input, such as `-1.5e3`.
  case number(String)
  /// A string, with its escapes decoded.
  case string(String)
  /// An array's elements, in input order.
  case array([JSONValue])
  /// An object's members, in input order, duplicates kept.
  case object([JSONMember])

  /// The value as `JSONSerialization` would give it, for code written against `[String: Any]`.
  ///
  /// Objects become `[String: Any]` (of duplicate names, the last wins), arrays `[Any]`, strings
  /// `String`, `null` `NSNull`, literals `Bool`. A number becomes an `Int` when its literal is an
  /// integer that fits `Int` exactly, otherwise a `Double` (which may be infinite, as for `1e400`).
  public func foundationObject() -> Any {
    switch self {
    case .null:
      return NSNull()
    case .bool(let value):
      return value
    case .number(let text):
      let isInteger = !text.utf8.contains { $0 == 0x2E || $0 == 0x65 || $0 == 0x45 }
      if isInteger, let integer = Int(text) { return integer }
      return Double(text) ?? Double.nan
    case .string(let value):
      return value
    case .array(let elements):
      return elements.map { $0.foundationObject() }
    case .object(let members):
      var dictionary: [String: Any] = [:]
      for member in members { dictionary[member.key] = member.value.foundationObject() }
      return dictionary
    }
  }
}

extension JSONValue {
  /// The value of an object's member `name` (the last one, when the name repeats, as
  /// `JSONSerialization` has it); nil for a missing member or a value that is not an object.
  public subscript(name: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.last { $0.key == name }?.value
  }

  /// The same value with every object's members sorted by name, at every depth; members with the
  /// same name keep their order.
  public func sortingMembers() -> JSONValue {
    switch self {
    case .array(let elements):
      return .array(elements.map { $0.sortingMembers() })
    case .object(let members):
      let sorted = members.enumerated().sorted {
        $0.element.key != $1.element.key ? $0.element.key < $1.element.key : $0.offset < $1.offset
      }
      return .object(
        sorted.map { JSONMember(key: $0.element.key, value: $0.element.value.sortingMembers()) })
    default:
      return self
    }
  }
}

/// One member of a JSON object: a name and its value.
public struct JSONMember: Equatable, Sendable {
  /// The member's name, with its escapes decoded.
  public var key: String
  /// The member's value.
  public var value: JSONValue

  /// Creates a member named `key` with `value`.
  public init(key: String, value: JSONValue) {
    self.key = key
    self.value = value
  }
}

// MARK: - Errors

/// Why a text is not strict RFC 8259 JSON, and where.
///
/// `line` and `column` are 1-based. Lines end at LF, CR LF or a lone CR. `column` counts Unicode
/// scalars from the start of the line, a tab counting as one; it is exact because everything
/// before an error is valid UTF-8. `offset` is the 0-based byte offset of the same place.
public struct JSONSyntaxError: Error, Equatable, CustomStringConvertible, Sendable {
  /// The 1-based line of the error.
  public let line: Int
  /// The 1-based column of the error, in Unicode scalars from the start of its line.
  public let column: Int
  /// The 0-based byte offset of the error in the input.
  public let offset: Int
  /// What is wrong, as one line without a location.
  public let message: String
  /// The JSON path of the innermost array or object being parsed, such as `$[2].rows[0]`; `$` at
  /// the top level.
  ///
  /// Names that are not plain identifiers appear in brackets, as in `$["a b"]`.
  public let path: String

  /// The error as one line, such as `line 3, column 9 (at $[0].rows): expected ...`.
  ///
  /// The path appears only below the top level; a very long path is shortened in the middle.
  public var description: String {
    guard path != "$" else { return "line \(line), column \(column): \(message)" }
    var shown = path
    if path.count > 80 { shown = path.prefix(30) + "..." + path.suffix(40) }
    return "line \(line), column \(column) (at \(shown)): \(message)"
  }
}

// MARK: - Parser

/// A strict RFC 8259 JSON parser whose errors say where and what, in one line.
///
/// It accepts exactly the grammar of RFC 8259 over UTF-8 input: any value at the top level,
/// duplicate names kept, numbers of any size kept as text. It rejects what lenient parsers let
/// through: trailing commas, comments, single quotes, unquoted names, `NaN` and `Infinity`, leading
/// zeros, unescaped control characters, invalid UTF-8, lone surrogate escapes, a leading
/// byte-order mark, and data after the value. Nesting is limited to `maximumDepth` and parsing
/// never recurses, so no input can exhaust the stack.
public enum StrictJSON {
  /// The deepest nesting of arrays and objects that the parser accepts.
  public static let maximumDepth = 512

  /// Parses UTF-8 JSON text.
  public static func parse(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
    let result = bytes.withContiguousStorageIfAvailable { run($0) }
    if let result { return try result.get() }
    return try Array(bytes).withUnsafeBufferPointer { run($0) }.get()
  }

  /// Parses JSON text held in a string.
  public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
    try parse(text.utf8)
  }

  /// Checks that `data` is strict RFC 8259 JSON text, throwing the first error.
  public static func validate(_ data: Data) throws(JSONSyntaxError) {
    _ = try parse(data)
  }

  private static func run(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<
    JSONValue, JSONSyntaxError
  > {
    var parser = Parser(bytes: buffer)
    return Result { () throws(JSONSyntaxError) -> JSONValue in try parser.parseDocument() }
  }
}

/// An array or object whose closing bracket is still to come.
private struct Frame {
  /// Whether this is an object.
  var isObject: Bool
  /// The byte offset of the opening bracket.
  var start: Int
  /// An array's elements so far.
  var elements: [JSONValue] = []
  /// An object's members so far.
  var members: [JSONMember] = []
  /// An object's current member name.
  var key = ""
}

/// Where a value is expected, for the message when none is found.
private enum ValueContext {
  case top
  case arrayStart
  case afterComma
  case member
}

/// What decoding one UTF-8 sequence found.
private enum UTF8Decoding {
  case scalar(Unicode.Scalar, length: Int)
  case invalid(String)
}

/// The ASCII bytes the grammar names.
private enum Byte {
  static let tab: UInt8 = 0x09
  static let lineFeed: UInt8 = 0x0A
  static let carriageReturn: UInt8 = 0x0D
  static let space: UInt8 = 0x20
  static let quote: UInt8 = 0x22
  static let apostrophe: UInt8 = 0x27
  static let plus: UInt8 = 0x2B
  static let comma: UInt8 = 0x2C
  static let minus: UInt8 = 0x2D
  static let dot: UInt8 = 0x2E
  static let slash: UInt8 = 0x2F
  static let zero: UInt8 = 0x30
  static let nine: UInt8 = 0x39
  static let colon: UInt8 = 0x3A
  static let openBracket: UInt8 = 0x5B
  static let backslash: UInt8 = 0x5C
  static let closeBracket: UInt8 = 0x5D
  static let openBrace: UInt8 = 0x7B
  static let closeBrace: UInt8 = 0x7D
}

/// The state of one parse over a contiguous buffer: an index and an explicit stack of open
/// containers instead of recursion.
private struct Parser {
  let bytes: UnsafeBufferPointer<UInt8>
  var index = 0
  var stack: [Frame] = []
  var scratch: [UInt8] = []

  init(bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  // MARK: Document and values

  mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
    guard !bytes.isEmpty else {
      throw failure("the input is empty; expected a JSON value", at: 0)
    }
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
      throw failure(
        "a byte-order mark (U+FEFF) starts the input; JSON text must not start with one", at: 0)
    }
    skipWhitespace()
    guard index < bytes.count else {
      throw failure("the input is only whitespace; expected a JSON value", at: index)
    }
    let value = try parseValue()
    skipWhitespace()
    if index < bytes.count {
      var hint = self.hint(at: index)
      if hint.isEmpty {
        let byte = bytes[index]
        hint =
          byte == Byte.closeBracket || byte == Byte.closeBrace
          ? " (an extra closing bracket?)" : " (only one top-level value is allowed)"
      }
      var what = found(at: index)
      if what.hasPrefix("a ") { what.removeFirst(2) }
      throw failure("unexpected \(what) after the JSON value\(hint)", at: index)
    }
    return value
  }

  /// Parses one value, nested containers included, with `stack` in place of recursion.
  mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
    var context = ValueContext.top
    parsing: while true {
      skipWhitespace()
      guard index < bytes.count else { throw expectedValue(context) }
      var value: JSONValue
      switch bytes[index] {
      case Byte.openBracket:
        try open(isObject: false)
        skipWhitespace()
        guard peek() == Byte.closeBracket else {
          context = .arrayStart
          continue parsing
        }
        index += 1
        stack.removeLast()
        value = .array([])
      case Byte.openBrace:
        try open(isObject: true)
        skipWhitespace()
        guard peek() == Byte.closeBrace else {
          try parseMemberName(afterComma: false)
          context = .member
          continue parsing
        }
        index += 1
        stack.removeLast()
        value = .object([])
      case Byte.quote:
        value = .string(try parseString())
      case Byte.minus, Byte.zero...Byte.nine:
        value = .number(try parseNumber())
      case 0x41...0x5A, 0x61...0x7A:
        value = try parseWord(context)
      case Byte.plus, Byte.dot:
        throw badNumberStart(context)
      default:
        throw expectedValue(context)
      }
      while let top = stack.indices.last {
        skipWhitespace()
        let next = peek()
        if stack[top].isObject {
          stack[top].members.append(JSONMember(key: stack[top].key, value: value))
          if next == Byte.comma {
            index += 1
            skipWhitespace()
            try parseMemberName(afterComma: true)
            context = .member
            continue parsing
          }
          guard next == Byte.closeBrace else { throw expectedSeparator() }
          index += 1
          value = .object(stack.removeLast().members)
        } else {
          stack[top].elements.append(value)
          if next == Byte.comma {
            index += 1
            context = .afterComma
            continue parsing
          }
          guard next == Byte.closeBracket else { throw expectedSeparator() }
          index += 1
          value = .array(stack.removeLast().elements)
        }
      }
      return value
    }
  }

  /// Opens an array or object at `index`, refusing to nest deeper than the limit.
  mutating func open(isObject: Bool) throws(JSONSyntaxError) {
    guard stack.count < StrictJSON.maximumDepth else {
      throw failure(
        "nesting exceeds the limit of \(StrictJSON.maximumDepth) levels of arrays and objects",
        at: index)
    }
    stack.append(Frame(isObject: isObject, start: index))
    index += 1
  }

  /// Parses a member name and its colon into the innermost object.
  mutating func parseMemberName(afterComma: Bool) throws(JSONSyntaxError) {
    guard peek() == Byte.quote else {
      var message = "expected '\"' to start a member name"
      if !afterComma { message += " or '}' to close the object" }
      message += ", found \(found(at: index))"
      if index >= bytes.count {
        message += unclosedHint()
      } else if afterComma && bytes[index] == Byte.closeBrace {
        message += " (a trailing comma?)"
      } else if isWordStart(bytes[index]) {
        message += " (member names need double quotes)"
      } else {
        message += hint(at: index)
      }
      throw failure(message, at: index)
    }
    let key = try parseString()
    if let top = stack.indices.last { stack[top].key = key }
    skipWhitespace()
    guard peek() == Byte.colon else {
      var message = "expected ':' after the member name \(quoted(key)), found \(found(at: index))"
      message += index >= bytes.count ? unclosedHint() : hint(at: index)
      throw failure(message, at: index)
    }
    index += 1
  }

  /// Parses `true`, `false` or `null`, explaining any other word.
  mutating func parseWord(_ context: ValueContext) throws(JSONSyntaxError) -> JSONValue {
    let start = index
    let word = self.word(at: start)
    switch word {
    case "true":
      index += 4
      return .bool(true)
    case "false":
      index += 5
      return .bool(false)
    case "null":
      index += 4
      return .null
    default:
      break
    }
    let lower = word.lowercased()
    let literals = ["true", "false", "null"]
    let message: String
    if ["nan", "infinity", "inf"].contains(lower) {
      message = "\(quoted(word)) is not a JSON value; JSON has no NaN or Infinity"
    } else if literals.contains(lower) {
      message = "invalid literal \(quoted(word)); JSON literals are lower-case: \(quoted(lower))"
    } else if let literal = literals.first(where: { $0.hasPrefix(word) || word.hasPrefix($0) }) {
      message = "invalid literal \(quoted(word)) (did you mean \(quoted(literal))?)"
    } else if ["undefined", "none", "nil"].contains(lower) {
      message = "\(quoted(word)) is not a JSON value (did you mean 'null'?)"
    } else {
      message = "\(expectation(context)), found \(quoted(word)) (strings need double quotes)"
    }
    throw failure(message, at: start)
  }

  // MARK: Numbers

  /// Parses a number at `index`, a minus sign or a digit, returning its literal text.
  mutating func parseNumber() throws(JSONSyntaxError) -> String {
    let start = index
    if bytes[index] == Byte.minus {
      index += 1
      guard index < bytes.count, isDigit(bytes[index]) else {
        if index < bytes.count, isWordStart(bytes[index]) {
          let word = self.word(at: index)
          if ["nan", "infinity", "inf"].contains(word.lowercased()) {
            throw failure(
              "\(quoted("-" + word)) is not a JSON value; JSON has no NaN or Infinity", at: start)
          }
        }
        throw failure("expected a digit after '-', found \(found(at: index))", at: index)
      }
    }
    if bytes[index] == Byte.zero {
      index += 1
      if index < bytes.count, isDigit(bytes[index]) {
        throw failure(
          "leading zeros are not allowed in JSON numbers: \(quoted(numberText(from: start)))",
          at: start)
      }
      if index < bytes.count, bytes[index] == 0x78 || bytes[index] == 0x58 {
        let text = self.text(from: start) { self.isDigit($0) || self.isWordStart($0) || $0 == 0x2D }
        throw failure("hexadecimal numbers are not allowed in JSON: \(quoted(text))", at: start)
      }
    } else {
      skipDigits()
    }
    if index < bytes.count, bytes[index] == Byte.dot {
      index += 1
      guard index < bytes.count, isDigit(bytes[index]) else {
        let text = rawText(start..<index)
        throw failure(
          "expected a digit after the decimal point in \(quoted(text)), found \(found(at: index))",
          at: index)
      }
      skipDigits()
    }
    if index < bytes.count, bytes[index] == 0x65 || bytes[index] == 0x45 {
      index += 1
      if index < bytes.count, bytes[index] == Byte.plus || bytes[index] == Byte.minus {
        index += 1
      }
      guard index < bytes.count, isDigit(bytes[index]) else {
        let text = rawText(start..<index)
        throw failure(
          "expected a digit in the exponent of \(quoted(text)), found \(found(at: index))",
          at: index)
      }
      skipDigits()
    }
    return rawText(start..<index)
  }

  /// The error for a value that starts with `+` or `.`.
  func badNumberStart(_ context: ValueContext) -> JSONSyntaxError {
    let text = numberText(from: index)
    let hasDigit = text.utf8.contains { isDigit($0) }
    guard hasDigit else { return expectedValue(context) }
    if bytes[index] == Byte.plus {
      return failure("a JSON number cannot start with '+': \(quoted(text))", at: index)
    }
    return failure(
      "a JSON number needs a digit before its decimal point: \(quoted(text)) (write "
        + "\(quoted("0" + text)))", at: index)
  }

  // MARK: Strings

  /// Parses a string at `index`, its opening quote, validating its UTF-8 and decoding escapes.
  mutating func parseString() throws(JSONSyntaxError) -> String {
    let open = index
    index += 1
    var segment = index
    var escaped = false
    scratch.removeAll(keepingCapacity: true)
    while index < bytes.count {
      let byte = bytes[index]
      if byte == Byte.quote {
        let result: String
        if escaped {
          scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segment..<index]))
          result = String(decoding: scratch, as: UTF8.self)
        } else {
          result = rawText(segment..<index)
        }
        index += 1
        return result
      }
      if byte == Byte.backslash {
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segment..<index]))
        escaped = true
        try parseEscape(stringStart: open)
        segment = index
      } else if byte < 0x20 {
        throw controlInString(byte)
      } else if byte < 0x80 {
        index += 1
      } else {
        switch decodeUTF8(at: index) {
        case .scalar(_, let length): index += length
        case .invalid(let message): throw failure(message, at: index)
        }
      }
    }
    throw failure("unterminated string: the input ends before its closing '\"'", at: open)
  }

  /// Decodes the escape at `index`, a backslash, appending its UTF-8 to `scratch`.
  mutating func parseEscape(stringStart: Int) throws(JSONSyntaxError) {
    let start = index
    guard start + 1 < bytes.count else {
      throw failure("unterminated string: the input ends before its closing '\"'", at: stringStart)
    }
    let simple: UInt8
    switch bytes[start + 1] {
    case Byte.quote: simple = Byte.quote
    case Byte.backslash: simple = Byte.backslash
    case Byte.slash: simple = Byte.slash
    case 0x62: simple = 0x08
    case 0x66: simple = 0x0C
    case 0x6E: simple = Byte.lineFeed
    case 0x72: simple = Byte.carriageReturn
    case 0x74: simple = Byte.tab
    case 0x75:
      let unit = try hexEscape(at: start)
      var value = unit
      if (0xD800...0xDBFF).contains(unit) {
        guard index + 1 < bytes.count, bytes[index] == Byte.backslash, bytes[index + 1] == 0x75
        else { throw loneHighSurrogate(at: start) }
        let low = try hexEscape(at: index)
        guard (0xDC00...0xDFFF).contains(low) else { throw loneHighSurrogate(at: start) }
        value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00...0xDFFF).contains(unit) {
        throw failure(
          "lone surrogate \(quoted(rawText(start..<start + 6))) in a string: a low surrogate "
            + "escape must follow a high one ('\\uD800' to '\\uDBFF')", at: start)
      }
      appendUTF8(value)
      return
    default:
      throw invalidEscape(at: start)
    }
    scratch.append(simple)
    index = start + 2
  }

  /// Reads the four hex digits of the `\u` escape at `start`, moving `index` past them.
  mutating func hexEscape(at start: Int) throws(JSONSyntaxError) -> UInt32 {
    var value: UInt32 = 0
    for position in start + 2..<start + 6 {
      guard position < bytes.count, let digit = hexValue(bytes[position]) else {
        var end = start + 2
        while end < min(start + 6, bytes.count), (0x21...0x7E).contains(bytes[end]),
          bytes[end] != Byte.quote, bytes[end] != Byte.backslash
        {
          end += 1
        }
        throw failure(
          "invalid escape \(quoted(rawText(start..<end))) in a string: '\\u' must be followed by "
            + "four hex digits", at: start)
      }
      value = value << 4 | digit
    }
    index = start + 6
    return value
  }

  func loneHighSurrogate(at start: Int) -> JSONSyntaxError {
    failure(
      "lone surrogate \(quoted(rawText(start..<start + 6))) in a string: a high surrogate escape "
        + "must be followed by a low one ('\\uDC00' to '\\uDFFF')", at: start)
  }

  func invalidEscape(at start: Int) -> JSONSyntaxError {
    let byte = bytes[start + 1]
    let escape: String
    if (0x21...0x7E).contains(byte) {
      escape = quoted("\\" + String(UnicodeScalar(byte)))
    } else {
      escape = "'\\' followed by \(found(at: start + 1))"
    }
    var message =
      "invalid escape \(escape) in a string; JSON allows only \\\" \\\\ \\/ \\b \\f \\n "
    message += "\\r \\t and \\uXXXX"
    if byte == Byte.apostrophe { message += " (a single quote needs no escape)" }
    return failure(message, at: start)
  }

  func controlInString(_ byte: UInt8) -> JSONSyntaxError {
    let escape: String
    switch byte {
    case 0x08: escape = "\\b"
    case Byte.tab: escape = "\\t"
    case Byte.lineFeed: escape = "\\n"
    case 0x0C: escape = "\\f"
    case Byte.carriageReturn: escape = "\\r"
    default: escape = "\\u" + hex4(UInt32(byte))
    }
    var message: String
    if byte == 0 {
      message = "NUL byte (U+0000) in a string; escape it as '\(escape)'"
    } else {
      message = "control character \(controlName(byte)) in a string; escape it as '\(escape)'"
    }
    if byte == Byte.lineFeed || byte == Byte.carriageReturn {
      message += " (or is the closing '\"' missing?)"
    }
    return failure(message, at: index)
  }

  mutating func appendUTF8(_ value: UInt32) {
    switch value {
    case ..<0x80:
      scratch.append(UInt8(value))
    case ..<0x800:
      scratch.append(UInt8(0xC0 | value >> 6))
      scratch.append(UInt8(0x80 | value & 0x3F))
    case ..<0x10000:
      scratch.append(UInt8(0xE0 | value >> 12))
      scratch.append(UInt8(0x80 | value >> 6 & 0x3F))
      scratch.append(UInt8(0x80 | value & 0x3F))
    default:
      scratch.append(UInt8(0xF0 | value >> 18))
      scratch.append(UInt8(0x80 | value >> 12 & 0x3F))
      scratch.append(UInt8(0x80 | value >> 6 & 0x3F))
      scratch.append(UInt8(0x80 | value & 0x3F))
    }
  }

  /// Decodes the UTF-8 sequence at `position`, following Table 3-7 of the Unicode Standard.
  func decodeUTF8(at position: Int) -> UTF8Decoding {
    let lead = bytes[position]
    let length: Int
    var lower: UInt8 = 0x80
    var upper: UInt8 = 0xBF
    var outOfRange = ""
    switch lead {
    case 0x00...0x7F:
      return .scalar(Unicode.Scalar(lead), length: 1)
    case 0x80...0xBF:
      return .invalid("invalid UTF-8 byte \(hex(lead)) (a continuation byte without a lead byte)")
    case 0xC0, 0xC1:
      return .invalid("invalid UTF-8 byte \(hex(lead)) (it can only start an overlong encoding)")
    case 0xC2...0xDF:
      length = 2
    case 0xE0:
      (length, lower, outOfRange) = (3, 0xA0, "an overlong encoding")
    case 0xED:
      (length, upper, outOfRange) = (3, 0x9F, "an encoded UTF-16 surrogate")
    case 0xE1...0xEF:
      length = 3
    case 0xF0:
      (length, lower, outOfRange) = (4, 0x90, "an overlong encoding")
    case 0xF1...0xF3:
      length = 4
    case 0xF4:
      (length, upper, outOfRange) = (4, 0x8F, "a code point above U+10FFFF")
    default:
      return .invalid("invalid UTF-8 byte \(hex(lead)) (it never appears in UTF-8)")
    }
    var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
    for offset in 1..<length {
      let sequence = "the \(length)-byte UTF-8 sequence that \(hex(lead)) starts"
      guard position + offset < bytes.count else {
        return .invalid("invalid UTF-8: \(sequence) is cut short by the end of the input")
      }
      let byte = bytes[position + offset]
      guard byte & 0xC0 == 0x80 else {
        return .invalid("invalid UTF-8: \(sequence) is cut short by byte \(hex(byte))")
      }
      if offset == 1 && (byte < lower || byte > upper) {
        return .invalid("invalid UTF-8 sequence \(hex(lead)) \(hex(byte)) (\(outOfRange))")
      }
      value = value << 6 | UInt32(byte & 0x3F)
    }
    guard let scalar = Unicode.Scalar(value) else {
      return .invalid("invalid UTF-8 byte \(hex(lead))")
    }
    return .scalar(scalar, length: length)
  }

  // MARK: Messages

  /// What a value position wanted, for "expected ..., found ..." messages.
  func expectation(_ context: ValueContext) -> String {
    switch context {
    case .top: return "expected a JSON value"
    case .arrayStart: return "expected a value or ']'"
    case .afterComma: return "expected a value after ','"
    case .member: return "expected a value for member \(quoted(stack.last?.key ?? ""))"
    }
  }

  func expectedValue(_ context: ValueContext) -> JSONSyntaxError {
    var message = "\(expectation(context)), found \(found(at: index))"
    if index >= bytes.count {
      message += unclosedHint()
    } else if context == .afterComma && bytes[index] == Byte.closeBracket {
      message += " (a trailing comma?)"
    } else {
      message += hint(at: index)
    }
    return failure(message, at: index)
  }

  /// The error for what follows an element or member value when it is neither ',' nor the close.
  func expectedSeparator() -> JSONSyntaxError {
    guard let frame = stack.last else { return failure("unexpected state", at: index) }
    var message =
      frame.isObject
      ? "expected ',' or '}' after the value of member \(quoted(frame.key))"
      : "expected ',' or ']' after an array element"
    message += ", found \(found(at: index))"
    if index >= bytes.count {
      message += unclosedHint()
    } else {
      let byte = bytes[index]
      let wrongClose = frame.isObject ? Byte.closeBracket : Byte.closeBrace
      if byte == wrongClose {
        let (line, column) = location(of: frame.start)
        let kind = frame.isObject ? "object" : "array"
        let close = frame.isObject ? "}" : "]"
        message +=
          " (mismatched brackets: the \(kind) opened at line \(line), column \(column) needs "
          + "'\(close)')"
      } else if byte == Byte.quote || byte == Byte.openBracket || byte == Byte.openBrace
        || byte == Byte.minus || isDigit(byte) || isWordStart(byte)
      {
        message += " (a missing comma?)"
      } else {
        message += hint(at: index)
      }
    }
    return failure(message, at: index)
  }

  /// A hint for the end of the input inside a container: which one is left open.
  func unclosedHint() -> String {
    guard let frame = stack.last else { return "" }
    let (line, column) = location(of: frame.start)
    let kind = frame.isObject ? "object" : "array"
    return " (the \(kind) opened at line \(line), column \(column) is not closed)"
  }

  /// A hint for a byte that suggests a familiar non-JSON habit, or "".
  func hint(at position: Int) -> String {
    guard position < bytes.count else { return "" }
    switch bytes[position] {
    case Byte.apostrophe:
      return " (JSON strings need double quotes)"
    case Byte.slash:
      let next = position + 1 < bytes.count ? bytes[position + 1] : 0
      return next == Byte.slash || next == 0x2A ? " (comments are not allowed in JSON)" : ""
    case 0x23:
      return " (comments are not allowed in JSON)"
    default:
      return ""
    }
  }

  /// Describes what is at `position`, for "found ..." messages.
  func found(at position: Int) -> String {
    guard position < bytes.count else { return "the end of the input" }
    let byte = bytes[position]
    switch byte {
    case 0:
      return "a NUL byte (U+0000)"
    case ..<0x20, 0x7F:
      return "control character \(controlName(byte))"
    case Byte.apostrophe:
      return "a single quote"
    case _ where isWordStart(byte):
      return quoted(word(at: position))
    case ..<0x80:
      return "'\(Character(Unicode.Scalar(byte)))'"
    default:
      switch decodeUTF8(at: position) {
      case .invalid:
        return "invalid UTF-8 byte \(hex(byte))"
      case .scalar(let scalar, _):
        let code = "U+" + hex4(scalar.value)
        let names: [UInt32: String] = [
          0xFEFF: "byte-order mark", 0xA0: "no-break space", 0x200B: "zero width space",
          0x2028: "line separator", 0x2029: "paragraph separator", 0x3000: "ideographic space",
        ]
        if let name = names[scalar.value] { return "\(code) (\(name))" }
        if isInvisible(scalar) { return code }
        return "'\(Character(scalar))' (\(code))"
      }
    }
  }

  // MARK: Locations

  /// The error `message` at byte `offset`, with its line, column and path.
  func failure(_ message: String, at offset: Int) -> JSONSyntaxError {
    let (line, column) = location(of: offset)
    return JSONSyntaxError(
      line: line, column: column, offset: offset, message: message, path: currentPath())
  }

  /// The 1-based line and column, in Unicode scalars, of byte `offset`.
  func location(of offset: Int) -> (line: Int, column: Int) {
    let end = min(offset, bytes.count)
    var line = 1
    var lineStart = 0
    var position = 0
    while position < end {
      let byte = bytes[position]
      if byte == Byte.lineFeed
        || (byte == Byte.carriageReturn
          && (position + 1 >= bytes.count || bytes[position + 1] != Byte.lineFeed))
      {
        line += 1
        lineStart = position + 1
      }
      position += 1
    }
    var column = 1
    for position in lineStart..<end where bytes[position] & 0xC0 != 0x80 { column += 1 }
    return (line, column)
  }

  /// The path of the innermost open container: each parent contributes where its child sits.
  func currentPath() -> String {
    var path = "$"
    for parent in stack.dropLast() {
      if parent.isObject {
        path += pathComponent(parent.key)
      } else {
        path += "[\(parent.elements.count)]"
      }
    }
    return path
  }

  func pathComponent(_ key: String) -> String {
    let isIdentifier =
      !key.isEmpty && key.utf8.allSatisfy { isWordStart($0) || isDigit($0) || $0 == 0x24 }
      && !isDigit(key.utf8.first ?? 0)
    guard !isIdentifier else { return "." + key }
    var component = "[\""
    for scalar in key.unicodeScalars {
      switch scalar {
      case "\"": component += "\\\""
      case "\\": component += "\\\\"
      default: component += escapedForLine(scalar)
      }
    }
    return component + "\"]"
  }

  // MARK: Bytes

  func peek() -> UInt8? {
    index < bytes.count ? bytes[index] : nil
  }

  mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case Byte.space, Byte.lineFeed, Byte.carriageReturn, Byte.tab: index += 1
      default: return
      }
    }
  }

  mutating func skipDigits() {
    while index < bytes.count, isDigit(bytes[index]) { index += 1 }
  }

  func isDigit(_ byte: UInt8) -> Bool {
    byte >= Byte.zero && byte <= Byte.nine
  }

  func isWordStart(_ byte: UInt8) -> Bool {
    (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
  }

  func hexValue(_ byte: UInt8) -> UInt32? {
    switch byte {
    case Byte.zero...Byte.nine: return UInt32(byte - Byte.zero)
    case 0x41...0x46: return UInt32(byte - 0x41 + 10)
    case 0x61...0x66: return UInt32(byte - 0x61 + 10)
    default: return nil
    }
  }

  /// The run of letters, digits and underscores at `position`.
  func word(at position: Int) -> String {
    text(from: position) { self.isWordStart($0) || self.isDigit($0) }
  }

  /// The run of number-like bytes at `position`, for messages about a malformed number.
  func numberText(from position: Int) -> String {
    text(from: position) {
      self.isDigit($0) || $0 == Byte.dot || $0 == Byte.plus || $0 == Byte.minus || $0 == 0x65
        || $0 == 0x45
    }
  }

  func text(from position: Int, while accepts: (UInt8) -> Bool) -> String {
    var end = position
    while end < bytes.count, end - position < 64, accepts(bytes[end]) { end += 1 }
    return rawText(position..<end)
  }

  func rawText(_ range: Range<Int>) -> String {
    let clamped = range.clamped(to: 0..<bytes.count)
    return String(decoding: UnsafeBufferPointer(rebasing: bytes[clamped]), as: UTF8.self)
  }
}

// MARK: - Formatting

/// `text` in single quotes for a one-line message: control and line-breaking characters escaped,
/// long text shortened.
private func quoted(_ text: String) -> String {
  var result = "'"
  for (count, scalar) in text.unicodeScalars.enumerated() {
    if count == 40 {
      result += "..."
      break
    }
    result += escapedForLine(scalar)
  }
  return result + "'"
}

/// `scalar` as itself, or as an escape when it is a control character or breaks a line.
private func escapedForLine(_ scalar: Unicode.Scalar) -> String {
  switch scalar {
  case "\n": return "\\n"
  case "\r": return "\\r"
  case "\t": return "\\t"
  default:
    switch scalar.properties.generalCategory {
    case .control, .lineSeparator, .paragraphSeparator: return "\\u" + hex4(scalar.value)
    default: return String(scalar)
    }
  }
}

private func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
  switch scalar.properties.generalCategory {
  case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .unassigned,
    .privateUse, .surrogate, .nonspacingMark, .enclosingMark:
    return true
  default:
    return false
  }
}

/// A control character's code point and, when it has a common one, its name.
private func controlName(_ byte: UInt8) -> String {
  let names: [UInt8: String] = [
    0x00: "NUL", 0x08: "backspace", 0x09: "tab", 0x0A: "line feed", 0x0C: "form feed",
    0x0D: "carriage return", 0x1B: "escape", 0x7F: "delete",
  ]
  let code = "U+" + hex4(UInt32(byte))
  guard let name = names[byte] else { return code }
  return "\(code) (\(name))"
}

/// A byte as `0xAB`.
private func hex(_ byte: UInt8) -> String {
  let digits = String(byte, radix: 16, uppercase: true)
  return "0x" + (digits.count < 2 ? "0" + digits : digits)
}

/// A code point as at least four upper-case hex digits.
private func hex4(_ value: UInt32) -> String {
  let digits = String(value, radix: 16, uppercase: true)
  return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
