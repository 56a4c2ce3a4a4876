import Foundation

/// Why a request for the logged-in user failed.
public enum UserAPIError: Error, Equatable, CustomStringConvertible, SubjectError {
  /// Nobody is logged in, so there is no bearer token to send.
  case notLoggedIn
  /// The request failed, or the API refused it.
  case network(NetworkError)
  /// The request answered 401 and the refresh that should have fixed it failed.
  case authorization(OAuth2Error)
  /// `login`'s token grant succeeded for `email`, so the credential is kept, but `me()` failed
  /// (`reason` says how), so no user is stored.
  case userNotFetched(email: String, reason: String)

  /// The input the error concerns: the email of a login whose user could not be fetched.
  public var subject: ErrorSubject? {
    if case .userNotFetched(let email, _) = self { return ErrorSubject(.value, email) }
    return nil
  }

  /// A one-line description.
  public var description: String {
    switch self {
    case .notLoggedIn: return "nobody is logged in, so there is no bearer token to send"
    case .network(let error): return error.description
    case .authorization(let error): return error.description
    case .userNotFetched(let email, let reason):
      return
        "logged in as '\(email)' and the credential is kept, but the user could not be fetched: "
        + reason
    }
  }
}

/// The user routes, after BDModules' `UserAPI`.
///
/// `login` is the seed's: OAuth2SessionManager's `tokenGrant` (whose delegate, the
/// AccountUserProvider, keeps the credential), then `me()`. `me()` asks for the logged-in user
/// through its `APIServiceClient` for `User`, and so through OAuth2Authorization, which
/// refreshes an expired token and replays the request; the user it gets goes to the
/// `userPersistenceHandler` it is given, which keeps it beside the credential.
public final class UserAPI {
  private let userServiceClient: APIServiceClient
  private let accountUserProvider: AccountUserProvider
  private let oAuth2SessionManager: OAuth2SessionManager
  private let tracer: Tracing

  /// Creates the API over a service client for `User`, the account provider, and the session
  /// manager that grants tokens.
  public init(
    userServiceClient: APIServiceClient, accountUserProvider: AccountUserProvider,
    oAuth2SessionManager: OAuth2SessionManager, tracer: Tracing
  ) {
    self.userServiceClient = userServiceClient
    self.accountUserProvider = accountUserProvider
    self.oAuth2SessionManager = oAuth2SessionManager
    self.tracer = tracer
  }

  /// The seed's `login(email:password:userPersistenceHandler:handler:)`: a password grant, then
  /// `me()`, whose user goes to `userPersistenceHandler`.
  ///
  /// A refused or failed grant throws its `OAuth2Error`, and nothing is stored. When the grant
  /// succeeds and `me()` fails, the credential stays stored and the error is
  /// `UserAPIError.userNotFetched`: the seed hands `me()`'s error to its handler the same way,
  /// with the credential already in the keychain. A user stored for an earlier login is
  /// forgotten once the grant succeeds, so a failed `me()` never leaves another account's user.
  public func login(
    email: String, password: String,
    userPersistenceHandler: @escaping (MappedObject) throws -> Void
  ) throws -> (credential: OAuth2Credential, user: MappedObject) {
    try tracer.withSpan("UserAPI", "login", attributes: [("username", email)]) { _ in
      let credential = try oAuth2SessionManager.tokenGrant(username: email, password: password)
        .get()
      try accountUserProvider.logIn(email: email)
      let user: MappedObject
      do {
        user = try me()
      } catch {
        throw UserAPIError.userNotFetched(email: email, reason: String(describing: error))
      }
      try userPersistenceHandler(user)
      return (credential, user)
    }
  }

  /// `GET /users/me`: the logged-in user, as a model object, handed to `userPersistenceHandler`
  /// before it is returned (the seed's `me(userPersistenceHandler:handler:)`).
  public func me(userPersistenceHandler: (MappedObject) throws -> Void = { _ in }) throws
    -> MappedObject
  {
    guard try accountUserProvider.credential() != nil else { throw UserAPIError.notLoggedIn }
    let user: MappedObject
    do {
      user = try userServiceClient.performRequest(method: .get, path: "/users/me")
    } catch let error as OAuth2Error {
      throw UserAPIError.authorization(error)
    } catch let error as NetworkError {
      throw UserAPIError.network(error)
    }
    try userPersistenceHandler(user)
    return user
  }
}
