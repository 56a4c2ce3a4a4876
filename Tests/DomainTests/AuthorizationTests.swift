import DemoAPI
import Foundation
import Testing

@testable import Domain

/// A factory pointed at a demo API of the test's own, logged in as the demo account.
private struct LoggedIn: @unchecked Sendable {
  let server: DemoAPI
  let factory: ApplicationFactory
  let credential: OAuth2Credential

  static func start() async throws -> LoggedIn {
    let server = try await TestServer.start(catalogSize: 5)
    let factory = ApplicationFactory(
      configuration: ApplicationConfiguration(apiURL: server.baseURL.absoluteString))
    let box = FactoryBox(factory)
    let credential = try await offPool {
      let api = box.factory.api
      let credential = try api.oAuth2SessionManager().tokenGrant(
        username: Accounts.demoEmail, password: Accounts.demoPassword
      ).get()
      try api.accountUserProvider.logIn(email: Accounts.demoEmail)
      return credential
    }
    return LoggedIn(server: server, factory: factory, credential: credential)
  }

  /// Fires `count` authenticated GETs at once and waits for every outcome.
  func burst(_ count: Int, path: String = "/users/me") async throws -> [Outcome] {
    let authorization = try factory.api.oAuth2Authorization
    let manager = try factory.api.apiSessionManager()
    let collector = Collector()
    await offPool {
      let group = DispatchGroup()
      for number in 0..<count {
        group.enter()
        authorization.perform(
          "GET \(path)", observer: { collector.observe(number, $0) },
          makeTask: OAuth2Authorization.request(manager, method: .get, path: path),
          completion: { outcome in
            collector.finish(number, outcome)
            group.leave()
          })
      }
      group.wait()
    }
    return collector.outcomes(count)
  }
}

/// One request's events and outcome.
struct Outcome {
  var events: [AuthorizationEvent] = []
  var result: OAuth2Authorization.Outcome?
  var status: Int? {
    if case .success(let response)? = result { return response.statusCode }
    return nil
  }
}

private final class Collector: @unchecked Sendable {
  private let lock = NSLock()
  private var byNumber: [Int: Outcome] = [:]
  func observe(_ number: Int, _ event: AuthorizationEvent) {
    lock.withLock { byNumber[number, default: Outcome()].events.append(event) }
  }
  func finish(_ number: Int, _ result: OAuth2Authorization.Outcome) {
    lock.withLock { byNumber[number, default: Outcome()].result = result }
  }
  func outcomes(_ count: Int) -> [Outcome] {
    lock.withLock { (0..<count).map { byNumber[$0] ?? Outcome() } }
  }
}

private struct FactoryBox: @unchecked Sendable {
  let factory: ApplicationFactory
  init(_ factory: ApplicationFactory) { self.factory = factory }
}

@Suite("OAuth2Authorization over real HTTP", .serialized)
struct OAuth2AuthorizationTests {
  @Test("50 concurrent requests after expiry: 50 × 401, exactly 1 refresh, 50 replays, 50 × 200")
  func oneRefresh() async throws {
    let session = try await LoggedIn.start()
    defer { session.server.stop() }
    #expect(session.server.accounts.expireAccessTokens() == 1)
    // The first 50 answers wait 300 ms on the server, so that all 50 requests leave with the
    // expired token before any 401 (and so the refresh) comes back, even on a busy machine.
    session.server.faults.add(
      Fault(method: "GET", path: "/users/me", kind: .delayOnly, delay: 0.3, times: 50))

    let outcomes = try await session.burst(50)

    #expect(outcomes.map(\.status) == Array(repeating: 200, count: 50))
    #expect(try session.factory.api.oAuth2Authorization.refreshCount == 1)
    #expect(session.server.accounts.refreshGrantCount == 1)
    for outcome in outcomes {
      #expect(outcome.events.first == .sent(replay: false))
      #expect(outcome.events.contains(.answered(status: 401, replay: false)))
      #expect(outcome.events.filter { $0 == .sent(replay: true) }.count == 1)
      #expect(outcome.events.contains(.answered(status: 200, replay: true)))
      #expect(outcome.events.last == .delivered)
    }
    #expect(outcomes.filter { $0.events.contains(.refreshStarted) }.count == 1)
    // The refreshed credential is the one stored, and it differs from the login's.
    let stored = try #require(try session.factory.api.accountUserProvider.credential())
    #expect(stored != session.credential)
  }

