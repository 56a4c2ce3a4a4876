import DemoAPI
import Foundation
import Plumbing
import TestSupport
import Testing

@testable import Domain
@testable import Runtime

struct Carried<T>: @unchecked Sendable {
  let value: T
  init(_ value: T) { self.value = value }
}

/// A factory pointed at a demo API of the test's own.
private struct Workspace: @unchecked Sendable {
  let server: DemoAPI
  let factory: ApplicationFactory

  static func start() async throws -> Workspace {
    let server = try await TestServer.start(catalogSize: 5)
    return Workspace(
      server: server,
      factory: ApplicationFactory(
        configuration: ApplicationConfiguration(apiURL: server.baseURL.absoluteString)))
  }

  /// `UserAPI.login` as `auth login` runs it, off the pool.
  func login(
    _ email: String = Accounts.demoEmail, _ password: String = Accounts.demoPassword
  ) async throws -> (credential: OAuth2Credential, user: MappedObject) {
    let api = Carried(factory.api)
    return try await offPool {
      let provider = try api.value.accountUserProvider
      return try api.value.userAPI().login(
        email: email, password: password,
        userPersistenceHandler: provider.userPersistenceHandler())
    }
  }
}

@Suite(
  "UserAPI.login over real HTTP: a token grant, then me(); the provider keeps both", .serialized)
struct LoginTests {
  @Test("login keeps the credential and the User the API sent; the provider maps it again")
  func loginKeepsUser() async throws {
    // Given the demo API
    let workspace = try await Workspace.start()
    defer { workspace.server.stop() }

    // When logging in
    let login = try await workspace.login()

    // Then the grant's credential and me()'s user are stored, the user as the JSON the API sent
    let provider = try workspace.factory.api.accountUserProvider
    #expect(try provider.credential() == login.credential)
    #expect(try provider.email() == Accounts.demoEmail)
    let user = try #require(login.user.object as? ModelObject)
    #expect(user.type == "User")
    guard case .object(let members) = login.user.json else {
      Issue.record("the user's JSON is not an object: \(login.user.json)")
      return
    }
    #expect(members.contains(JSONMember(key: "email", value: .string(Accounts.demoEmail))))
    #expect(members.contains(JSONMember(key: "first_name", value: .string("Ada"))))
    let stored = try #require(try provider.user())
    #expect((stored.object as? ModelObject)?.uuid == user.uuid)
    #expect(stored.object.dictionaryEquals(login.user.object))
    #expect(stored.json == login.user.json)
    // Read without a request: a fault on /users/me is still waiting.
    workspace.server.faults.add(
      Fault(method: "GET", path: "/users/me", kind: .status(500, body: nil)))
    #expect(try provider.user() != nil)
    #expect(workspace.server.faults.active.first?.hits == 0)
  }

  @Test(
    "when me() fails after the grant, the credential is kept, no user is stored, and the error says so"
  )
  func meFailsAfterGrant() async throws {
    // Given a login that stored a user, and a server whose next /users/me fails
    let workspace = try await Workspace.start()
    defer { workspace.server.stop() }
    let first = try await workspace.login()
    workspace.server.faults.add(
      Fault(method: "GET", path: "/users/me", kind: .status(500, body: nil)))

    // When logging in again
    var caught: Error?
    do {
      _ = try await workspace.login()
    } catch {
      caught = error
    }

    // Then the error names the account and the failure; the new credential is stored, and the
    // earlier login's user is gone
    #expect(
      caught as? UserAPIError
        == .userNotFetched(
          email: Accounts.demoEmail,
          reason: "HTTP 500 InternalError: injected fault: HTTP 500 for /users/me"))
    #expect(
      (caught as? UserAPIError)?.description
        == "logged in as 'ada@example.com' and the credential is kept, but the user could not be fetched: HTTP 500 InternalError: injected fault: HTTP 500 for /users/me"
    )
    let provider = try workspace.factory.api.accountUserProvider
    let credential = try #require(try provider.credential())
    #expect(credential != first.credential)
    #expect(try provider.user() == nil)

    // And me() fetches the user and stores it through the handler
    let api = Carried(workspace.factory.api)
    let handler = Carried(provider.userPersistenceHandler())
    _ = try await offPool { try api.value.userAPI().me(userPersistenceHandler: handler.value) }
    #expect(
      (try provider.user()?.object as? ModelObject)?.uuid
        == (first.user.object as? ModelObject)?.uuid)
  }

  @Test("a refused grant throws its OAuth2Error and stores nothing")
  func refusedGrant() async throws {
    let workspace = try await Workspace.start()
    defer { workspace.server.stop() }
    await #expect(
      throws: OAuth2Error.refused(
        status: 400, code: "InvalidCredentials", message: "wrong email or password",
        username: Accounts.demoEmail)
    ) { _ = try await workspace.login(Accounts.demoEmail, "wrong") }
    let provider = try workspace.factory.api.accountUserProvider
    #expect(try provider.credential() == nil)
    #expect(try provider.user() == nil)
  }

  @Test(
    "logout forgets the credential, the email and the user; a user without a credential is forgotten"
  )
  func logout() async throws {
    let workspace = try await Workspace.start()
    defer { workspace.server.stop() }
    _ = try await workspace.login()
    let provider = try workspace.factory.api.accountUserProvider
    let store = try workspace.factory.persistenceController(.user)

    try provider.logOut()

    #expect(try provider.credential() == nil && provider.email() == nil && provider.user() == nil)
    for key in ["oauth2Credential", "oauth2Email", "accountUser"] {
      #expect((try? await store.retrieve(forKey: key)) == nil, "\(key)")
    }

    // As in the seed, a stored user whose credential is gone is not a login: reading removes it.
    _ = try await workspace.login()
    #expect((try? await store.retrieve(forKey: "accountUser")) != nil)
    try await store.remove(forKeys: ["oauth2Credential"])
    #expect(try provider.user() == nil)
    #expect((try? await store.retrieve(forKey: "accountUser")) == nil)
    #expect((try? await store.retrieve(forKey: "oauth2Email")) != nil)
  }
}
