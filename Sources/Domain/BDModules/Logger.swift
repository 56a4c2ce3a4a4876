import Foundation
import Logging
import Plumbing
import Synchronization

/// BDModules' log levels, from the most to the least talkative.
public enum LogLevel: Int, Comparable, CaseIterable, Sendable, CustomStringConvertible {
  /// Everything, such as each step of a flow.
  case verbose
  /// What happened: requests and responses.
  case info
  /// Something failed that the app can live with.
  case warning
  /// Something failed that it cannot.
  case error

  /// The level's name as BDModules writes it: `Verbose`, `Info`, `Warning`, `Error`.
  public var description: String {
    switch self {
    case .verbose: return "Verbose"
    case .info: return "Info"
    case .warning: return "Warning"
    case .error: return "Error"
    }
  }

  /// Orders the levels by severity.
  public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

  /// The swift-log level it is emitted at.
  var swiftLogLevel: Logging.Logger.Level {
    switch self {
    case .verbose: return .debug
    case .info: return .info
    case .warning: return .warning
    case .error: return .error
    }
  }

  /// The level a swift-log level stands for.
  init(_ level: Logging.Logger.Level) {
    switch level {
    case .trace, .debug: self = .verbose
    case .info, .notice: self = .info
    case .warning: self = .warning
    case .error, .critical: self = .error
    }
  }
}

/// A tagged logger with an on/off switch and a threshold, after BDModules' `Logger`.
///
/// A line below the tag's threshold, or for a disabled tag, is dropped before it is formatted.
/// Lines that pass go through swift-log, to archsh's handler, which redacts secrets and keeps
/// them in the workspace's log (`LogBook`).
public final class Logger: Sendable {
  /// The tag every line carries, such as `API`.
  public let tag: String
  /// The application the lines come from.
  public let applicationName: String
  private let book: LogBook
  private let logger: Logging.Logger

  /// Creates a logger for `tag` whose lines go to `book`.
  public init(tag: String, applicationName: String = "archsh", book: LogBook) {
    self.tag = tag
    self.applicationName = applicationName
    self.book = book
    var logger = Logging.Logger(label: tag) { label in LogBookHandler(tag: label, book: book) }
    logger.logLevel = .trace
    self.logger = logger
  }

  /// Whether the tag's lines are kept (stored per tag in the workspace).
  public var enabled: Bool {
    get { book.setting(for: tag).enabled }
    set { book.update(tag: tag, enabled: newValue) }
  }

  /// The least severe level kept for the tag.
  public var thresholdLevel: LogLevel {
    get { book.setting(for: tag).threshold }
    set { book.update(tag: tag, threshold: newValue) }
  }

  /// Whether a line at `level` would be kept.
  public func isLogging(_ level: LogLevel) -> Bool {
    let setting = book.setting(for: tag)
    return setting.enabled && level >= setting.threshold
  }

  /// Logs `message` at `level` when the tag is enabled and the level reaches its threshold.
  public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
    guard isLogging(level) else { return }
    logger.log(level: level.swiftLogLevel, "\(message())")
  }

  /// Logs at Verbose.
  public func logVerbose(_ message: @autoclosure () -> String) { log(.verbose, message()) }
  /// Logs at Info.
  public func logInfo(_ message: @autoclosure () -> String) { log(.info, message()) }
  /// Logs at Warning.
  public func logWarning(_ message: @autoclosure () -> String) { log(.warning, message()) }
  /// Logs at Error.
  public func logError(_ message: @autoclosure () -> String) { log(.error, message()) }
}

/// archsh's swift-log handler: redacts secrets and hands each line to the log book.
struct LogBookHandler: LogHandler {
  let tag: String
  let book: LogBook
  var metadata: Logging.Logger.Metadata = [:]
  var logLevel: Logging.Logger.Level = .trace

  subscript(metadataKey key: String) -> Logging.Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    book.append(
      tag: tag, level: LogLevel(event.level),
      message: book.secrets.hide(Redaction.scrub(event.message.description)))
  }
}

