import Foundation

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

/// Grants and refreshes tokens at the API's `/oauth/token` (BDModules' `OAuth2SessionManager`).
public final class OAuth2SessionManager {
  private let networkController: NetworkController
  private let baseURL: URL
  private let clientID: String
  private let clientSecret: String
  private let tracer: Tracing
  /// Told about every new credential.
  public weak var delegate: OAuth2SessionManagerDelegate?

  /// Creates a session manager for one OAuth2 client, posting to `/oauth/token` on `baseURL`
  /// (the factory's, which a redirect can swap).
  public init(
    networkController: NetworkController, baseURL: URL, clientID: String, clientSecret: String,
    tracer: Tracing
  ) {
    self.networkController = networkController
    self.baseURL = baseURL
    self.clientID = clientID
    self.clientSecret = clientSecret
    self.tracer = tracer
  }

  /// `grant_type=password`.
  public func tokenGrant(username: String, password: String) -> Result<
    OAuth2Credential, OAuth2Error
  > {
    request(
      "tokenGrant",
      ["grant_type": "password", "username": username, "password": password],
      username: username, attributes: [("username", username)])
  }

  /// `grant_type=refresh_token`.
  public func refreshToken(_ refreshToken: String) -> Result<OAuth2Credential, OAuth2Error> {
    request(
      "refreshToken", ["grant_type": "refresh_token", "refresh_token": refreshToken],
      username: nil, attributes: [])
  }

  private struct TokenResponse: Decodable, Sendable {
    let accessToken: String
    let refreshToken: String
  }

  private func request(
    _ operation: String, _ fields: [String: String], username: String?,
    attributes: [(key: String, value: String)]
  ) -> Result<OAuth2Credential, OAuth2Error> {
    let form = fields.merging(["client_id": clientID, "client_secret": clientSecret]) { $1 }
    let body = form.sorted { $0.key < $1.key }.map { key, value in
      "\(APISessionManager.encode(key))=\(APISessionManager.encode(value))"
    }.joined(separator: "&")
    let request = NetworkRequest(
      method: "POST",
      path: NetworkController.url("/oauth/token", relativeTo: baseURL)?.absoluteString
        ?? "/oauth/token",
      headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(body.utf8))
    let result = tracer.withSpan("OAuth2SessionManager", operation, attributes: attributes) {
      span in
      let response = networkController.perform(request, decoding: TokenResponse.self)
      span.setAttribute("status", response.response.map { String($0.statusCode) } ?? "none")
      return response.result
    }
    switch result {
    case .success(let token):
      let credential = OAuth2Credential(
        accessToken: token.accessToken, refreshToken: token.refreshToken)
      delegate?.didUpdateCredential(credential)
      return .success(credential)
    case .failure(.http(let status, let code, let message)):
      return .failure(.refused(status: status, code: code, message: message, username: username))
    case .failure(let error):
      return .failure(.network(error))
    }
  }

}

/// The logged-in account: its email and OAuth2 credential, kept in the workspace's `user` store
/// (BDModules' `AccountUserProvider`, which keeps them in the keychain on iOS).
public final class AccountUserProvider: OAuth2SessionManagerDelegate {
  private let store: PersistenceController
  private let decoder: JSONDecoder
  private let encoder: JSONEncoder
  static let credentialKey = "oauth2Credential"
  static let emailKey = "oauth2Email"

  /// Creates the provider over the `user` store, coding the credential as JSON.
  public init(store: PersistenceController, decoder: JSONDecoder, encoder: JSONEncoder) {
    self.store = store
    self.decoder = decoder
    self.encoder = encoder
  }

  /// The stored credential, or nil when logged out.
  public func credential() throws -> OAuth2Credential? {
    guard let data = try? store.retrieve(forKey: Self.credentialKey) else { return nil }
    return try? decoder.decode(OAuth2Credential.self, from: data)
  }

  /// The logged-in email, or nil.
  public func email() throws -> String? {
    guard let data = try? store.retrieve(forKey: Self.emailKey) else { return nil }
    return String(decoding: data, as: UTF8.self)
  }

  /// Records whose credential it keeps, after a password grant.
  public func logIn(email: String) throws {
    try store.persist(Data(email.utf8), forKey: Self.emailKey)
  }

  /// A grant or a refresh produced a credential: it replaces the stored one.
  public func didUpdateCredential(_ credential: OAuth2Credential) {
    try? save(credential)
  }

  /// Forgets the account and its credential.
  public func logOut() throws {
    for key in [Self.credentialKey, Self.emailKey] {
      if (try? store.retrieve(forKey: key)) != nil { try store.remove(forKeys: [key]) }
    }
  }

  private func save(_ credential: OAuth2Credential) throws {
    try store.persist(try encoder.encode(credential), forKey: Self.credentialKey)
  }
}
