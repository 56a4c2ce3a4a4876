import Foundation
import Testing

@testable import Domain

/// APISessionManager's redirect rules, hop by hop: what the next request is, and what is refused.
@Suite("redirects by the rules of curl and requests")
struct RedirectTests {
  let manager = APISessionManager(
    dynamicBaseURL: URL(fileURLWithPath: "/"), timeout: 1, logger: nil, tracer: Tracer())

  private func hop(_ method: String, _ url: String, body: String? = nil) throws
    -> APISessionManager.Hop
  {
    APISessionManager.Hop(
      method: method, url: try #require(URL(string: url)),
      headers: [
        (name: "Authorization", value: "Bearer secret-token"), (name: "Cookie", value: "s=1"),
        (name: "X-API-Key", value: "k"), (name: "Content-Type", value: "application/json"),
        (name: "X-Trace", value: "on"),
      ], body: body.map { Data($0.utf8) })
  }

  @Test("303, and 301 or 302 after a POST, become a GET without a body; 307 and 308 keep it")
  func methods() throws {
    for (status, method, expected, keepsBody) in [
      (303, "POST", "GET", false), (302, "POST", "GET", false), (301, "POST", "GET", false),
      (307, "POST", "POST", true), (308, "POST", "POST", true), (302, "PUT", "PUT", true),
      (303, "PUT", "GET", false),
    ] {
      let from = try hop(method, "https://api.example.com/a", body: "{}")
      let (next, same) = try manager.redirect(
        from: from, status: status, location: "/b", follows: true, left: 10
      ).get()
      #expect(next.method == expected, "\(status) after \(method)")
      #expect((next.body != nil) == keepsBody, "\(status) after \(method)")
      #expect(
        next.headers.contains { $0.name == "Content-Type" } == keepsBody, "\(status) \(method)")
      #expect(same)
      #expect(next.url.absoluteString == "https://api.example.com/b")
      // Credentials stay on the same origin.
      #expect(next.headers.contains { $0.name == "Authorization" })
    }
  }

  @Test("another origin (scheme, host or port) drops every credential header, and nothing else")
  func otherOrigin() throws {
    for location in [
      "https://other.example.com/b", "https://api.example.com:8443/b",
      "HTTPS://API.example.com:443/b",
    ] {
      let (next, same) = try manager.redirect(
        from: try hop("GET", "https://api.example.com/a"), status: 302, location: location,
        follows: true, left: 10
      ).get()
      let names = next.headers.map(\.name)
      if location.hasPrefix("HTTPS://API") {
        // The same origin, written otherwise: the default port, the host's case.
        #expect(same && names.contains("Authorization"))
      } else {
        #expect(!same)
        #expect(names == ["Content-Type", "X-Trace"], "\(location)")
      }
    }
  }

  @Test(
    "https to http, a redirect from the token endpoint, the eleventh, and a non-URL are refused")
  func refusals() throws {
    let from = try hop("GET", "https://api.example.com/a")
    func reason(_ location: String, follows: Bool = true, left: Int = 10) -> String? {
      guard
        case .failure(.redirectRefused(_, _, let reason)) = manager.redirect(
          from: from, status: 302, location: location, follows: follows, left: left)
      else { return nil }
      return reason
    }
    #expect(
      reason("http://api.example.com/a")
        == "it leaves https for plain http, where anyone can read it")
    #expect(
      reason("/b", follows: false)?.hasPrefix("the token endpoint never follows a redirect") == true
    )
    #expect(reason("/b", left: 0) == "that would be more than 10 redirects")
    #expect(reason("ftp://api.example.com/b") == "it is not an http or https URL")
    #expect(reason("/b") == nil)
  }

  @Test("a credential over plain http to another machine warns once; loopback never")
  func cleartextWarning() throws {
    let said = LockedBox<[String]>([])
    CleartextWarning.handler = { message in said.value.append(message) }
    defer { CleartextWarning.handler = nil }
    CleartextWarning.check(try #require(URL(string: "http://127.0.0.1:8080/users/me")))
    CleartextWarning.check(try #require(URL(string: "http://localhost/users/me")))
    CleartextWarning.check(try #require(URL(string: "https://api.example.com/users/me")))
    #expect(said.value.isEmpty)
    CleartextWarning.check(try #require(URL(string: "http://api.example.com/users/me")))
    CleartextWarning.check(try #require(URL(string: "http://api.example.com/users/me")))
    #expect(
      said.value == [
        "a credential is being sent over plain http:// to api.example.com, where anyone on the network can read it (use https://)"
      ])
  }

  @Test("a password in a URL and token-like query values are shown as ***")
  func redactedURLs() {
    #expect(
      Redaction.url("http://ada:s3cr3t@127.0.0.1:8080/a?api_key=k1&page=2&access_token=t")
        == "http://ada:***@127.0.0.1:8080/a?api_key=***&page=2&access_token=***")
    #expect(Redaction.url("http://127.0.0.1/a?page=2") == "http://127.0.0.1/a?page=2")
  }
}
