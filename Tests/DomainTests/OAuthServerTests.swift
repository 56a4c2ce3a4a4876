import DemoAPI
import Foundation
import TestSupport
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

let client = ["client_id": Accounts.clientID, "client_secret": Accounts.clientSecret]

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