/// The values one session must never show outside its terminal.
///
/// Its secret variables' values, the passwords typed at its prompts, its board's token: everything
/// that leaves the terminal (the board, recordings, `trace export`, the log) has them replaced by
/// `<redacted>`.
public final class SecretValues: Sendable {
  /// The shortest value looked for: shorter ones would redact ordinary words.
  public static let shortest = 4

  /// The values, longest first, so that a secret that contains another is hidden whole.
  private let values = Mutex<[String]>([])

  /// Creates an empty set.
  public init() {}

  /// Remembers `value`, and each form it takes once encoded; one shorter than `shortest` is not
  /// remembered.
  public func remember(_ value: String) {
    guard value.count >= Self.shortest else { return }
    let forms = Self.encodedForms(of: value).filter { $0.count >= Self.shortest }
    values.withLock { known in
      for form in forms where !known.contains(form) { known.append(form) }
      known.sort { $0.count > $1.count }
    }
  }

  /// `value` as it is, and as it reads once it went into a URL, a form or JSON: percent-encoded
  /// for a path, a query, a user name or alone (with upper- and lower-case hex digits),
  /// form-encoded (a space as `+`), JSON-escaped (with and without `\/` for a slash), and
  /// XML-escaped (a picture's text).
  static func encodedForms(of value: String) -> [String] {
    var forms = [value]
    func add(_ form: String?) {
      guard let form, !forms.contains(form) else { return }
      forms.append(form)
    }
    func addPercent(_ allowed: CharacterSet) {
      guard let encoded = value.addingPercentEncoding(withAllowedCharacters: allowed) else {
        return
      }
      add(encoded)
      add(lowercasedEscapes(encoded))
    }
    let unreserved = CharacterSet(
      charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    addPercent(unreserved)
    addPercent(.urlPathAllowed)
    addPercent(.urlQueryAllowed)
    addPercent(.urlUserAllowed)
    addPercent(.urlPasswordAllowed)
    // A form: a space is `+`, and `&`, `=` and `+` themselves are escaped.
    if let form = value.addingPercentEncoding(
      withAllowedCharacters: unreserved.union(CharacterSet(charactersIn: " ")))
    {
      add(form.replacingOccurrences(of: " ", with: "+"))
      add(lowercasedEscapes(form).replacingOccurrences(of: " ", with: "+"))
    }
    // JSON: between a string's quotes, with a slash escaped or not, and with what is not ASCII
    // as it is or as `\u` escapes (Foundation's encoder, Python's json.dumps).
    for (escapesSlash, asciiOnly) in [(false, false), (true, false), (false, true), (true, true)] {
      add(jsonEscaped(value, escapingSlash: escapesSlash, asciiOnly: asciiOnly))
    }
    // XML and HTML, as a picture's text writes it (`trace export`, the board's panels).
    add(xmlEscaped(value, apostrophe: nil))
    add(xmlEscaped(value, apostrophe: "&#39;"))
    add(xmlEscaped(value, apostrophe: "&apos;"))
    return forms
  }

  /// `value` as an XML or HTML text or attribute writes it.
  private static func xmlEscaped(_ value: String, apostrophe: String?) -> String {
    var text = ""
    for character in value {
      switch character {
      case "&": text += "&amp;"
      case "<": text += "&lt;"
      case ">": text += "&gt;"
      case "\"": text += "&quot;"
      case "'" where apostrophe != nil: text += apostrophe ?? "'"
      default: text.append(character)
      }
    }
    return text
  }

  /// `value` as it is written between the quotes of a JSON string.
  private static func jsonEscaped(_ value: String, escapingSlash: Bool, asciiOnly: Bool) -> String {
    var text = ""
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": text += "\\\""
      case "\\": text += "\\\\"
      case "/" where escapingSlash: text += "\\/"
      case "\n": text += "\\n"
      case "\r": text += "\\r"
      case "\t": text += "\\t"
      case "\u{08}": text += "\\b"
      case "\u{0C}": text += "\\f"
      default:
        guard scalar.value < 0x20 || (asciiOnly && scalar.value > 0x7E) else {
          text.unicodeScalars.append(scalar)
          continue
        }
        for unit in String(scalar).utf16 {
          let hex = String(unit, radix: 16)
          text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
      }
    }
    return text
  }

