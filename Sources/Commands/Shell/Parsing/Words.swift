/// A part of a word as written: literal text, or a variable to interpolate.
public enum WordPart: Equatable, Sendable {
  /// Text that is used as it is.
  case literal(String)
  /// `$NAME`, `${NAME}`, `$?`, `$#` or `$1`; `offset` points at the `$`.
  case variable(name: String, offset: Int)
}

/// A word as the lexer found it, before variables are interpolated.
public struct RawWord: Equatable, Sendable {
  /// The word's text when it holds no variables (the common case, kept allocation-free).
  public var text: String
  /// The word's parts when it holds variables; empty otherwise.
  public var parts: [WordPart]
  /// Byte offset of the word's first character in the logical line.
  public var offset: Int
  /// Whether any part of the word was quoted or escaped.
  ///
  /// A quoted word is never an option.
  public var isQuoted: Bool

  /// Creates a word.
  public init(text: String, parts: [WordPart] = [], offset: Int, isQuoted: Bool = false) {
    self.text = text
    self.parts = parts
    self.offset = offset
    self.isQuoted = isQuoted
  }

  /// Whether the word needs interpolation before use.
  public var hasVariables: Bool { !parts.isEmpty }
}

/// A command as the lexer found it: its words, before interpolation.
public struct RawCommand: Equatable, Sendable {
  /// The words, in order.
  ///
  /// Never empty.
  public var words: [RawWord]
}

/// A word ready for dispatch: its final text and where it came from.
public struct Word: Equatable, Sendable {
  /// The text after quotes, escapes and variables were resolved.
  public var text: String
  /// Byte offset of the word in the logical line, for error columns.
  public var offset: Int
  /// Whether the word was quoted, so `"--help"` stays a positional argument.
  public var isQuoted: Bool
  /// Whether the text holds the value of a variable set with `--secret`: traces and exports show
  /// the word redacted.
  public var isSecret = false

  /// Creates a word.
  public init(_ text: String, offset: Int = 0, isQuoted: Bool = false, isSecret: Bool = false) {
    self.text = text
    self.offset = offset
    self.isQuoted = isQuoted
    self.isSecret = isSecret
  }
}

extension RawWord {
  /// Interpolates variables through `lookup`; an undefined variable is an error that names it.
  ///
  /// A word that takes the value of a variable for which `isSecret` is true is secret itself.
  public func expanded(
    _ lookup: (String) -> String?, isSecret: (String) -> Bool = { _ in false }
  ) throws(ShellError) -> Word {
    guard hasVariables else { return Word(text, offset: offset, isQuoted: isQuoted) }
    var result = ""
    var secret = false
    for part in parts {
      switch part {
      case .literal(let text):
        result += text
      case .variable(let name, let at):
        guard let value = lookup(name) else {
          let isArgument =
            name.utf8.count == 1 && name.utf8.first.map { $0 >= 49 && $0 <= 57 } == true
          let hint =
            isArgument
            ? "the script was given fewer arguments; $# counts them"
            : "define it with 'set \(name) VALUE'"
          throw ShellError("undefined variable '\(name)'", hint: hint, at: at)
        }
        result += value
        secret = secret || isSecret(name)
      }
    }
    return Word(result, offset: offset, isQuoted: isQuoted, isSecret: secret)
  }
}