  @Test("a replayed request that answers 401 again reaches its caller; there is no second refresh")
  func secondUnauthorized() async throws {
    let session = try await LoggedIn.start()
    defer { session.server.stop() }
    session.server.faults.add(
      Fault(method: "GET", path: "/users/me", kind: .status(401, body: nil), times: 2))

    let outcomes = try await session.burst(1)

    #expect(outcomes.first?.status == 401)
    #expect(
      outcomes.first?.events == [
        .sent(replay: false), .answered(status: 401, replay: false), .queued, .refreshStarted,
        .refreshFinished(succeeded: true), .sent(replay: true),
        .answered(status: 401, replay: true), .delivered,
      ])
    #expect(session.server.accounts.refreshGrantCount == 1)
  }

  @Test("a failed refresh fails all 50 callers with its error and keeps the credential")
  func failedRefresh() async throws {
    let session = try await LoggedIn.start()
    defer { session.server.stop() }
    session.server.accounts.expireAccessTokens()
    // The refresh fails after a second, so that every 401 is queued behind it.
    session.server.faults.add(
      Fault(method: "POST", path: "/oauth/token", kind: .status(500, body: nil), delay: 1))

    let outcomes = try await session.burst(50)

    let expected = OAuth2Error.refused(
      status: 500, code: "InternalError", message: "injected fault: HTTP 500 for /oauth/token",
      username: nil)
    for outcome in outcomes {
      guard case .failure(let error)? = outcome.result else {
        Issue.record("expected the refresh's error, got \(String(describing: outcome.result))")
        continue
      }
      #expect(error == expected)
    }
    #expect(try session.factory.api.oAuth2Authorization.refreshCount == 1)
    #expect(try session.factory.api.accountUserProvider.credential() == session.credential)
    // With the fault gone, the kept refresh token still works.
    let later = try await session.burst(3)
    #expect(later.map(\.status) == [200, 200, 200])
  }

  @Test("a 401 for a token a finished refresh replaced is replayed at once, without a refresh")
  func tokenChangedInFlight() async throws {
    let session = try await LoggedIn.start()
    defer { session.server.stop() }
    session.server.accounts.expireAccessTokens()
    // The first request to arrive waits 2 s on the server, then answers 401; the second answers
    // 401 at once, so its refresh ends while the first is still in flight. The wait is long
    // because the whole suite shares two cores: with 400 ms, the refresh sometimes ended after
    // the first 401 had come back, which then queued behind it.
    session.server.faults.add(
      Fault(method: "GET", path: "/users/me", kind: .delayOnly, delay: 2))
    let authorization = try session.factory.api.oAuth2Authorization
    let manager = try session.factory.api.apiSessionManager()
    let collector = Collector()
    await offPool {
      let group = DispatchGroup()
      for number in 0..<2 {
        group.enter()
        authorization.perform(
          "GET /users/me", observer: { collector.observe(number, $0) },
          makeTask: OAuth2Authorization.request(manager, method: .get, path: "/users/me"),
          completion: { outcome in
            collector.finish(number, outcome)
            group.leave()
          })
        if number == 0 { Thread.sleep(forTimeInterval: 0.1) }
      }
      group.wait()
    }
    let outcomes = collector.outcomes(2)
    #expect(outcomes.map(\.status) == [200, 200])
    #expect(outcomes[0].events.contains(.tokenChangedInFlight))
    #expect(!outcomes[0].events.contains(.queued))
    #expect(outcomes[1].events.contains(.refreshStarted))
    #expect(session.server.accounts.refreshGrantCount == 1)
  }

  @Test("logged out, a request goes as it is and its 401 reaches the caller")
  func loggedOut() async throws {
    let session = try await LoggedIn.start()
    defer { session.server.stop() }
    try session.factory.api.accountUserProvider.logOut()
    let outcomes = try await session.burst(1)
    #expect(outcomes.first?.status == 401)
    #expect(
      outcomes.first?.events == [
        .sent(replay: false), .answered(status: 401, replay: false), .delivered,
      ])
    #expect(session.server.accounts.refreshGrantCount == 0)
  }
}

@Suite("APISessionManager over real HTTP", .serialized)
struct APISessionManagerTests {
  private func echo(_ response: APIResponse?) throws -> [String: Any] {
    let data = try #require(response?.data)
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    return try #require(object["data"] as? [String: Any])
  }

