import Domain
import Plumbing

/// An error in one command line: what went wrong, a hint, and where.
///
/// The description is one line: lower-case start, no full stop, user input in single quotes, and
/// the hint in parentheses, for example `unknown command 'stor' (did you mean 'store'?)`.
public struct ShellError: Error, Equatable, CustomStringConvertible, Sendable {
  /// What went wrong.
  public var message: String
  /// What to do about it, or nil.
  public var hint: String?
  /// The byte offset of the offending text in the logical line, used for the column and caret.
  public var offset: Int?

  /// Creates an error.
  public init(_ message: String, hint: String? = nil, at offset: Int? = nil) {
    self.message = message
    self.hint = hint
    self.offset = offset
  }

  /// A Domain error as the shell reports it: its message, the shell's hint, and, for the errors
  /// that concern what the user ran, `command` named in the message.
  public init(describing error: Error, command: String? = nil) {
    self = Diagnosis.shellError(error, command: command)
  }

  /// The message and hint on one line.
  public var description: String {
    guard let hint else { return message }
    return "\(message) (\(hint))"
  }

  /// The longest quoted word an error shows whole, in characters.
  public static let shownWordLimit = 200

  /// The description as the error printer writes it to a terminal: on one line, its control
  /// bytes escaped (a script's word, a server's message), and a quoted word longer than
  /// `shownWordLimit` cut, with its length: `unknown command 'xxxx…' (50000000 characters)`.
  public var shown: String {
    let escaped = TerminalText.escaped(description)
    let pieces = escaped.split(separator: "'", omittingEmptySubsequences: false)
    guard pieces.count > 2, pieces.contains(where: { $0.count > Self.shownWordLimit }) else {
      return escaped
    }
    var text = ""
    var cut: Int?
    for (index, piece) in pieces.enumerated() {
      if index > 0 { text += "'" }
      if let length = cut {
        text += " (\(length) characters)"
        cut = nil
      }
      // Odd pieces are inside quotes; the last piece has no closing quote.
      if index % 2 == 1, index < pieces.count - 1, piece.count > Self.shownWordLimit {
        text += piece.prefix(Self.shownWordLimit) + "…"
        cut = piece.count
        continue
      }
      text += piece
    }
    return text
  }

  /// The error with a location, keeping one it already has.
  func located(at offset: Int?) -> ShellError {
    var copy = self
    if copy.offset == nil { copy.offset = offset }
    return copy
  }

  /// A hint that names the closest candidate, or nil.
  public static func didYouMean(_ word: String, among candidates: [String]) -> String? {
    Suggestion.nearest(to: word, among: candidates).map { "did you mean '\($0)'?" }
  }
}

/// A command that failed after producing output that still belongs on standard output, such as a
/// linter's findings: the interpreter prints `output`, then reports `error`, and the status is 1.
struct FailureWithOutput: Error, CustomStringConvertible, Sendable {
  /// What the command found, printed as a successful command's output would be.
  var output: Output
  /// Why the command counts as failed.
  var error: ShellError

  var description: String { error.description }
}
