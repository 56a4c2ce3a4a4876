/// Splits a logical line into commands and words.
///
/// The language is a small subset of the POSIX shell's:
/// - words are separated by blanks, and commands by `;` or a line break;
/// - `#` at the start of a word starts a comment that runs to the end of the line; inside a word
///   it is literal, so `a#b` and `http://x/#a` survive (quote a value that starts with `#`);
/// - `'single'` quotes are literal; `"double"` quotes allow `\` escapes (`\n`, `\t`, `\\`, `\"`,
///   `\$`) and variables;
/// - outside quotes, `\` makes the next character literal, and a trailing `\` continues the line:
///   the runner then joins the next line with a newline, which the lexer drops together with the
///   backslash;
/// - `$NAME`, `${NAME}`, `$?`, `$#` and `$0`…`$9` are variables; a `$` that starts none of these
///   is literal.
///
/// The lexer works on UTF-8 bytes and records byte offsets; columns are computed only when an
/// error needs one.
public enum Lexer {
  /// `word` written so that the lexer reads it back as the same word; words without special
  /// characters stay bare, so `--markdown` is still an option.
  ///
  /// Decided and written on the UTF-8 bytes, as the lexer reads them: a special character that
  /// shares a grapheme with the next one (a quote under a combining accent, the line break of
  /// `\r\n`) needs the quotes, and its quote the escape, all the same.
  public static func quoted(_ word: String) -> String {
    guard word.isEmpty || word.utf8.contains(where: specialBytes.contains) else { return word }
    var bytes: [UInt8] = [UInt8(ascii: "'")]
    bytes.reserveCapacity(word.utf8.count + 2)
    for byte in word.utf8 {
      if byte == UInt8(ascii: "'") {
        bytes += "'\\''".utf8
      } else {
        bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "'"))
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The bytes that make a word need quotes to be read back whole.
  private static let specialBytes = Array(" \t\n'\"\\$#;".utf8)

  /// Splits `text` into commands.
  ///
  /// Empty commands (blank lines, comments, `;;`) are dropped.
  public static func lex(_ text: String) throws(ShellError) -> [RawCommand] {
    var text = text
    let result: Result<[RawCommand], ShellError> = text.withUTF8 { bytes in
      var scanner = Scanner(bytes: bytes)
      do throws(ShellError) {
        return .success(try scanner.commands())
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  /// The last command of a line still being typed, for completion: its complete words, and the
  /// word the line ends in, if it ends inside one.
  ///
  /// An unclosed quote or `${` counts as closed, so `store retrieve 'my ke` completes `my ke`.
  public static func partialCommand(_ text: String) -> (words: [RawWord], current: RawWord?) {
    var text = text
    return text.withUTF8 { bytes in
      var scanner = Scanner(bytes: bytes)
      scanner.tolerant = true
      guard let commands = try? scanner.commands(), let last = commands.last,
        !scanner.endedCommand
      else { return ([], nil) }
      guard scanner.endsInWord else { return (last.words, nil) }
      return (Array(last.words.dropLast()), last.words.last)
    }
  }

  /// Whether `line` ends with a backslash that continues it onto the next line.
  ///
  /// A backslash inside single quotes or a comment does not continue the line, and neither does an
  /// escaped backslash (`\\`).
  public static func needsContinuation(_ line: String) -> Bool {
    guard line.utf8.last == UInt8(ascii: "\\") else { return false }
    var inSingle = false
    var inDouble = false
    var atWordStart = true
    var escaped = false
    var last: UInt8 = 0
    for byte in line.utf8 {
      last = byte
      if escaped {
        escaped = false
        atWordStart = false
        continue
      }
      if inSingle {
        if byte == UInt8(ascii: "'") { inSingle = false }
        continue
      }
      switch byte {
      case UInt8(ascii: "\\"):
        escaped = true
      case UInt8(ascii: "\""):
        inDouble.toggle()
      case UInt8(ascii: "'") where !inDouble:
        inSingle = true
      case UInt8(ascii: "#") where !inDouble && atWordStart:
        return false
      default:
        break
      }
      atWordStart = !inDouble && (byte == 32 || byte == 9 || byte == UInt8(ascii: ";"))
    }
    return escaped && last == UInt8(ascii: "\\")
  }
}

private struct Scanner {
  let bytes: UnsafeBufferPointer<UInt8>
  var index = 0
  var buffer: [UInt8] = []
  var parts: [WordPart] = []
  var quoted = false
  /// Completion's mode: an unclosed quote or `${`, or a trailing `\`, ends the word quietly.
  var tolerant = false
  /// Whether the input ended inside a word.
  var endsInWord = false
  /// Whether the last thing read ended a command (`;` or a line break).
  var endedCommand = false

  init(bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  mutating func commands() throws(ShellError) -> [RawCommand] {
    var commands: [RawCommand] = []
    var words: [RawWord] = []
    words.reserveCapacity(8)
    while index < bytes.count {
      let byte = bytes[index]
      endsInWord = false
      switch byte {
      case 32, 9, 13:
        index += 1
      case UInt8(ascii: ";"), 10:
        if !words.isEmpty { commands.append(RawCommand(words: words)) }
        words.removeAll(keepingCapacity: true)
        index += 1
        endedCommand = true
        continue
      case UInt8(ascii: "#"):
        while index < bytes.count, bytes[index] != 10 { index += 1 }
      case UInt8(ascii: "\\") where index + 1 < bytes.count && bytes[index + 1] == 10:
        index += 2
      default:
        words.append(try word())
        endsInWord = index == bytes.count
      }
      endedCommand = false
    }
    if !words.isEmpty { commands.append(RawCommand(words: words)) }
    return commands
  }

  /// Reads one word starting at `index`, which is not a blank, `;` or comment.
  mutating func word() throws(ShellError) -> RawWord {
    let start = index
    // Most words are plain: no quotes, escapes or variables. They become a String straight from
    // the input bytes; the first special character switches to the general path below.
    plain: while index < bytes.count {
      switch bytes[index] {
      case 32, 9, 10, 13, UInt8(ascii: ";"):
        return RawWord(text: text(start..<index), offset: start)
      case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "$"):
        break plain
      default:
        index += 1
      }
    }
    if index == bytes.count { return RawWord(text: text(start..<index), offset: start) }
    buffer.removeAll(keepingCapacity: true)
    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
    parts = []
    quoted = false
    scan: while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case 32, 9, 10, 13, UInt8(ascii: ";"):
        break scan
      case UInt8(ascii: "'"):
        try singleQuoted()
      case UInt8(ascii: "\""):
        try doubleQuoted()
      case UInt8(ascii: "\\"):
        quoted = true
        index += 1
        guard index < bytes.count else {
          if tolerant { break scan }
          throw ShellError(
            "nothing follows '\\' at the end of the input",
            hint: "a trailing '\\' continues the command on the next line", at: index - 1)
        }
        if bytes[index] != 10 { buffer.append(bytes[index]) }
        index += 1
      case UInt8(ascii: "$"):
        try variable()
      default:
        buffer.append(byte)
        index += 1
      }
    }
    if parts.isEmpty {
      return RawWord(text: takeBuffer(), offset: start, isQuoted: quoted)
    }
    flushLiteral()
    return RawWord(text: "", parts: parts, offset: start, isQuoted: quoted)
  }

  mutating func singleQuoted() throws(ShellError) {
    let open = index
    quoted = true
    index += 1
    while index < bytes.count, bytes[index] != UInt8(ascii: "'") {
      buffer.append(bytes[index])
      index += 1
    }
    guard index < bytes.count else {
      if tolerant { return }
      throw ShellError("unterminated single quote", hint: "close it with '", at: open)
    }
    index += 1
  }

  mutating func doubleQuoted() throws(ShellError) {
    let open = index
    quoted = true
    index += 1
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        return
      case UInt8(ascii: "\\") where index + 1 < bytes.count:
        let next = bytes[index + 1]
        index += 2
        switch next {
        case UInt8(ascii: "n"): buffer.append(10)
        case UInt8(ascii: "t"): buffer.append(9)
        case UInt8(ascii: "r"): buffer.append(13)
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "$"): buffer.append(next)
        case 10: break  // a continued line inside quotes: the backslash-newline disappears
        default:
          buffer.append(UInt8(ascii: "\\"))
          buffer.append(next)
        }
      case UInt8(ascii: "$"):
        try variable()
      default:
        buffer.append(byte)
        index += 1
      }
    }
    if tolerant { return }
    throw ShellError("unterminated double quote", hint: "close it with \"", at: open)
  }

  /// Reads a variable reference at `index` (a `$`), or keeps the `$` literal when none follows.
  mutating func variable() throws(ShellError) {
    let dollar = index
    let next = index + 1 < bytes.count ? bytes[index + 1] : 0
    if next == UInt8(ascii: "{") {
      var end = index + 2
      while end < bytes.count, bytes[end] != UInt8(ascii: "}") { end += 1 }
      guard end < bytes.count else {
        if tolerant {
          buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index...]))
          index = bytes.count
          return
        }
        throw ShellError("unterminated '${'", hint: "close it with '}'", at: dollar)
      }
      let name = String(
        decoding: UnsafeBufferPointer(rebasing: bytes[(index + 2)..<end]), as: UTF8.self)
      guard Self.isValidName(name) || Self.isSpecialName(name) else {
        throw ShellError(
          "bad variable name '\(name)' in '${\(name)}'",
          hint: "names are ASCII letters, digits and '_', not starting with a digit", at: dollar)
      }
      addVariable(name, at: dollar)
      index = end + 1
    } else if next == UInt8(ascii: "?") || next == UInt8(ascii: "#") || isDigit(next) {
      addVariable(String(UnicodeScalar(next)), at: dollar)
      index += 2
    } else if isNameStart(next) {
      var end = index + 1
      while end < bytes.count, isNameStart(bytes[end]) || isDigit(bytes[end]) { end += 1 }
      let name = String(
        decoding: UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end]), as: UTF8.self)
      addVariable(name, at: dollar)
      index = end
    } else {
      buffer.append(UInt8(ascii: "$"))
      index += 1
    }
  }

  func text(_ range: Range<Int>) -> String {
    String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
  }

  mutating func addVariable(_ name: String, at offset: Int) {
    flushLiteral()
    parts.append(.variable(name: name, offset: offset))
  }

  mutating func flushLiteral() {
    if !buffer.isEmpty { parts.append(.literal(takeBuffer())) }
  }

  mutating func takeBuffer() -> String {
    let text = String(decoding: buffer, as: UTF8.self)
    buffer.removeAll(keepingCapacity: true)
    return text
  }

  func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
  func isNameStart(_ byte: UInt8) -> Bool {
    (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 95
  }

  static func isValidName(_ name: String) -> Bool {
    guard let first = name.utf8.first, !(first >= 48 && first <= 57) else { return false }
    return name.utf8.allSatisfy {
      ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 95 || ($0 >= 48 && $0 <= 57)
    }
  }

  static func isSpecialName(_ name: String) -> Bool {
    name == "?" || name == "#"
      || (name.utf8.count == 1 && name.utf8.first.map { $0 >= 48 && $0 <= 57 } == true)
  }
}

extension Lexer {
  /// Whether `name` can be set with `set`: letters, digits and `_`, not starting with a digit.
  public static func isValidVariableName(_ name: String) -> Bool { Scanner.isValidName(name) }
}