  @Test("a task is created suspended and sends nothing until it is resumed")
  func suspended() async throws {
    let session = try await LoggedIn.start()
    defer { session.server.stop() }
    let manager = try session.factory.api.apiSessionManager()
    let task = try manager.performRequest(method: .get, path: "/echo")
    #expect(task.state == .suspended)
    try await Task.sleep(nanoseconds: 100_000_000)
    #expect(task.response == nil)
    let response = await offPool { task.wait() }
    #expect(task.state == .completed)
    #expect(response?.statusCode == 200)
  }

  @Test("parameters go in the query for GET, HEAD and DELETE, and in a JSON body otherwise")
  func parameters() async throws {
    let session = try await LoggedIn.start()
    defer { session.server.stop() }
    let manager = try session.factory.api.apiSessionManager()
    let parameters = [(key: "q", value: "swift & more"), (key: "page", value: "2")]
    for method in APISessionManager.Method.allCases where method != .head {
      let task = try manager.performRequest(method: method, path: "/echo", parameters: parameters)
      let echoed = try echo(await offPool { task.wait() })
      #expect(echoed["method"] as? String == method.rawValue)
      let query = echoed["query"] as? [String: String] ?? [:]
      let body = echoed["parameters"] as? [String: String] ?? [:]
      let expected = ["q": "swift & more", "page": "2"]
      if method.sendsParametersInQuery {
        #expect(query == expected && body.isEmpty, "\(method)")
      } else {
        #expect(body == expected && query.isEmpty, "\(method)")
        let headers = echoed["headers"] as? [String: String] ?? [:]
        #expect(headers["content-type"] == "application/json")
      }
    }
    let head = try manager.performRequest(method: .head, path: "/echo", parameters: parameters)
    let answered = await offPool { head.wait() }
    #expect(answered?.statusCode == 200 && answered?.data.isEmpty == true)
    #expect(throws: APISessionError.filesNeedBody(method: "GET")) {
      try manager.performRequest(
        method: .get, path: "/echo",
        files: [FilePart(data: Data([1]), name: "f", fileName: "f.bin", mimeType: "x/y")])
    }
  }

  @Test("multipart parts arrive as sent: parameters as text parts, then each file")
  func multipart() async throws {
    let session = try await LoggedIn.start()
    defer { session.server.stop() }
    let manager = try session.factory.api.apiSessionManager()
    let png = Data((0..<2048).map { UInt8($0 % 251) })
    let files = [
      FilePart(data: png, name: "image", fileName: "image.png", mimeType: "image/png"),
      FilePart(data: Data("notes".utf8), name: "notes", fileName: "a.txt", mimeType: "text/plain"),
    ]
    let task = try manager.performRequest(
      method: .post, path: "/echo", parameters: [(key: "caption", value: "a cat")], files: files)
    let echoed = try echo(await offPool { task.wait() })
    let parts = try #require(echoed["parts"] as? [[String: Any]])
    #expect(parts.map { $0["name"] as? String } == ["caption", "image", "notes"])
    #expect(parts.map { $0["filename"] as? String } == [nil, "image.png", "a.txt"])
    #expect(parts.map { $0["content_type"] as? String } == [nil, "image/png", "text/plain"])
    #expect(parts.map { $0["bytes"] as? Int } == [5, 2048, 5])
  }

  @Test("a redirect's Location swaps dynamicBaseURL for the session manager and the factory")
  func redirect() async throws {
    let session = try await LoggedIn.start()
    defer { session.server.stop() }
    let api = session.factory.api
    let manager = try api.apiSessionManager()
    session.server.faults.add(Fault(method: "GET", path: "/echo", kind: .redirect("/v2")))
    let task = try manager.performRequest(method: .get, path: "/echo", parameters: [("a", "1")])
    let response = await offPool { task.wait() }
    let base = try #require(URL(string: session.server.baseURL.absoluteString + "/v2"))
    #expect(response?.redirectedBaseURL == base)
    #expect(try echo(response)["path"] as? String == "/v2/echo")
    #expect(try echo(response)["query"] as? [String: String] == ["a": "1"])
    #expect(manager.dynamicBaseURL == base)
    #expect(api.dynamicBaseURL == base)
    // A session manager built now starts from the swapped base, which keeps working.
    let next = try api.apiSessionManager()
    #expect(next.dynamicBaseURL == base)
    let again = try next.performRequest(method: .get, path: "/products/1")
    #expect(await offPool { again.wait() }?.statusCode == 200)
  }

  @Test("a server that does not answer is a timeout, and a closed port is refused")
  func unanswered() async throws {
    let session = try await LoggedIn.start()
    let base = session.server.baseURL
    session.server.faults.add(Fault(method: "GET", path: "/echo", kind: .delayOnly, delay: 2))
    let slow = APISessionManager(dynamicBaseURL: base, timeout: 0.3, logger: nil, tracer: Tracer())
    let task = try slow.performRequest(method: .get, path: "/echo")
    let response = await offPool { task.wait() }
    #expect(response?.error == .timeout(url: base.absoluteString + "/echo", seconds: 0.3))
    session.server.stop()
    try await Task.sleep(nanoseconds: 200_000_000)
    let gone = try slow.performRequest(method: .get, path: "/echo")
    let refused = await offPool { gone.wait() }
    #expect(refused?.error == .refused(url: base.absoluteString + "/echo"))
  }
}

