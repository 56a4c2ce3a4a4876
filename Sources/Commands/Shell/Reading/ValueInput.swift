import Domain
import Foundation
import Plumbing

/// A value that a command takes as one word: text as written, `@PATH` for a file's contents, `@@`
/// for text that starts with `@`; and JSON, checked strictly, with errors that say where.
///
/// A relative `PATH` starts where `paths` say: in a script, the script's folder.
///
/// Every group that takes a value or JSON reads it here, so that `store persist`, `net fault
/// --body`, `ds new --sections` and `ds row add` accept and reject the same things.
enum ValueInput {
  /// A value's bytes and the file they came from, if any.
  struct Contents {
    /// The bytes.
    var data: Data
    /// The file named by `@PATH`, as it was opened, or nil for text on the command line.
    var file: String?
  }

  /// Reads `word` and says where the value came from.
  static func value(of word: Word, paths: RelativePaths) throws(ShellError) -> Contents {
    let text = word.text
    // Most values are not files: one byte tells.
    guard text.utf8.first == UInt8(ascii: "@") else { return Contents(data: bytes(of: text)) }
    if text.hasPrefix("@@") { return Contents(data: Data(text.dropFirst().utf8)) }
    guard text.hasPrefix("@"), text.count > 1 else { return Contents(data: bytes(of: text)) }
    let path = String(text.dropFirst())
    return Contents(data: try contents(of: path, at: word, paths: paths), file: paths.shown(path))
  }

  /// The UTF-8 bytes of `text`, copied at once from a native string; `Data(text.utf8)` goes
  /// through the bytes one by one.
  static func bytes(of text: String) -> Data {
    text.utf8.withContiguousStorageIfAvailable { Data($0) } ?? Data(text.utf8)
  }

  /// A file's contents, its relative path resolved by `paths`; a directory or a device is refused
  /// before reading, since reading `/dev/zero` would never end.
  static func contents(of given: String, at word: Word, paths: RelativePaths) throws(ShellError)
    -> Data
  {
    let path = paths.resolve(given)
    let shown = paths.shown(given)
    var status = stat()
    guard stat(path, &status) == 0 else {
      let hint = [paths.hint(for: given), "write @@ for a value that starts with @"]
      throw ShellError(
        "cannot read the value file '\(shown)': no such file",
        hint: hint.compactMap { $0 }.joined(separator: "; "), at: word.offset)
    }
    switch status.st_mode & S_IFMT {
    case S_IFDIR:
      throw ShellError("cannot read the value file '\(shown)': it is a directory", at: word.offset)
    case S_IFCHR, S_IFBLK:
      throw ShellError("cannot read the value file '\(shown)': it is a device", at: word.offset)
    default:
      break
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw ShellError("cannot read the value file '\(shown)': permission denied", at: word.offset)
    }
    return data
  }

  /// Reads `word` and checks that it is JSON (RFC 8259, nothing more lenient).
  ///
  /// - Parameter what: what the value is, for the error: `the value`, `the row`, `the body`.
  static func json(_ word: Word, what: String = "the value", paths: RelativePaths)
    throws(ShellError) -> (data: Data, json: JSONValue)
  {
    let value = try value(of: word, paths: paths)
    return (value.data, try check(value.data, file: value.file, at: word, what: what))
  }

  /// Parses `data` strictly as JSON.
  ///
  /// The error is one line that says where: the line and column inside the file, or the column
  /// inside the value. Only a value typed on the command line gets
  /// the hint about quoting, since only there can the shell have eaten its double quotes.
  static func check(_ data: Data, file: String?, at word: Word, what: String = "the value")
    throws(ShellError) -> JSONValue
  {
    do {
      return try StrictJSON.parse(data)
    } catch {
      if let file {
        throw ShellError("'\(file)' is not valid JSON: \(error.description)", at: word.offset)
      }
      let place =
        error.line == 1 ? "column \(error.column)" : "line \(error.line), column \(error.column)"
      let path = error.path == "$" ? "" : " (at \(error.path))"
      // The shell removes double quotes that are not inside single quotes, which is the usual
      // reason for a JSON error about quotes in a typed value.
      let hint =
        error.message.contains("quote")
        ? "wrap the whole value in single quotes, so that the shell keeps its double quotes" : nil
      throw ShellError(
        "\(what) is not valid JSON: \(place)\(path): \(error.message)", hint: hint,
        at: word.offset)
    }
  }

  /// A value whole, for JSON output: its text, or its bytes in base64 when it is not UTF-8.
  ///
  /// Secrets in it (a stored OAuth2 credential's tokens) are redacted, here as everywhere.
  static func whole(_ data: Data) -> Value { shown(data).whole }

  /// A value as text (or a short description when it is not UTF-8) and whole, its bytes decoded
  /// and scrubbed once for both.
  static func shown(_ data: Data) -> (text: String, whole: Value) {
    if let text = String(data: data, encoding: .utf8) {
      let scrubbed = Redaction.scrub(text)
      return (scrubbed, .string(scrubbed))
    }
    let head = data.prefix(16).map { String(format: "%02x", $0) }.joined(separator: " ")
    return (
      "<\(data.count) bytes of binary data: \(head)\(data.count > 16 ? " …" : "")>",
      .object([
        Field("bytes", .int(data.count)), Field("base64", .string(data.base64EncodedString())),
      ])
    )
  }
}