  /// `text` with the hex digits of its percent-escapes in lower case: `%2f`, not `%2F`.
  private static func lowercasedEscapes(_ text: String) -> String {
    var result = ""
    var remaining = 0
    for character in text {
      if character == "%" {
        remaining = 2
        result.append(character)
      } else if remaining > 0 {
        remaining -= 1
        result += character.lowercased()
      } else {
        result.append(character)
      }
    }
    return result
  }

  /// `text` with every remembered value replaced by `<redacted>`.
  public func hide(_ text: String) -> String {
    let known = values.withLock { $0 }
    guard !known.isEmpty else { return text }
    var result = text
    for value in known where Redaction.holds(value, in: result) {
      result = result.replacingOccurrences(of: value, with: "<redacted>")
    }
    return result
  }
}

/// Hides secrets in text that is about to be kept: bearer tokens, token and password fields.
public enum Redaction {
  /// Field names whose values are secret, in JSON (`"name":"value"`) or a form (`name=value`).
  ///
  /// Tokens keep their last four characters, so that two can be told apart; passwords and the
  /// client secret keep nothing.
  static let secretFields = [
    ("access_token", 4), ("refresh_token", 4), ("accessToken", 4), ("refreshToken", 4),
    ("password", 0), ("client_secret", 0),
  ]

  /// Header names whose values are secret, lower-cased.
  static let secretHeaders: Set<String> = [
    "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token",
  ]

  /// A URL as it may be shown: a password in it (`user:password@`) and the value of every query
  /// parameter named like a credential (`token`, `key`, `secret`, `password`) become `***`.
  public static func url(_ text: String) -> String {
    guard var components = URLComponents(string: text) else { return text }
    var changed = false
    if components.password != nil {
      components.password = "***"
      changed = true
    }
    if let items = components.queryItems {
      components.queryItems = items.map { item in
        let name = item.name.lowercased()
        guard ["token", "key", "secret", "password"].contains(where: name.contains),
          item.value?.isEmpty == false
        else { return item }
        changed = true
        return URLQueryItem(name: item.name, value: "***")
      }
    }
    guard changed else { return text }
    return components.string ?? text
  }

  /// Why a URL with a password is refused wherever archsh is given one.
  public static let urlPasswordReason =
    "it holds a password ('user:password@'), which archsh would have to keep and show in clear, "
    + "and never sends: leave it out"

  /// Whether `text` is a URL with a password in it (`scheme://user:password@host`).
  public static func holdsURLPassword(_ text: String) -> Bool {
    // A byte scan first: every request's URL comes here, and Foundation's `contains` of a
    // string searches through NSString.
    guard text.utf8.contains(UInt8(ascii: "@")), text.contains("://") else { return false }
    return URLComponents(string: text)?.password != nil
  }

  /// Whether a header of this name carries a secret (credentials or a session cookie).
  public static func isSecretHeader(_ name: String) -> Bool {
    secretHeaders.contains(name.lowercased())
  }

  /// A secret header's value as it may be shown: a bearer token keeps its last four characters,
  /// anything else is replaced whole.
  public static func headerValue(_ value: String) -> String {
    // The usual one, `Bearer TOKEN`, without a search: what `scrub` would make of it. On the
    // contiguous bytes, as every authenticated request's header comes here.
    var value = value
    let bearer = value.withUTF8 { bytes -> String? in
      let token = bytes.dropFirst(7)
      guard bytes.starts(with: "Bearer ".utf8), !token.isEmpty, !token.starts(with: "…".utf8),
        !token.contains(where: bearerTerminatorBytes.contains)
      else { return nil }
      return "Bearer …" + String(decoding: token, as: UTF8.self).suffix(4)
    }
    if let bearer { return bearer }
    let scrubbed = scrub(value)
    return scrubbed == value ? "…" : scrubbed
  }

