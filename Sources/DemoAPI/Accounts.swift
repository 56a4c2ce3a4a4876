import Foundation
import Synchronization

/// Where the demo API keeps the tokens it has granted, so that they outlive its process.
///
/// archsh's embedded API keeps them in the workspace: a credential stored there in one session
/// still works in the next, as it would against a real API.
public protocol TokenStorage: AnyObject, Sendable {
  /// The tokens saved last, or nil.
  func loadTokens() -> Data?
  /// Saves the tokens, replacing what was saved.
  func saveTokens(_ data: Data)
}

/// The demo API's accounts, its OAuth2 client, and the tokens it has granted.
///
/// Tokens are random and expire: an access token after `tokenLifetime` seconds; a refresh token
/// lives until it is used, when a new pair replaces it. They are held in memory, and saved to
/// the `TokenStorage` when one is given.
public final class Accounts: Sendable {
  /// One account: what a password grant checks, and what `GET /users/me` answers.
  public struct Account: Sendable, Equatable {
    /// The id, in the convention's UUID form.
    public let id: String
    /// The email address, which is the username of a password grant.
    public let email: String
    /// The password.
    let password: String
    /// When the account was created, in seconds since 1970.
    public let createdAt: Int
  }

  /// Why a token request was refused: the convention's code, a message, and the HTTP status.
  public struct Refusal: Error, Equatable, Sendable {
    /// The camel-case code, such as `InvalidCredentials`.
    public let code: String
    /// A human-readable message.
    public let message: String
    /// The HTTP status the API answers with.
    public let status: Int
  }

  /// A granted pair of tokens.
  public struct Grant: Sendable, Equatable {
    /// The bearer token for protected routes.
    public let accessToken: String
    /// The token that gets the next pair.
    public let refreshToken: String
    /// Seconds until the access token expires.
    public let expiresIn: Int
  }

  /// The demo account, documented in the help.
  public static let demoEmail = "ada@example.com"
  /// The demo account's password.
  public static let demoPassword = "lovelace"
  /// The one OAuth2 client the API knows.
  public static let clientID = "archsh"
  /// That client's secret.
  public static let clientSecret = "archsh-demo-secret"

  private let state: Mutex<State>
  private let now: @Sendable () -> Date

  /// The accounts, the tokens granted and the counters, behind the mutex.
  private struct State {
    var accounts: [String: Account] = [:]
    var accessTokens: [String: (email: String, expiresAt: Date)] = [:]
    var refreshTokens: [String: String] = [:]
    var lifetime: Double
    var refreshes = 0
  }
  private let storage: TokenStorage?

  /// The saved form of the granted tokens.
  private struct SavedTokens: Codable {
    var access: [String: SavedAccess]
    var refresh: [String: String]
  }
  private struct SavedAccess: Codable {
    var email: String
    var expiresAt: Double
  }

  /// Creates the accounts with the demo account, with tokens that live `tokenLifetime` seconds.
  ///
  /// Tokens saved in `storage` are granted again.
  public init(
    tokenLifetime: Double = 3600, storage: TokenStorage? = nil,
    now: @escaping @Sendable () -> Date = Date.init
  ) {
    var initial = State(lifetime: tokenLifetime)
    if let data = storage?.loadTokens(),
      let saved = try? JSONDecoder().decode(SavedTokens.self, from: data)
    {
      initial.accessTokens = saved.access.mapValues {
        ($0.email, Date(timeIntervalSince1970: $0.expiresAt))
      }
      initial.refreshTokens = saved.refresh
    }
    self.state = Mutex(initial)
    self.now = now
    self.storage = storage
    add(email: Self.demoEmail, password: Self.demoPassword, createdAt: Self.demoCreatedAt)
  }

  /// Saves the tokens of `state`, inside its mutex.
  private func save(_ state: State) {
    guard let storage else { return }
    let time = now()
    let saved = SavedTokens(
      access: state.accessTokens.filter { $0.value.expiresAt > time }.mapValues {
        SavedAccess(email: $0.email, expiresAt: $0.expiresAt.timeIntervalSince1970)
      },
      refresh: state.refreshTokens)
    if let data = try? JSONEncoder().encode(saved) { storage.saveTokens(data) }
  }

