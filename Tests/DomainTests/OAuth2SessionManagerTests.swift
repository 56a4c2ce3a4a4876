import DemoAPI
import Foundation
import TestSupport
import Testing

@testable import Domain

/// Records the credentials a session manager reports.
private final class CredentialRecorder: OAuth2SessionManagerDelegate, @unchecked Sendable {
  var credentials: [OAuth2Credential] = []
  func didUpdateCredential(_ credential: OAuth2Credential) { credentials.append(credential) }
}

/// Carries a non-Sendable value to a Dispatch thread in a test.
private struct UncheckedBox<T>: @unchecked Sendable {
  let value: T
  init(_ value: T) { self.value = value }
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