@Suite("the BDModules Logger")
struct LoggerTests {
  @Test("each tag's switch and threshold decide which lines are kept; settings persist")
  func thresholds() throws {
    let path = NSTemporaryDirectory() + "archsh-log-\(UUID().uuidString).db"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let book = try LogBook(workspace: try Workspace(path: path))
    let api = Logger(tag: "API", book: book)
    let oauth = Logger(tag: "OAuth2", book: book)
    let model = Logger(tag: "Model", book: book)
    api.thresholdLevel = .warning
    oauth.enabled = false
    for logger in [api, oauth, model] {
      logger.logVerbose("\(logger.tag) verbose")
      logger.logInfo("\(logger.tag) info")
      logger.logWarning("\(logger.tag) warning")
      logger.logError("\(logger.tag) error")
    }
    let lines = try book.lines()
    #expect(
      lines.map { "\($0.tag) \($0.level) \($0.message)" } == [
        "API Warning API warning", "API Error API error", "Model Info Model info",
        "Model Warning Model warning", "Model Error Model error",
      ])
    #expect(lines.map(\.number) == [1, 2, 3, 4, 5])
    #expect(try book.lines(tag: "Model", afterNumber: 3).map(\.number) == [4, 5])

    // A later session reads the same settings and lines.
    let reopened = try LogBook(workspace: try Workspace(path: path))
    #expect(Logger(tag: "API", book: reopened).thresholdLevel == .warning)
    #expect(Logger(tag: "OAuth2", book: reopened).enabled == false)
    #expect(try reopened.lines().count == 5)
  }

  @Test("tokens, passwords and Authorization values are redacted before a line is kept")
  func redaction() {
    let token = String(repeating: "ab12", count: 16)
    let scrubbed = Redaction.scrub(
      "Authorization: Bearer \(token); body {\"access_token\":\"\(token)\",\"password\":\"lovelace\"}"
        + " form refresh_token=\(token)&password=lovelace&client_secret=archsh-demo-secret")
    #expect(!scrubbed.contains(token))
    #expect(!scrubbed.contains("lovelace"))
    #expect(!scrubbed.contains("archsh-demo-secret"))
    #expect(
      scrubbed
        == "Authorization: Bearer …ab12; body {\"access_token\":\"…ab12\",\"password\":\"…\"}"
        + " form refresh_token=…ab12&password=…&client_secret=…")
    #expect(Redaction.scrub("nothing secret here") == "nothing secret here")
  }

  @Test("the byte search finds a marker at either end, after a near miss, and not past the text")
  func markerSearch() {
    #expect(Redaction.holdsAny(["oken"], in: "oken"))
    #expect(Redaction.holdsAny(["oken"], in: "a token"))
    #expect(Redaction.holdsAny(["oken"], in: "oke okeoken x"))
    #expect(!Redaction.holdsAny(["oken"], in: "a toke"))
    #expect(!Redaction.holdsAny(["oken"], in: "oke"))
    #expect(!Redaction.holdsAny(["oken"], in: ""))
    #expect(Redaction.holdsAny(["assword"], in: "ünïcödé password"))
    // The markers of a secret, looked for in one pass: any one of them is enough.
    #expect(Redaction.holdsAny(Redaction.secretMarkers, in: "grant_type=x&client_secret=y"))
    #expect(Redaction.holdsAny(Redaction.secretMarkers, in: "Authorization: Bearer abcd"))
    #expect(!Redaction.holdsAny(Redaction.secretMarkers, in: "a plain value, Bear, toke, pass"))
    #expect(!Redaction.holdsAny([], in: "token"))
  }
}
