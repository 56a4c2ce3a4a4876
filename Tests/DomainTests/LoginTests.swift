import DemoAPI
import Foundation
import Plumbing
import TestSupport
import Testing

@testable import Domain

/// A server that is not archsh's: a few lines of Python answering fixed responses by method and
/// path, and writing each request it gets (content type and raw body) to a log, so that a test
/// can see the bytes archsh sent.
private final class StubServer: @unchecked Sendable {
  let process = Process()
  let baseURL: URL
  let log: String

  /// Starts the server; `responses` maps `METHOD /path` to a status and a body.
  init(_ responses: [String: (status: Int, body: String)]) throws {
    let directory = try Scratch.directory("stub")
    log = directory + "/requests.log"
    let table = Dictionary(
      uniqueKeysWithValues: responses.map { ($0.key, [$0.value.status, $0.value.body] as [Any]) })
    let script = """
      import json, sys
      from http.server import BaseHTTPRequestHandler, HTTPServer
      RESPONSES = json.loads(sys.argv[1])
      class Handler(BaseHTTPRequestHandler):
          protocol_version = "HTTP/1.1"
          def log_message(self, *args): pass
          def handle_any(self):
              body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
              with open(sys.argv[2], "a") as log:
                  log.write(json.dumps({"request": self.command + " " + self.path,
                      "content_type": self.headers.get("Content-Type", ""),
                      "body": body.decode()}) + "\\n")
              status, text = RESPONSES.get(self.command + " " + self.path, [404, '{"code":"NotFound"}'])
              data = text.encode()
              self.send_response(status)
              self.send_header("Content-Type", "application/json")
              self.send_header("Content-Length", str(len(data)))
              self.end_headers()
              self.wfile.write(data)
          do_GET = do_POST = handle_any
      server = HTTPServer(("127.0.0.1", 0), Handler)
      print(server.server_address[1], flush=True)
      server.serve_forever()
      """
    let encoded = try JSONSerialization.data(withJSONObject: table)
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, String(decoding: encoded, as: UTF8.self), log]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    var line = Data()
    while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty,
      byte != Data("\n".utf8)
    {
      line.append(byte)
    }
    guard let port = Int(String(decoding: line, as: UTF8.self)),
      let url = URL(string: "http://127.0.0.1:\(port)")
    else {
      kill(process.processIdentifier, SIGKILL)
      throw StubFailure.noPort
    }
    baseURL = url
  }

  enum StubFailure: Error { case noPort }

  /// The requests the server got, oldest first.
  func requests() -> [[String: String]] {
    let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
    }
  }

  /// Ends the server with SIGKILL: a child of the test runner may inherit a signal mask that
  /// blocks SIGTERM, and then `terminate()` would leave it running and `waitUntilExit` waiting.
  func stop() {
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }
}

/// Records the credentials a session manager reports.
private final class Credentials: OAuth2SessionManagerDelegate, @unchecked Sendable {
  var reported: [OAuth2Credential] = []
  func didUpdateCredential(_ credential: OAuth2Credential) { reported.append(credential) }
}

/// Carries a non-Sendable value to a Dispatch thread in a test.
private struct Carried<T>: @unchecked Sendable {
  let value: T
  init(_ value: T) { self.value = value }
}

/// The original's `login_stub.json`, with tokens of this test's own.
private let loginStub = """
  {"access_token":"stub-access-0001","refresh_token":"stub-refresh-0001","code":"OK"}
  """

@Suite("OAuth2SessionManager speaks as the original's: a JSON body, tokens at the top level")
struct TokenRequestTests {
  private func manager(_ server: StubServer) -> (OAuth2SessionManager, Credentials) {
    let session = APISessionManager(
      dynamicBaseURL: server.baseURL, timeout: 5, logger: nil, tracer: Tracer())
    let manager = OAuth2SessionManager(
      sessionManager: session, clientID: "client", clientSecret: "secret", tracer: Tracer())
    let credentials = Credentials()
    manager.delegate = credentials
    return (manager, credentials)
  }