  /// When the demo account was created: fixed, so that its id and dates are the same every run.
  static let demoCreatedAt = 1_767_225_600

  /// How long a new access token lives, in seconds.
  public var tokenLifetime: Double {
    get { state.withLock { $0.lifetime } }
    set { state.withLock { $0.lifetime = max(0, newValue) } }
  }

  /// Adds an account, or replaces the password of an existing one.
  public func add(email: String, password: String, createdAt: Int? = nil) {
    let created = createdAt ?? Int(now().timeIntervalSince1970)
    state.withLock { state in
      let id = state.accounts[email]?.id ?? Self.uuid(time: created, counter: state.accounts.count)
      state.accounts[email] = Account(id: id, email: email, password: password, createdAt: created)
    }
  }

  /// A password grant: `grant_type=password`.
  public func grant(username: String, password: String, clientID: String, clientSecret: String)
    -> Result<Grant, Refusal>
  {
    if let refusal = checkClient(clientID, clientSecret) { return .failure(refusal) }
    return state.withLock { state in
      guard let account = state.accounts[username], account.password == password else {
        return .failure(
          Refusal(
            code: "InvalidCredentials", message: "wrong email or password", status: 400))
      }
      return .success(issue(for: account.email, in: &state))
    }
  }

  /// A refresh grant: `grant_type=refresh_token`; the refresh token is used up.
  public func refresh(token: String, clientID: String, clientSecret: String)
    -> Result<Grant, Refusal>
  {
    if let refusal = checkClient(clientID, clientSecret) { return .failure(refusal) }
    return state.withLock { state in
      state.refreshes += 1
      guard let email = state.refreshTokens.removeValue(forKey: token) else {
        return .failure(
          Refusal(
            code: "InvalidRefreshToken", message: "the refresh token is unknown or used up",
            status: 400))
      }
      return .success(issue(for: email, in: &state))
    }
  }

  /// How many refresh grants the API has been asked for, granted or refused.
  public var refreshGrantCount: Int { state.withLock { $0.refreshes } }

  /// The account an access token belongs to, if the token is known and has not expired.
  public func account(forAccessToken token: String) -> Account? {
    let time = now()
    return state.withLock { state in
      guard let entry = state.accessTokens[token], entry.expiresAt > time else { return nil }
      return state.accounts[entry.email]
    }
  }

  /// Expires every access token now, so that the next protected request gets 401; returns how
  /// many were live.
  @discardableResult
  public func expireAccessTokens() -> Int {
    let time = now()
    return state.withLock { state in
      var live = 0
      for (token, entry) in state.accessTokens where entry.expiresAt > time {
        state.accessTokens[token] = (entry.email, time)
        live += 1
      }
      save(state)
      return live
    }
  }

  private func checkClient(_ id: String, _ secret: String) -> Refusal? {
    guard id == Self.clientID, secret == Self.clientSecret else {
      return Refusal(
        code: "InvalidClient", message: "unknown client or wrong client secret", status: 401)
    }
    return nil
  }

  /// Issues a new pair for `email` in `state`, inside its mutex.
  private func issue(for email: String, in state: inout State) -> Grant {
    let access = Self.token()
    let refresh = Self.token()
    state.accessTokens[access] = (email, now().addingTimeInterval(state.lifetime))
    state.refreshTokens[refresh] = email
    // Expired access tokens are forgotten as new ones are issued.
    let time = now()
    state.accessTokens = state.accessTokens.filter {
      $0.value.expiresAt > time || $0.key == access
    }
    save(state)
    return Grant(
      accessToken: access, refreshToken: refresh, expiresIn: Int(state.lifetime.rounded(.up)))
  }

  /// 32 random bytes as hex.
  static func token() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<32).map { _ in
      let byte = UInt8.random(in: 0...255, using: &generator)
      return (byte < 16 ? "0" : "") + String(byte, radix: 16)
    }.joined()
  }

  /// A UUID whose first part is the creation time, so that ids sort by time.
  static func uuid(time: Int, counter: Int) -> String {
    let high = String(format: "%08x", UInt32(truncatingIfNeeded: time))
    let low = String(format: "%012x", UInt64(counter))
    return "\(high)-0000-4000-8000-\(low)"
  }
}
