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

/// The user routes, after BDModules' `UserAPI`: `me()` asks for the logged-in user through its
/// `APIServiceClient` for `User`, and so through OAuth2Authorization, which refreshes an expired
/// token and replays the request.
public final class UserAPI {
  private let userServiceClient: APIServiceClient
  private let accountUserProvider: AccountUserProvider

  /// Creates the API over a service client for `User` and the account provider.
  public init(userServiceClient: APIServiceClient, accountUserProvider: AccountUserProvider) {
    self.userServiceClient = userServiceClient
    self.accountUserProvider = accountUserProvider
  }

  /// `GET /users/me`: the logged-in user, as a model object.
  public func me() throws -> MappedObject {
    guard try accountUserProvider.credential() != nil else { throw UserAPIError.notLoggedIn }
    do {
      return try userServiceClient.performRequest(method: .get, path: "/users/me")
    } catch let error as OAuth2Error {
      throw UserAPIError.authorization(error)
    } catch let error as NetworkError {
      throw UserAPIError.network(error)
    }
  }
}
