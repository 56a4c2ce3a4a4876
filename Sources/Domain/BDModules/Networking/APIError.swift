import Foundation
import Plumbing

/// A demo API the process runs itself, on 127.0.0.1, for the networking controllers to talk to.
///
/// The shell provides it (the Domain layer only knows that it has a base URL and can be stopped).
public protocol EmbeddedAPIServer: AnyObject {
  /// Where it listens.
  var baseURL: URL { get }
  /// Stops listening.
  func stop()
  /// Expires every access token it has granted; returns how many were live.
  func expireAccessTokens() -> Int
  /// How long the access tokens it grants from now on live, in seconds.
  var accessTokenLifetime: Double { get set }
}

/// Why the API in use cannot be reached or re-pointed.
public enum APIError: Error, Equatable, CustomStringConvertible, SubjectError {
  /// The configured base URL is not an http or https URL that requests can be sent to; the
  /// second value says what is wrong with it.
  case invalidBaseURL(String, String)
  /// The embedded API could not start.
  case cannotStart(String)
  /// A path does not make a URL on the base URL.
  case invalidPath(String)
  /// The embedded API is needed, and another server is configured.
  case notEmbedded(String)

  /// A one-line description.
  public var description: String {
    switch self {
    case .invalidBaseURL(let text, let reason):
      return
        "'\(TerminalText.escaped(Redaction.url(text)))' cannot be the API's base URL: \(reason)"
    case .cannotStart(let reason): return reason
    case .invalidPath(let path):
      guard !Redaction.holdsURLPassword(path) else {
        return "'\(TerminalText.escaped(Redaction.url(path)))' cannot be sent: "
          + Redaction.urlPasswordReason
      }
      return "'\(TerminalText.escaped(path))' does not make a URL"
    case .notEmbedded(let url):
      return "fault injection needs the embedded demo API, and archsh is using \(url)"
    }
  }

  /// The input the error concerns: a path is the product or path given.
  public var subject: ErrorSubject? {
    if case .invalidPath(let path) = self { return .product(path) }
    return nil
  }
}
