import Foundation
import Testing

@Suite("networking through the binary", .serialized)
struct NetworkEndToEndTests {
  @Test("net fault, fault clear and timeout answer --json with fields; their sentences stay")
  func faultFields() throws {
    let result = try Binary.run([
      "--no-rc", "--db", ":memory:", "-c", "output json", "-c",
      "net fault GET /products/42 --status 503 --times 2", "-c",
      "net fault GET /products/43 --drop",
      "-c", "net fault clear /products/42", "-c", "net fault clear", "-c", "net timeout 2s",
      "-c", "output table", "-c", "net fault GET /x --status 500", "-c", "net fault clear",
      "-c", "net timeout",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stdout == """
        {}
        {"method":"GET","path":"/products/42","fault":"status 503","times":2,"after":0}
        {"method":"GET","path":"/products/43","fault":"drop the connection","times":1,"after":0}
        {"removed":[{"method":"GET","path":"/products/42"}],"count":1}
        {"removed":[{"method":"GET","path":"/products/43"}],"count":1}
        {"timeout_seconds":2}
        fault added: GET /x → status 500, for the next request
        removed 1 fault
        requests time out after 2s

        """)
  }

  /// GETs `url` with Python's urllib, as curl would, and returns the body as text.
  ///
  /// Another program on purpose: the server must answer any HTTP client, not only archsh's.
  private func fetch(_ url: URL) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "python3", "-c",
      "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())",
      url.absoluteString,
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let body = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    return String(decoding: body, as: UTF8.self)
  }

  @Test("net get talks to the embedded API over real HTTP; net log lists the request")
  func embedded() throws {
    let result = try Binary.run(["--db", ":memory:", "-c", "net get /products/4", "-c", "net log"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("status:       200\n"))
    #expect(result.stdout.contains("code:         OK\n"))
    #expect(result.stdout.contains(#""name":"iPhone 14""#))
    #expect(result.stdout.contains("GET     http://127.0.0.1:"))
  }

  @Test("errors: an API error status, and a refused connection with --api")
  func errors() throws {
    let missing = try Binary.run(["--db", ":memory:", "-c", "net get /products/999"])
    #expect(missing.status == 1)
    #expect(missing.stderr == "-c:1:9: error: HTTP 404 ResourceNotFound: no product with id 999\n")
    let refused = try Binary.run([
      "--api", "http://127.0.0.1:9", "-c", "net api; net get /products/1",
    ])
    #expect(refused.status == 1)
    #expect(
      refused.stdout == "url:    http://127.0.0.1:9\nserver: external (--api or ARCHSH_API)\n")
    #expect(
      refused.stderr
        == "-c:1:18: error: connection refused: nothing listens at http://127.0.0.1:9/products/1\n")
  }

  @Test("archsh serve prints its URL and answers curl-like requests until it is stopped")
  func serve() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Binary.path)
    process.arguments = [
      "serve", "--port", "0", "--catalog-size", "30", "--user", "grace@example.com:cobol",
    ]
    process.environment = Binary.environment(home: try Binary.makeTemporaryDirectory())
    let output = Pipe()
    process.standardOutput = output
    // The server must not hold the test runner's own standard error open if the test fails.
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer {
      // SIGKILL: a child of the test runner may inherit a signal mask that blocks SIGTERM.
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    var text = ""
    let deadline = Date().addingTimeInterval(20)
    while !text.contains("\n"), Date() < deadline {
      text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
    }
    #expect(text.hasPrefix("serving the demo API at http://127.0.0.1:"))
    let url = try #require(
      text.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init))
    let body = try fetch(try #require(URL(string: url + "/products?limit=1&offset=29")))
    #expect(body.hasPrefix(#"{"code":"OK","data":[{"type":"product","id":30,"#))
    #expect(body.hasSuffix(#""info":{"offset":29,"count":1,"total":30}}"#))
    // An added account logs in with the documented client, and its token opens /users/me.
    let login = Process()
    login.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    login.arguments = [
      "python3", "-c",
      """
      import json, sys, urllib.parse, urllib.request
      form = urllib.parse.urlencode({"grant_type": "password", "username": "grace@example.com",
          "password": "cobol", "client_id": "archsh", "client_secret": "archsh-demo-secret"})
      grant = json.load(urllib.request.urlopen(sys.argv[1] + "/oauth/token", form.encode(), timeout=10))
      me = urllib.request.Request(sys.argv[1] + "/users/me",
          headers={"Authorization": "Bearer " + grant["access_token"]})
      user = json.load(urllib.request.urlopen(me, timeout=10))
      sys.stdout.write(grant["code"] + " " + user["data"]["email"])
      """,
      url,
    ]
    let loginOutput = Pipe()
    login.standardOutput = loginOutput
    try login.run()
    let loggedIn = loginOutput.fileHandleForReading.readDataToEndOfFile()
    login.waitUntilExit()
    #expect(String(decoding: loggedIn, as: UTF8.self) == "OK grace@example.com")
  }
}
