import Foundation
import Testing

/// A backend that is not archsh's, in the original BDModules example app's shapes: a small Python
/// server that serves fixed response files (ids that are not UUIDs, string paging ids, pages whose
/// info has no offset), reached with `--api`.
@Suite("a backend in the original's shapes, through the binary", .serialized)
struct OriginalBackendTests {
  /// The Python server, started on a free port of 127.0.0.1.
  final class Backend {
    let process = Process()
    let port: Int
    let log: String

    init() throws {
      let fixtures = Binary.root + "/Tests/ArchShellTests/Fixtures/original-backend"
      let directory = try Binary.makeTemporaryDirectory()
      log = directory + "/requests.log"
      let portFile = directory + "/port"
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      process.arguments = ["python3", fixtures + "/server.py", fixtures, log, portFile]
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      let deadline = Date().addingTimeInterval(10)
      var port: Int?
      while port == nil, Date() < deadline, process.isRunning {
        let text = (try? String(contentsOfFile: portFile, encoding: .utf8)) ?? ""
        if text.hasSuffix("\n") { port = Int(text.dropLast()) } else { usleep(20_000) }
      }
      guard let port else {
        process.terminate()
        throw PseudoTerminal.Failure.system("the Python backend did not say its port")
      }
      self.port = port
    }

    deinit {
      // SIGKILL: a child of the test runner may inherit a signal mask that blocks SIGTERM, and
      // then terminate() would leave the server running and waitUntilExit() waiting for ever.
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }

    /// What archsh sent, one JSON object a request.
    func requests() throws -> [[String: String]] {
      let text = try String(contentsOfFile: log, encoding: .utf8)
      return text.split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
      }
    }
  }

  @Test("login fetches the user; Standard pages to the end, Realtime with string paging ids")
  func originalShapes() throws {
    let backend = try Backend()
    let home = try Binary.makeTemporaryDirectory()
    let result = try Binary.run(
      [
        "--no-rc", "--db", home + "/work.sqlite", "--api", "http://127.0.0.1:\(backend.port)",
        "--echo",
      ],
      input: """
        set password hopper --secret
        auth login grace@example.com $password
        user me
        expect contains "usr-42"
        repo new std /users/me/locations --limit 3
        repo fetch std --all
        repo state std
        expect contains "at_end:          yes"
        repo new rt /users/me/locations --mode realtime --order asc --limit 2
        repo fetch rt
        repo fetch rt
        expect contains "sent limit=2&since_id=a2&order=asc: +1 new (0 duplicates)"
        repo fetch rt
        expect contains "sent limit=2&since_id=a3&order=asc: +0 new (0 duplicates)"
        repo state rt
        repo show std
        """, merge: true, home: home)
    #expect(result.status == 0, "\(result.stdout)")
    let output = result.stdout
    // The user, mapped with the original's fields, image URLs included.
    #expect(output.contains("http://backend.test/users/cover.png"), "\(output)")
    #expect(output.contains("Grace"))
    // Standard: two pages, the second without offset or count, and then at the end.
    #expect(output.contains("sent limit=3&offset=0: +3 new (0 duplicates)"), "\(output)")
    #expect(output.contains("sent limit=3&offset=3: +2 new (0 duplicates)"), "\(output)")
    #expect(output.contains("count:           5\n"), "\(output)")
    // Realtime: the cursors are the strings the backend sent.
    #expect(output.contains("first_paging_id: a1\n"), "\(output)")
    #expect(output.contains("last_paging_id:  a3\n"), "\(output)")
    #expect(output.contains("count:           3\n"), "\(output)")
    #expect(output.contains("Harvard Mark I"), "\(output)")
    #expect(!output.contains("error:"), "\(output)")
    // What archsh sent: the token request, then every GET with the bearer token.
    let requests = try backend.requests()
    let token = try #require(requests.first { $0["path"] == "/oauth/token" })
    let grant =
      (try? JSONSerialization.jsonObject(with: Data((token["body"] ?? "").utf8)))
      as? [String: String] ?? [:]
    #expect(token["content_type"]?.hasPrefix("application/json") == true, "\(token)")
    #expect(grant["grant_type"] == "password" && grant["username"] == "grace@example.com")
    #expect(grant["client_id"] != nil && grant["client_secret"] != nil)
    #expect(requests.contains { $0["path"] == "/users/me" })
    #expect(
      requests.map { $0["path"] ?? "" }.filter { $0.contains("since_id") } == [
        "/users/me/locations?limit=2&since_id=a2&order=asc",
        "/users/me/locations?limit=2&since_id=a3&order=asc",
      ])
  }

  @Test(
    "auth login against it: the grant is a JSON body as the original sends it, then me(); auth show and user me --cached read the stored user without a request"
  )
  func loginKeepsUser() throws {
    let backend = try Backend()
    let home = try Binary.makeTemporaryDirectory()
    let result = try Binary.run(
      [
        "--no-rc", "--db", home + "/work.sqlite", "--api", "http://127.0.0.1:\(backend.port)",
        "-c", "set pw hopper --secret", "-c", "auth login grace@example.com $pw", "-c",
        "auth show", "-c", "user me --cached", "-c", "auth logout", "-c", "auth show",
      ], home: home)
    #expect(result.status == 0, "\(result.stderr)")
    // The login and 'auth show' both show the user the backend sent, by its own id.
    #expect(
      result.stdout.components(separatedBy: "user:          User usr-42 (Grace Hopper)\n").count
        == 3, "\(result.stdout)")
    #expect(result.stdout.contains("uuid:      usr-42\n"), "\(result.stdout)")
    #expect(result.stdout.hasSuffix("logged out\nlogged_in: no\n"), "\(result.stdout)")
    for secret in ["hopper", "orig-access-token-0001", "orig-refresh-token-0001"] {
      #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "\(secret)")
    }
    // Two requests and no more: the grant, as the original encodes it, then me().
    let requests = try backend.requests()
    #expect(requests.map { $0["path"] ?? "" } == ["/oauth/token", "/users/me"])
    #expect(requests.first?["content_type"] == "application/json")
    #expect(
      requests.first?["body"]
        == #"{"client_id":"archsh","client_secret":"archsh-demo-secret","grant_type":"password","username":"grace@example.com","password":"hopper"}"#
    )
  }
}
