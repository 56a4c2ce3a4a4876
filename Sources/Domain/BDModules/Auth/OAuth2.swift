import Foundation
import Plumbing

/// An OAuth2 credential: the access token that opens protected routes and the refresh token that
/// gets the next one (BDModules' `OAuth2Credential`).
public struct OAuth2Credential: Codable, Equatable, Sendable, CustomStringConvertible {
  /// The bearer token.
  public let accessToken: String
  /// The token a refresh grant spends.
  public let refreshToken: String

  /// Creates a credential.
  public init(accessToken: String, refreshToken: String) {
    self.accessToken = accessToken
    self.refreshToken = refreshToken
  }

  /// The tokens redacted to their last four characters: how a credential is ever shown.
  public var description: String {
    "access \(Self.redacted(accessToken)), refresh \(Self.redacted(refreshToken))"
  }

  /// A secret as it may be shown: `…` and its last four characters.
  public static func redacted(_ secret: String) -> String { "…" + String(secret.suffix(4)) }
}

/// Told when an `OAuth2SessionManager` gets a new credential.
public protocol OAuth2SessionManagerDelegate: AnyObject {
  /// A grant or a refresh produced `credential`.
  func didUpdateCredential(_ credential: OAuth2Credential)
}

/// Why a token request failed.
public enum OAuth2Error: Error, Equatable, CustomStringConvertible, SubjectError {
  /// The API refused the request: its status, its code and message when given, and the username
  /// of a password grant.
  case refused(status: Int, code: String?, message: String?, username: String?)
  /// The request did not complete, or its answer was not a token response.
  case network(NetworkError)
  /// A refresh was asked for with no credential.
  case notLoggedIn

  /// The input the error concerns: the username a password grant was refused for.
  public var subject: ErrorSubject? {
    if case .refused(_, _, _, let username?) = self { return ErrorSubject(.value, username) }
    return nil
  }

  /// A one-line description.
  public var description: String {
    switch self {
    case .refused(let status, let code, let message, _):
      let detail = [code, message].compactMap { $0 }.joined(separator: ": ")
      return "the token request was refused (HTTP \(status)\(detail.isEmpty ? "" : ", \(detail)"))"
    case .network(let error): return "the token request failed: \(error)"
    case .notLoggedIn: return "nobody is logged in, so there is no refresh token"
    }
  }
}

/// Grants and refreshes tokens at the API's token path (BDModules' `OAuth2SessionManager`).
///
/// The seed's manager is an `APISessionManager`, whose request serializer is AFNetworking's JSON
/// serializer, so its grants go out as a JSON body: `client_id`, `client_secret`, `grant_type`,
/// then `username` and `password`, or `refresh_token`. archsh's manager sends them the same way,
/// through the `APISessionManager` it is given. It reads the answer as the seed does:
/// `access_token` and `refresh_token` at the top level of the JSON object (beside the
/// convention's `"code":"OK"`, which it does not need).
public final class OAuth2SessionManager {
  private let sessionManager: APISessionManager
  private let path: String
  private let clientID: String
  private let clientSecret: String
  private let tracer: Tracing
  private let isCancelled: @Sendable () -> Bool
  /// Told about every new credential.
  public weak var delegate: OAuth2SessionManagerDelegate?

  /// Creates a session manager for one OAuth2 client, posting to `path` through
  /// `sessionManager` (relative to its `dynamicBaseURL`, which a redirect can swap).
  ///
  /// `isCancelled` is polled while a request runs; true cancels it (the shell's Ctrl-C flag).
  public init(
    sessionManager: APISessionManager, path: String = "/oauth/token", clientID: String,
    clientSecret: String, tracer: Tracing, isCancelled: @escaping @Sendable () -> Bool = { false }
  ) {
    self.sessionManager = sessionManager
    self.path = path
    self.clientID = clientID
    self.clientSecret = clientSecret
    self.tracer = tracer
    self.isCancelled = isCancelled
  }

