import DemoAPI
import Foundation
import Testing

@testable import Domain

/// A request to the shared demo API, answered with its status and JSON object.
private func send(
  _ method: String, _ path: String, form: [String: String]? = nil, json: Bool = false,
  bearer: String? = nil
) async throws -> (status: Int, body: [String: Any]) {
  let server = try await TestServer.shared.get()
  let controller = NetworkController(baseURL: server.baseURL, timeout: 5, tracer: Tracer())
  var headers: [String: String] = [:]
  var body: Data?
  if let form {
    if json {
      headers["Content-Type"] = "application/json"
      body = try JSONSerialization.data(withJSONObject: form, options: [.sortedKeys])
    } else {
      headers["Content-Type"] = "application/x-www-form-urlencoded"
      let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
      body = Data(
        form.sorted { $0.key < $1.key }.map { key, value in
          let encoded = value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
          return "\(key)=\(encoded)"
        }.joined(separator: "&").utf8)
    }
  }
  if let bearer { headers["Authorization"] = "Bearer \(bearer)" }
  let request = NetworkRequest(method: method, path: path, headers: headers, body: body)
  let response = await offPool { controller.perform(request) }
  let data = response.data ?? Data()
  let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
  return (response.response?.statusCode ?? 0, object)
}

private let client = ["client_id": Accounts.clientID, "client_secret": Accounts.clientSecret]

private func passwordGrant(
  _ username: String = Accounts.demoEmail, _ password: String = Accounts.demoPassword,
  json: Bool = false
) async throws -> (status: Int, body: [String: Any]) {
  try await send(
    "POST", "/oauth/token",
    form: client.merging(
      ["grant_type": "password", "username": username, "password": password]) { $1 },
    json: json)
}

@Suite("The demo API's OAuth2 token endpoint and protected routes, over real HTTP", .serialized)
struct OAuthServerTests {
  @Test(
    "a password grant answers with two random tokens beside code OK; the access token opens /users/me"
  )
  func grantOpensMe() async throws {
    let grant = try await passwordGrant()
    #expect(grant.status == 200)
    #expect(grant.body["code"] as? String == "OK")
    #expect(grant.body["token_type"] as? String == "bearer")
    let access = try #require(grant.body["access_token"] as? String)
    let refresh = try #require(grant.body["refresh_token"] as? String)
    #expect(access.count == 64 && refresh.count == 64 && access != refresh)
    #expect(access.allSatisfy { $0.isHexDigit })
    let again = try await passwordGrant(json: true)
    #expect(again.body["access_token"] as? String != access)

    let me = try await send("GET", "/users/me", bearer: access)
    #expect(me.status == 200)
    #expect(me.body["code"] as? String == "OK")
    let user = try #require(me.body["data"] as? [String: Any])
    #expect(user["type"] as? String == "User")
    // The original example app's User: its six fields, the optional ones null when absent.
    #expect(
      Set(user.keys) == [
        "type", "id", "first_name", "last_name", "email", "phone_number", "cover_image_url",
        "profile_image_url",
      ])
    #expect(user["email"] as? String == Accounts.demoEmail)
    #expect(user["first_name"] as? String == "Ada")
    #expect(user["last_name"] as? String == "Lovelace")
    #expect(user["phone_number"] is NSNull)
    #expect((user["id"] as? String)?.count == 36)
  }

  @Test("without a valid bearer token a protected route answers 401 Unauthorized")
  func unauthorized() async throws {
    for bearer in [nil, "not-a-token"] as [String?] {
      let me = try await send("GET", "/users/me", bearer: bearer)
      #expect(me.status == 401)
      #expect(me.body["code"] as? String == "Unauthorized")
      #expect(me.body["message"] as? String == "a valid bearer token is required for /users/me")
    }
  }

  @Test(
    "wrong credentials, a wrong client, an unknown refresh token and an unknown grant each get their own code"
  )
  func refusals() async throws {
    let wrong = try await passwordGrant(Accounts.demoEmail, "nope")
    #expect(wrong.status == 400)
    #expect(wrong.body["code"] as? String == "InvalidCredentials")
    let unknown = try await passwordGrant("nobody@example.com", "x")
    #expect(unknown.body["code"] as? String == "InvalidCredentials")
    let badClient = try await send(
      "POST", "/oauth/token",
      form: [
        "grant_type": "password", "username": Accounts.demoEmail,
        "password": Accounts.demoPassword, "client_id": "archsh", "client_secret": "guess",
      ])
    #expect(badClient.status == 401)
    #expect(badClient.body["code"] as? String == "InvalidClient")
    let badRefresh = try await send(
      "POST", "/oauth/token",
      form: client.merging(["grant_type": "refresh_token", "refresh_token": "nope"]) { $1 })
    #expect(badRefresh.status == 400)
    #expect(badRefresh.body["code"] as? String == "InvalidRefreshToken")
    let badGrant = try await send(
      "POST", "/oauth/token", form: client.merging(["grant_type": "magic"]) { $1 })
    #expect(badGrant.status == 400)
    #expect(badGrant.body["code"] as? String == "UnsupportedGrantType")
    #expect(
      badGrant.body["message"] as? String
        == "grant_type must be password or refresh_token, not magic")
  }

  @Test(
    "expiring the access tokens makes /users/me answer 401 until a refresh, which uses up its token"
  )
  func expireAndRefresh() async throws {
    let server = try await TestServer.shared.get()
    let grant = try await passwordGrant()
    let access = try #require(grant.body["access_token"] as? String)
    let refresh = try #require(grant.body["refresh_token"] as? String)
    #expect(try await send("GET", "/users/me", bearer: access).status == 200)
    #expect(server.accounts.expireAccessTokens() >= 1)
    #expect(try await send("GET", "/users/me", bearer: access).status == 401)

    let refreshForm = client.merging(["grant_type": "refresh_token", "refresh_token": refresh]) {
      $1
    }
    let renewed = try await send("POST", "/oauth/token", form: refreshForm)
    #expect(renewed.status == 200)
    let newAccess = try #require(renewed.body["access_token"] as? String)
    #expect(newAccess != access)
    #expect(try await send("GET", "/users/me", bearer: newAccess).status == 200)
    let reused = try await send("POST", "/oauth/token", form: refreshForm)
    #expect(reused.body["code"] as? String == "InvalidRefreshToken")
  }
}

