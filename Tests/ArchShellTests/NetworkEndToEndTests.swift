import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("networking through the binary", .serialized)
struct NetworkEndToEndTests {
  /// Runs `lines` as one -c line on a workspace in memory.
  private func run(_ lines: String) throws -> Binary.Result {
    try Binary.run(["--no-rc", "--db", ":memory:", "-c", lines])
  }

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

  @Test("net fault clear PATH removes that path's faults, --method only one of them")
  func clearOneFault() throws {
    let result = try run(
      """
      net fault GET /products/1 --status 503 --times always
      net fault POST /products/1 --status 500
      net fault GET /products/2 --drop
      net fault clear /products/1 --method get
      net faults
      net fault clear /products/1
      net faults
      net get /products/1
      """)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.contains("removed 1 fault: GET /products/1"))
    #expect(lines.contains("removed 1 fault: POST /products/1"))
    // After the first clear, the POST and /products/2 remain; after the second, /products/2.
    #expect(lines.filter { $0.hasPrefix("POST    /products/1") }.count == 1)
    #expect(lines.filter { $0.hasPrefix("GET     /products/2") }.count == 2)
    #expect(lines.contains("status:       200"), "\(result.stdout)")

    let missing = try run("net fault GET /products/1 --drop; net fault clear /products/9")
    #expect(missing.status == 1)
    #expect(
      missing.stderr
        == "-c:1:51: error: no fault for '/products/9' (did you mean '/products/1'?)\n")
    let misplaced = try run("net fault GET /products/1 --drop --method GET")
    #expect(misplaced.stderr.contains("--method goes with 'net fault clear PATH'"))
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

  @Test("the embedded API keeps its address across runs, and finds what an old address stored")
  func embeddedAddressIsStable() throws {
    let home = try Binary.makeTemporaryDirectory()
    let database = home + "/work.sqlite"
    for _ in 0..<3 {
      let run = try Binary.run(
        ["--no-rc", "--db", database, "-c", "product update 2"], home: home)
      #expect(run.status == 0, "\(run.stderr)")
    }
    let keys = try Binary.run(
      ["--no-rc", "--db", database, "-c", "store keys productCache"], home: home)
    let lines = keys.stdout.split(separator: "\n").dropFirst(2)
    #expect(lines.count == 1, "\(keys.stdout)")
    let key = try #require(lines.first)
    let port = try #require(
      key.split(separator: ":").dropFirst(2).first?.split(separator: "/").first)

    // The last port is taken now: the next run listens elsewhere and moves the entry there.
    let blocker = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(blocker) }
    // The earlier runs' connections may still be in TIME_WAIT on that port.
    var reuse: Int32 = 1
    setsockopt(blocker, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port) ?? 0).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(blocker, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    #expect(bound == 0)
    listen(blocker, 1)
    let shown = try Binary.run(
      [
        "--no-rc", "--db", database, "-c", "product show 2", "-c", "product update 2", "-c",
        "store keys productCache",
      ], home: home)
    #expect(shown.status == 0, "\(shown.stderr)")
    #expect(shown.stdout.contains("cached_as: \(key)"), "\(shown.stdout)")
    let moved = shown.stdout.split(separator: "\n").filter { $0.hasPrefix("http://") }
    #expect(moved.count == 1 && moved.first != key, "\(shown.stdout)")
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
