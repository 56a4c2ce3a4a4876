import Foundation

/// Why a request for the logged-in user failed.
public enum UserAPIError: Error, Equatable, CustomStringConvertible, SubjectError {
  /// Nobody is logged in, so there is no bearer token to send.
  case notLoggedIn
  /// The request failed, or the API refused it.
  case network(NetworkError)

  /// The input the error concerns.
  public var subject: ErrorSubject? { nil }

  /// A one-line description.
  public var description: String {
    switch self {
    case .notLoggedIn: return "nobody is logged in, so there is no bearer token to send"
    case .network(let error): return error.description
    }
  }
}

/// The user routes, after BDModules' `UserAPI`: `me()` asks for the logged-in user with the
/// stored bearer token.
///
/// It sends the token as it is; refreshing it on a 401 is OAuth2Authorization's part, which
/// comes next.
public final class UserAPI {
  private let networkController: NetworkController
  private let accountUserProvider: AccountUserProvider

  /// Creates the API over the network controller and the account provider.
  public init(networkController: NetworkController, accountUserProvider: AccountUserProvider) {
    self.networkController = networkController
    self.accountUserProvider = accountUserProvider
  }

  /// `GET /users/me`: the response body, the convention's envelope with the user in `data`.
  public func me() throws -> Data {
    guard let credential = try accountUserProvider.credential() else {
      throw UserAPIError.notLoggedIn
    }
    let request = NetworkRequest(
      path: "/users/me", headers: ["Authorization": "Bearer \(credential.accessToken)"])
    switch networkController.perform(request).result {
    case .success(let data): return data
    case .failure(let error): throw UserAPIError.network(error)
    }
  }
}