  @Test(
    "a password grant and a refresh post JSON: client_id, client_secret, grant_type, then the grant's fields"
  )
  func jsonBody() async throws {
    // Given a server that answers the token path as the original's login stub
    let server = try await offPool { try StubServer(["POST /oauth/token": (200, loginStub)]) }
    defer { server.stop() }
    let (manager, credentials) = manager(server)
    let box = Carried(manager)

    // When the manager grants and refreshes
    let granted = try await offPool {
      box.value.tokenGrant(username: "grace@example.com", password: "hop\"per")
    }.get()
    let refreshed = try await offPool { box.value.refreshToken(granted.refreshToken) }.get()

    // Then each request is a JSON object of strings, in the seed's order, and the answer's
    // top-level tokens are the credential the delegate is told about
    let requests = server.requests()
    #expect(requests.map { $0["request"] } == ["POST /oauth/token", "POST /oauth/token"])
    #expect(requests.allSatisfy { $0["content_type"] == "application/json" })
    #expect(
      requests.first?["body"]
        == #"{"client_id":"client","client_secret":"secret","grant_type":"password","username":"grace@example.com","password":"hop\"per"}"#
    )
    #expect(
      requests.last?["body"]
        == #"{"client_id":"client","client_secret":"secret","grant_type":"refresh_token","refresh_token":"stub-refresh-0001"}"#
    )
    let expected = OAuth2Credential(
      accessToken: "stub-access-0001", refreshToken: "stub-refresh-0001")
    #expect(granted == expected && refreshed == expected)
    #expect(credentials.reported == [expected, expected])
  }

  @Test("a token response without top-level tokens is a decoding error that names the field")
  func responseShape() throws {
    let url = try #require(URL(string: "http://api.test/oauth/token"))
    func read(_ text: String) -> Result<OAuth2Credential, NetworkError> {
      OAuth2SessionManager.credential(from: Data(text.utf8), url: url)
    }
    // The original's shape, with or without the convention's code.
    #expect(
      try read(loginStub).get()
        == OAuth2Credential(accessToken: "stub-access-0001", refreshToken: "stub-refresh-0001"))
    #expect(
      try read(#"{"refresh_token":"r","access_token":"a"}"#).get()
        == OAuth2Credential(accessToken: "a", refreshToken: "r"))
    // Tokens under data are not where the original reads them.
    #expect(
      throws: NetworkError.decoding(path: "access_token", detail: "the field is missing")
    ) { try read(#"{"code":"OK","data":{"access_token":"a","refresh_token":"r"}}"#).get() }
    #expect(
      throws: NetworkError.decoding(path: "refresh_token", detail: "expected a string, found null")
    ) { try read(#"{"access_token":"a","refresh_token":null}"#).get() }
    #expect(throws: NetworkError.decoding(path: "access_token", detail: "expected a string")) {
      try read(#"{"access_token":12,"refresh_token":"r"}"#).get()
    }
    #expect(throws: NetworkError.decoding(path: "", detail: "the body is not valid JSON")) {
      try read("<html>").get()
    }
    #expect(throws: NetworkError.emptyResponseData(url: "http://api.test/oauth/token")) {
      try read("").get()
    }
  }

  @Test("a refusal is the API's code and message, with the username; nothing is reported")
  func refusal() async throws {
    let server = try await offPool {
      try StubServer([
        "POST /oauth/token": (400, #"{"code":"InvalidCredentials","message":"no such user"}"#)
      ])
    }
    defer { server.stop() }
    let (manager, credentials) = manager(server)
    let box = Carried(manager)
    let result = await offPool { box.value.tokenGrant(username: "x@y.z", password: "no") }
    #expect(
      throws: OAuth2Error.refused(
        status: 400, code: "InvalidCredentials", message: "no such user", username: "x@y.z")
    ) { try result.get() }
    #expect(credentials.reported.isEmpty)
  }
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
