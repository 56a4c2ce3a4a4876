import Foundation

/// Why a request for the logged-in user failed.
public enum UserAPIError: Error, Equatable, CustomStringConvertible, SubjectError {
  /// Nobody is logged in, so there is no bearer token to send.
  case notLoggedIn
  /// The request failed, or the API refused it.
  case network(NetworkError)
  /// The request answered 401 and the refresh that should have fixed it failed.
  case authorization(OAuth2Error)

  /// The input the error concerns.
  public var subject: ErrorSubject? { nil }

  /// A one-line description.
  public var description: String {
    switch self {
    case .notLoggedIn: return "nobody is logged in, so there is no bearer token to send"
    case .network(let error): return error.description
    case .authorization(let error): return error.description
    }
  }
}

/// The user routes, after BDModules' `UserAPI`: `me()` asks for the logged-in user through
/// OAuth2Authorization, which refreshes an expired token and replays the request.
public final class UserAPI {
  private let sessionManager: APISessionManager
  private let authorization: OAuth2Authorization
  private let accountUserProvider: AccountUserProvider
  private let tracer: Tracer
  private let isCancelled: @Sendable () -> Bool

  /// Creates the API over a session manager, the authorization and the account provider.
  public init(
    sessionManager: APISessionManager, authorization: OAuth2Authorization,
    accountUserProvider: AccountUserProvider, tracer: Tracer,
    isCancelled: @escaping @Sendable () -> Bool = { false }
  ) {
    self.sessionManager = sessionManager
    self.authorization = authorization
    self.accountUserProvider = accountUserProvider
    self.tracer = tracer
    self.isCancelled = isCancelled
  }

  /// `GET /users/me`: the response body, the convention's envelope with the user in `data`.
  public func me() throws -> Data {
    guard try accountUserProvider.credential() != nil else { throw UserAPIError.notLoggedIn }
    let sessionManager = self.sessionManager
    let outcome = tracer.withSpan("UserAPI", "me") { _ in
      authorization.performAndWait("GET /users/me", isCancelled: isCancelled) {
        header, span, handler in
        try sessionManager.performRequest(
          method: .get, path: "/users/me",
          headers: header.map { [("Authorization", $0)] } ?? [], parentSpan: span,
          handler: handler)
      }
    }
    switch outcome {
    case .failure(let error): throw UserAPIError.authorization(error)
    case .success(let response):
      switch response.result {
      case .success(let data): return data
      case .failure(let error): throw UserAPIError.network(error)
      }
    }
  }
}