  /// `text` with every bearer token and secret field value redacted.
  public static func scrub(_ text: String) -> String {
    // Most text holds none of these: checked on the bytes, without Foundation's string search,
    // since every command's output passes through here.
    guard holdsAny(secretMarkers, in: text) else { return text }
    var result = redactAfter("Bearer ", in: text, terminators: bearerTerminators, keep: 4)
    for (field, keep) in secretFields where holds(field, in: result) {
      result = redactAfter("\"\(field)\":\"", in: result, terminators: "\"", keep: keep)
      result = redactAfter("\"\(field)\": \"", in: result, terminators: "\"", keep: keep)
      result = redactAfter("\(field)=", in: result, terminators: "& \t\r\n\",;", keep: keep)
    }
    for (names, terminators) in secretHeaderSpellings {
      for name in names where holds(name, in: result) {
        result = redactAfter(name + ": ", in: result, terminators: terminators, keep: 0)
        result = redactAfter("\"\(name)\":\"", in: result, terminators: "\"", keep: 0)
        result = redactAfter("\"\(name)\": \"", in: result, terminators: "\"", keep: 0)
      }
    }
    return result
  }

  /// Headers whose values are secret wherever text shows them, and what ends a value.
  ///
  /// As `Name: value` or in JSON; a cookie that is set keeps its attributes (`; Path=/`) readable.
  /// Authorization is left to the bearer rule, which keeps a token's last four characters.
  static let secretHeaderLines = [
    ("Set-Cookie", "\r\n;"), ("Cookie", "\r\n"), ("X-Api-Key", "\r\n;"), ("X-Auth-Token", "\r\n;"),
  ]

  /// Each of `secretHeaderLines` as written there, lower-cased and upper-cased, made once.
  static let secretHeaderSpellings = secretHeaderLines.map { header, terminators in
    ([header, header.lowercased(), header.uppercased()], terminators)
  }

  /// What ends a bearer token in text.
  static let bearerTerminators = " \t\r\n\",;"
  /// The same, as bytes.
  private static let bearerTerminatorBytes = Array(bearerTerminators.utf8)

  /// What text that holds a secret contains: one of these, or it needs no scrubbing.
  static let secretMarkers: [StaticString] = [
    "oken", "Bearer", "assword", "client_secret", "ookie", "OOKIE", "pi-", "PI-",
  ]

  /// Whether any of `needles` occurs in `text`, comparing UTF-8 bytes: the text's bytes are
  /// reached once for them all.
  static func holdsAny(_ needles: [StaticString], in text: String) -> Bool {
    ByteSearch.occursAny(needles, in: text)
  }

  /// Whether `needle` occurs in `text`, comparing UTF-8 bytes.
  static func holds(_ needle: String, in text: String) -> Bool {
    ByteSearch.occurs(needle, in: text)
  }

  /// Replaces each value that follows `marker` (up to a terminator) by `…` and its last `keep`
  /// characters; a value already redacted is left alone.
  static func redactAfter(_ marker: String, in text: String, terminators: String, keep: Int)
    -> String
  {
    guard holds(marker, in: text) else { return text }
    // On the UTF-8 bytes: the markers and terminators are ASCII, so a match never splits a
    // character. The text between matches is copied whole, and text whose values are all
    // redacted already is returned as it is.
    let bytes = Array(text.utf8)
    let wanted = Array(marker.utf8)
    let stops = Array(terminators.utf8)
    let ellipsis = Array("…".utf8)
    var output: [UInt8] = []
    var copied = 0
    var changed = false
    var index = 0
    while let found = ByteSearch.firstOccurrence(of: wanted, in: bytes, from: index) {
      var end = found + wanted.count
      while end < bytes.count, !stops.contains(bytes[end]) { end += 1 }
      let value = bytes[(found + wanted.count)..<end]
      index = end
      guard !value.starts(with: ellipsis) else { continue }
      if !changed { output.reserveCapacity(bytes.count) }
      changed = true
      output += bytes[copied..<value.startIndex]
      output += ellipsis
      output += String(decoding: value, as: UTF8.self).suffix(keep).utf8
      copied = end
    }
    guard changed else { return text }
    output += bytes[copied...]
    return String(decoding: output, as: UTF8.self)
  }

}
