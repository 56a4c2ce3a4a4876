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