@Suite("Accounts")
struct AccountsTests {
  /// A clock the test moves.
  private final class Clock: @unchecked Sendable {
    var now = Date(timeIntervalSince1970: 1_800_000_000)
  }

  @Test("an access token lives for the configured lifetime; added accounts can log in")
  func lifetime() throws {
    let clock = Clock()
    let accounts = Accounts(tokenLifetime: 30, now: { clock.now })
    accounts.add(email: "grace@example.com", password: "cobol")
    let grant = try accounts.grant(
      username: "grace@example.com", password: "cobol", clientID: Accounts.clientID,
      clientSecret: Accounts.clientSecret
    ).get()
    #expect(grant.expiresIn == 30)
    clock.now += 29
    #expect(accounts.account(forAccessToken: grant.accessToken)?.email == "grace@example.com")
    clock.now += 1
    #expect(accounts.account(forAccessToken: grant.accessToken) == nil)
    accounts.tokenLifetime = 5
    let next = try accounts.refresh(
      token: grant.refreshToken, clientID: Accounts.clientID, clientSecret: Accounts.clientSecret
    ).get()
    #expect(next.expiresIn == 5)
    #expect(accounts.expireAccessTokens() == 1)
    #expect(accounts.account(forAccessToken: next.accessToken) == nil)
  }
}

@Suite("The demo API's /echo, over real HTTP", .serialized)
struct EchoTests {
  private func echo(
    _ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil
  ) async throws -> (status: Int, data: [String: Any]) {
    let server = try await TestServer.shared.get()
    let controller = NetworkController(baseURL: server.baseURL, timeout: 5, tracer: Tracer())
    let request = NetworkRequest(method: method, path: path, headers: headers, body: body)
    let response = await offPool { controller.perform(request) }
    let object =
      (try? JSONSerialization.jsonObject(with: response.data ?? Data())) as? [String: Any]
    return (response.response?.statusCode ?? 0, object?["data"] as? [String: Any] ?? [:])
  }

