import DemoAPI
import Foundation
import TestSupport
import Testing

@testable import Domain

/// A factory pointed at a demo API of the test's own, logged in as the demo account.
struct LoggedIn: @unchecked Sendable {
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

struct FactoryBox: @unchecked Sendable {
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
    let server = session.server
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
        // The second goes once the server has the first: it took the delay (a fault used
        // once leaves the list). An event, not a duration.
        while number == 0, !server.faults.active.isEmpty { Thread.sleep(forTimeInterval: 0.005) }
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