  /// `grant_type=password`.
  public func tokenGrant(username: String, password: String) -> Result<
    OAuth2Credential, OAuth2Error
  > {
    request(
      "tokenGrant",
      [("grant_type", "password"), ("username", username), ("password", password)],
      username: username, attributes: [("username", username)])
  }

  /// `grant_type=refresh_token`.
  public func refreshToken(_ refreshToken: String) -> Result<OAuth2Credential, OAuth2Error> {
    request(
      "refreshToken", [("grant_type", "refresh_token"), ("refresh_token", refreshToken)],
      username: nil, attributes: [])
  }

  private func request(
    _ operation: String, _ fields: [(key: String, value: String)], username: String?,
    attributes: [(key: String, value: String)]
  ) -> Result<OAuth2Credential, OAuth2Error> {
    let parameters = [("client_id", clientID), ("client_secret", clientSecret)] + fields
    let result = tracer.withSpan("OAuth2SessionManager", operation, attributes: attributes) {
      span -> Result<OAuth2Credential, NetworkError> in
      let task: APISessionTask
      do {
        task = try sessionManager.performRequest(
          method: .post, path: path, parameters: parameters, followsRedirects: false)
      } catch {
        return .failure(.badURL(path))
      }
      guard let response = task.wait(isCancelled: isCancelled) else {
        return .failure(.transport(url: task.url.absoluteString, detail: "no response"))
      }
      span.setAttribute("status", Self.status(of: response))
      let credential = Self.credential(in: response)
      if case .failure(let error) = credential { span.setAttribute("error", error.description) }
      return credential
    }
    switch result {
    case .success(let credential):
      delegate?.didUpdateCredential(credential)
      return .success(credential)
    case .failure(.http(let status, let code, let message)):
      return .failure(.refused(status: status, code: code, message: message, username: username))
    case .failure(let error):
      return .failure(.network(error))
    }
  }

  /// The status of a response, for the trace.
  ///
  /// A function of its own, like `credential(in:)`: the release build's optimizer crashed
  /// ("found outside of lifetime use") on the same code written inline in the traced closure.
  static func status(of response: APIResponse) -> String {
    guard let code = response.statusCode else { return "none" }
    return String(code)
  }

  /// The credential a response carries, or why it carries none.
  static func credential(in response: APIResponse) -> Result<OAuth2Credential, NetworkError> {
    switch response.result {
    case .success(let data): return credential(from: data, url: response.url)
    case .failure(let error): return .failure(error)
    }
  }

  /// The credential in a token response: `access_token` and `refresh_token`, strings at the top
  /// level of a JSON object, as the seed reads them (it force-unwraps both; archsh names what is
  /// missing instead).
  static func credential(from data: Data, url: URL) -> Result<OAuth2Credential, NetworkError> {
    guard !data.isEmpty else { return .failure(.emptyResponseData(url: url.absoluteString)) }
    guard let value = try? StrictJSON.parse(data) else {
      return .failure(.decoding(path: "", detail: "the body is not valid JSON"))
    }
    guard case .object(let members) = value else {
      return .failure(.decoding(path: "", detail: "expected an object"))
    }
    func token(_ key: String) -> Result<String, NetworkError> {
      switch members.last(where: { $0.key == key })?.value {
      case .string(let text)? where !text.isEmpty: return .success(text)
      case .string?: return .failure(.decoding(path: key, detail: "the token is empty"))
      case nil: return .failure(.decoding(path: key, detail: "the field is missing"))
      case .null?: return .failure(.decoding(path: key, detail: "expected a string, found null"))
      case .some: return .failure(.decoding(path: key, detail: "expected a string"))
      }
    }
    return token("access_token").flatMap { access in
      token("refresh_token").map { OAuth2Credential(accessToken: access, refreshToken: $0) }
    }
  }
}