  @Test("it answers with the method, query, form or JSON parameters, and the token redacted")
  func fields() async throws {
    let form = try await echo(
      "POST", "/echo?page=2&order=asc",
      headers: [
        "Content-Type": "application/x-www-form-urlencoded",
        "Authorization": "Bearer 0123456789abcdef",
      ],
      body: Data("name=Ada+Lovelace&lang=en".utf8))
    #expect(form.status == 200)
    #expect(form.data["type"] as? String == "echo")
    #expect(form.data["method"] as? String == "POST")
    #expect(form.data["query"] as? [String: String] == ["page": "2", "order": "asc"])
    #expect(form.data["parameters"] as? [String: String] == ["lang": "en", "name": "Ada Lovelace"])
    let headers = try #require(form.data["headers"] as? [String: String])
    #expect(headers["authorization"] == "Bearer …cdef")
    #expect(!String(describing: form.data).contains("0123456789abcdef"))

    let json = try await echo(
      "PATCH", "/echo", headers: ["Content-Type": "application/json"],
      body: Data(#"{"title":"Tea"}"#.utf8))
    #expect(json.data["method"] as? String == "PATCH")
    #expect(json.data["parameters"] as? [String: String] == ["title": "Tea"])
    for method in ["GET", "PUT", "DELETE", "HEAD"] {
      #expect(try await echo(method, "/echo").status == 200, "\(method)")
    }
  }

  @Test("each multipart part arrives with its name, filename, type and size")
  func multipart() async throws {
    let boundary = "archsh-boundary-42"
    var body = Data()
    body.append(
      Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\n".utf8))
    body.append(Data("A cat\r\n".utf8))
    body.append(
      Data(
        "--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"cat.png\"\r\nContent-Type: image/png\r\n\r\n"
          .utf8))
    body.append(Data(repeating: 0x89, count: 1000))
    body.append(Data("\r\n--\(boundary)--\r\n".utf8))
    let result = try await echo(
      "POST", "/echo", headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"],
      body: body)
    let parts = try #require(result.data["parts"] as? [[String: Any]])
    #expect(parts.count == 2)
    #expect(parts.first?["name"] as? String == "caption")
    #expect(parts.first?["filename"] is NSNull)
    #expect(parts.first?["bytes"] as? Int == 5)
    #expect(parts.last?["name"] as? String == "photo")
    #expect(parts.last?["filename"] as? String == "cat.png")
    #expect(parts.last?["content_type"] as? String == "image/png")
    #expect(parts.last?["bytes"] as? Int == 1000)
  }
}

/// Records the credentials a session manager reports.
private final class CredentialRecorder: OAuth2SessionManagerDelegate, @unchecked Sendable {
  var credentials: [OAuth2Credential] = []
  func didUpdateCredential(_ credential: OAuth2Credential) { credentials.append(credential) }
}

@Suite("OAuth2SessionManager against the demo API", .serialized)
struct OAuth2SessionManagerTests {
  private func manager(on server: DemoAPI) -> (OAuth2SessionManager, CredentialRecorder) {
    let session = APISessionManager(
      dynamicBaseURL: server.baseURL, timeout: 5, logger: nil, tracer: Tracer())
    let manager = OAuth2SessionManager(
      sessionManager: session, clientID: APIFactory.clientID,
      clientSecret: APIFactory.clientSecret, tracer: Tracer())
    let recorder = CredentialRecorder()
    manager.delegate = recorder
    return (manager, recorder)
  }

  @Test("archsh's client is the one the demo API knows")
  func client() {
    #expect(APIFactory.clientID == Accounts.clientID)
    #expect(APIFactory.clientSecret == Accounts.clientSecret)
  }

  @Test("a grant and a refresh each tell the delegate the new credential; a refusal names the user")
  func grantRefreshRefuse() async throws {
    let (manager, recorder) = manager(on: try await TestServer.shared.get())
    let box = UncheckedBox(manager)
    let granted = try await offPool {
      box.value.tokenGrant(username: Accounts.demoEmail, password: Accounts.demoPassword)
    }.get()
    let refreshed = try await offPool { box.value.refreshToken(granted.refreshToken) }.get()
    #expect(recorder.credentials == [granted, refreshed])
    #expect(refreshed != granted)
    #expect(!granted.description.contains(granted.accessToken))
    let refused = await offPool { box.value.tokenGrant(username: "x@y.z", password: "no") }
    #expect(
      throws: OAuth2Error.refused(
        status: 400, code: "InvalidCredentials", message: "wrong email or password",
        username: "x@y.z")
    ) { try refused.get() }
    #expect(recorder.credentials.count == 2)
  }

  @Test("a malformed token response is a network error, and nothing is reported")
  func malformed() async throws {
    // A server of its own: a fault on the shared one would show in other suites' fault checks.
    let server = try await TestServer.start()
    defer { server.stop() }
    let (manager, recorder) = manager(on: server)
    server.faults.add(Fault(method: "POST", path: "/oauth/token", kind: .malformed))
    let box = UncheckedBox(manager)
    let result = await offPool {
      box.value.tokenGrant(username: Accounts.demoEmail, password: Accounts.demoPassword)
    }
    guard case .failure(.network) = result else {
      Issue.record("expected a network error, got \(result)")
      return
    }
    #expect(recorder.credentials.isEmpty)
  }
}

/// Carries a non-Sendable value to a Dispatch thread in a test.
private struct UncheckedBox<T>: @unchecked Sendable {
  let value: T
  init(_ value: T) { self.value = value }
}
