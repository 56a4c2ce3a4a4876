import Foundation
import Testing

/// The binary that ships against a hostile or broken server (`Fixtures/hostile-server.py`), one
/// path per attack: what the server received, what archsh said and how it ended, its peak
/// memory, and that the next request is answered correctly.
@Suite("a hostile server cannot hurt archsh", .serialized)
struct HostileServerTests {
  /// The fixture: a main server (plain, or TLS) and another origin, both logging what they
  /// receive.
  final class Server {
    let process = Process()
    let main: Int
    let other: Int
    let log: String
    let tls: Bool

    init(tls certificate: (cert: String, key: String)? = nil) throws {
      let directory = try Binary.makeTemporaryDirectory()
      log = directory + "/received.jsonl"
      tls = certificate != nil
      process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
      process.arguments =
        [Binary.root + "/Tests/ArchShellTests/Fixtures/hostile-server.py", log]
        + (certificate.map { ["--tls", $0.cert, $0.key] } ?? [])
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      try process.run()
      let ports = Binary.firstLine(of: output).split(whereSeparator: \.isWhitespace)
        .compactMap { Int($0) }
      main = ports.first ?? 0
      other = ports.dropFirst().first ?? 0
    }

    var url: String { "\(tls ? "https" : "http")://127.0.0.1:\(main)" }
    var otherURL: String { "http://127.0.0.1:\(other)" }

    /// Every request received so far, in order.
    func received() throws -> [Request] {
      let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
      return try text.split(separator: "\n").map {
        try JSONDecoder().decode(Request.self, from: Data($0.utf8))
      }
    }

    func stop() {
      if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
      }
    }

    deinit { stop() }
  }

  /// One request as the server logged it.
  struct Request: Decodable {
    var server: String
    var method: String
    var target: String
    var headers: [[String?]]
    var body: String

    func header(_ name: String) -> String? {
      headers.first { $0.first??.lowercased() == name.lowercased() }.flatMap { $0.last ?? nil }
    }
  }

  /// archsh run under a parent that reports its peak resident memory, in MB.
  struct Measured {
    var status: Int32
    var stdout: String
    var stderr: String
    var peakMB: Int
  }

  private func run(_ arguments: [String], input: String? = nil) throws -> Measured {
    let wrapper = """
      import resource, subprocess, sys
      done = subprocess.run(sys.argv[1:])
      peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
      sys.stderr.write("PEAK_MB=%d\\n" % peak)
      sys.exit(done.returncode if done.returncode >= 0 else 128 - done.returncode)
      """
    let result = try Binary.run(
      ["--no-rc", "--db", ":memory:"] + arguments, input: input,
      wrapper: ["/usr/bin/python3", "-c", wrapper])
    var errors = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(
      String.init)
    var peak = -1
    if let index = errors.lastIndex(where: { $0.hasPrefix("PEAK_MB=") }) {
      peak = Int(errors[index].dropFirst(8)) ?? -1
      errors.remove(at: index)
    }
    return Measured(
      status: result.status, stdout: result.stdout, stderr: errors.joined(separator: "\n"),
      peakMB: peak)
  }

  @Test("a redirect to another origin carries no bearer token, and the base URL stays")
  func crossOriginRedirect() throws {
    let server = try Server()
    defer { server.stop() }
    let run = try run(
      [
        "--api", server.url, "-c", "auth login ada@example.com --password-stdin", "-c",
        "user me", "-c", "session base",
      ], input: "lovelace\n")
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.peakMB > 0 && run.peakMB < 100, "peak \(run.peakMB) MB")
    let received = try server.received()
    let me = try #require(received.first { $0.server == "main" && $0.target == "/users/me" })
    #expect(me.header("Authorization") == "Bearer hostile-access-0001")
    let moved = try #require(received.first { $0.server == "other" })
    #expect(moved.target == "/users/me")
    #expect(moved.header("Authorization") == nil)
    #expect(!received.filter { $0.server == "other" }.contains { $0.body.contains("lovelace") })
    // The user came from the other origin, and the session stayed where it was.
    #expect(run.stdout.contains("mallory@example.com"), "\(run.stdout)")
    #expect(
      run.stdout.contains("dynamic_base_url: \(server.url)\n")
        || run.stdout.contains("dynamic_base_url:  \(server.url)\n"), "\(run.stdout)")
    #expect(!run.stdout.contains(server.otherURL))
  }

  @Test("the token endpoint never follows a redirect: the password stays where it was sent")
  func tokenRedirect() throws {
    let server = try Server()
    defer { server.stop() }
    let run = try run(
      [
        "--api", server.url + "/redirect-token", "-c",
        "auth login ada@example.com --password-stdin",
      ],
      input: "lovelace\n")
    #expect(run.status == 1)
    #expect(
      run.stderr.contains(
        "did not follow the redirect from \(server.url)/redirect-token/oauth/token to \(server.otherURL)/oauth/token: the token endpoint never follows a redirect"
      ), "\(run.stderr)")
    #expect(try server.received().allSatisfy { $0.server == "main" })
  }

  @Test("303, and 302 after a POST, become a GET without a body; 307 keeps the POST")
  func redirectMethods() throws {
    let server = try Server()
    defer { server.stop() }
    let run = try run(
      [
        "--api", server.url, "-c", "session request POST /post-303 -p name=Ada", "-c",
        "session base reset", "-c", "session request POST /post-302 -p name=Ada", "-c",
        "session base reset", "-c", "session request POST /post-307 -p name=Ada", "-c",
        "session base reset", "-c", "session request GET /loop",
      ])
    #expect(run.status == 1)
    let received = try server.received()
    let followed = received.filter { $0.target == "/products/1" }
    #expect(followed.count == 2)
    #expect(followed.allSatisfy { $0.method == "GET" && $0.body.isEmpty })
    #expect(followed.allSatisfy { $0.header("Content-Type") == nil })
    let kept = try #require(received.first { $0.target == "/echo-post" })
    #expect(kept.method == "POST" && kept.body == "{\"name\":\"Ada\"}")
    #expect(received.filter { $0.target == "/loop" }.count == 11)
    #expect(
      run.stderr.contains(
        "did not follow the redirect from \(server.url)/loop to \(server.url)/loop: that would be more than 10 redirects"
      ), "\(run.stderr)")
  }

  @Test("a status that is not three digits from 100 to 599 is an error, not a crash")
  func statusLines() throws {
    let server = try Server()
    defer { server.stop() }
    for (path, line) in [
      ("negative", "HTTP/1.1 -1 Bad"), ("signed", "HTTP/1.1 +20 OK"), ("four", "HTTP/1.1 2000 OK"),
      ("999", "HTTP/1.1 999 Odd"),
    ] {
      let run = try run(
        [
          "--api", server.url, "--keep-going", "-c", "net get /status/\(path)", "-c",
          "net get /products/1",
        ])
      #expect(run.status == 1, "\(path)")
      #expect(
        run.stderr
          == "-c#1:1:9: error: request to \(server.url)/status/\(path) failed: the server's status line '\(line)' is not HTTP/1.1 (a status is three digits, 100 to 599)\n",
        "\(run.stderr)")
      #expect(run.stdout.contains("\"details\":\"hostile but honest\""), "\(run.stdout)")
    }
  }

  @Test("every limit holds: the head, its fields, and the body whatever its framing")
  func limits() throws {
    let server = try Server()
    defer { server.stop() }
    let cases = [
      ("/huge-header", "the server's response head is larger than the limit of 80 KiB"),
      ("/many-fields", "the server's response has more than the limit of 100 header fields"),
      ("/endless-chunks", "the response body is larger than the limit of 64 MiB"),
      ("/big-length", "the response body is larger than the limit of 64 MiB"),
      ("/big-close", "the response body is larger than the limit of 64 MiB"),
      ("/two-lengths", "the server sent Content-Length values that disagree (5 and 7)"),
      (
        "/short-body",
        "the body ended after 8 of 100 bytes: the server closed the connection before the rest"
      ),
      (
        "/not-http",
        "the server's reply is not HTTP/1.1 (it began: 'SSH-2.0-OpenSSH_9.2p1 Debian-2')"
      ),
    ]
    for (path, message) in cases {
      let run = try run(
        ["--api", server.url, "--keep-going", "-c", "net get \(path)", "-c", "net get /products/1"])
      #expect(run.status == 1, "\(path)")
      #expect(
        run.stderr == "-c#1:1:9: error: request to \(server.url)\(path) failed: \(message)\n",
        "\(path): \(run.stderr)")
      #expect(run.stdout.contains("\"details\":\"hostile but honest\""), "\(path): \(run.stdout)")
      // The body limit is 64 MiB: a body is never held twice over.
      #expect(run.peakMB > 0 && run.peakMB < 250, "\(path): peak \(run.peakMB) MB")
    }
    let raised = try run(
      [
        "--api", server.url, "-c", "net limits --body 1KB", "-c", "net get /products/1", "-c",
        "net get /many-fields",
      ])
    #expect(
      raised.stdout.hasPrefix(
        "head_bytes:    80 KiB\nheader_fields: 100\nbody_bytes:    1 KiB\nredirects:     10\n"),
      "\(raised.stdout)")
  }

  @Test("bytes after a response never become the next response")
  func desync() throws {
    let server = try Server()
    defer { server.stop() }
    for path in ["/overlong-body", "/te-and-cl", "/late-408"] {
      let run = try run(
        [
          "--api", server.url, "-c", "net get \(path)", "-c", "sleep 400ms", "-c",
          "net get /products/1", "-c", "net log --no-timings",
        ])
      #expect(run.status == 0, "\(path): \(run.stderr)")
      #expect(!run.stdout.contains("SMUGGLED"), "\(path)")
      #expect(run.stdout.contains("\"details\":\"hostile but honest\""), "\(path): \(run.stdout)")
      // The second request went over a new connection.
      let last = run.stdout.split(separator: "\n").last.map { $0.split(separator: " ") } ?? []
      #expect(
        last.map(String.init) == ["GET", "\(server.url)/products/1", "200", "178", "new"],
        "\(path): \(run.stdout)")
    }
  }

  @Test("nothing invalid reaches the wire: the target is sent percent-encoded")
  func injection() throws {
    let server = try Server()
    defer { server.stop() }
    let run = try run(
      [
        "--api", server.url, "--keep-going", "-c", "net get '/x%0D%0AX-Injected:%20yes'", "-c",
        "net get '/a b'",
      ])
    #expect(run.status == 1)
    let received = try server.received()
    #expect(received.map(\.target) == ["/x%0D%0AX-Injected:%20yes", "/a%20b"])
    #expect(received.allSatisfy { $0.header("X-Injected") == nil })
  }

  @Test("control bytes from a server are escaped at the terminal, and whole in --json")
  func controlBytes() throws {
    let server = try Server()
    defer { server.stop() }
    let text = try run(["--api", server.url, "-c", "net get /control-bytes --full"])
    #expect(text.status == 0, "\(text.stderr)")
    #expect(!text.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    #expect(text.stdout.contains("title:\\e]0;pwned\\a red:\\e[31mRED\\e[0m bell:\\a nul:\\0 end"))
    let json = try run(["--api", server.url, "--json", "-c", "net get /control-bytes --full"])
    #expect(json.stdout.contains("title:\\u001b]0;pwned\\u0007"), "\(json.stdout)")
    // The same body through APISessionManager, as text; and DEL and C1 controls, which JSON
    // leaves raw inside a string, through both clients.
    let session = try run(["--api", server.url, "-c", "session request GET /control-bytes"])
    #expect(session.stdout.contains("title:\\e]0;pwned\\a red:\\e[31mRED"), "\(session.stdout)")
    for line in ["net get /control-json", "session request GET /control-json"] {
      let shown = try run(["--api", server.url, "-c", line])
      #expect(shown.status == 0, "\(shown.stderr)")
      #expect(
        !shown.stdout.unicodeScalars.contains {
          ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value)
        }, "\(line): \(shown.stdout.debugDescription)")
      #expect(shown.stdout.contains("\\u{9b}31mRED\\u{7f} end"), "\(line): \(shown.stdout)")
    }
  }

  @Test("a bad --api is a usage error, and a password in it is never shown")
  func apiOption() throws {
    for (api, reason) in [
      ("foo", "only http:// and https:// are spoken"),
      ("ftp://127.0.0.1/", "only http:// and https:// are spoken"),
      ("http://127.0.0.1:4294967296", "the port must be a number from 1 to 65535"),
      ("http://127.0.0.1:0", "the port must be a number from 1 to 65535"),
      ("http://h:1?x=1", "a base URL has no query or fragment: paths are joined to it"),
      (
        "http://127.0.0.1%00%0D%0AContent-Length%3A%200%0D%0A%0D%0AGET%20%2Fsmuggled:1",
        "its host is not a plain ASCII name or address (a percent-escape, a space or a control byte is refused)"
      ),
    ] {
      let run = try Binary.run(["--no-rc", "--api", api, "-c", "echo hi"])
      #expect(run.status == 2, "\(api)")
      #expect(run.stdout.isEmpty)
      #expect(
        run.stderr.contains("cannot be the API's base URL: \(reason) (given to --api"),
        "\(run.stderr)")
    }
    let server = try Server()
    defer { server.stop() }
    let shown = try run(
      [
        "--api", "http://ada:s3cr3t@127.0.0.1:\(server.main)", "-c", "net api", "-c",
        "net get /nowhere",
      ])
    // Refused before anything is sent: a password in a URL would be kept and shown in clear.
    #expect(shown.status == 2)
    #expect(!shown.stdout.contains("s3cr3t") && !shown.stderr.contains("s3cr3t"))
    #expect(
      shown.stderr.contains(
        "'http://ada:***@127.0.0.1:\(server.main)' cannot be the API's base URL: it holds a password"
      ),
      "\(shown.stderr)")
  }

  @Test("https never redirects to http, and a certificate for another name is refused")
  func tls() throws {
    let directory = try Binary.makeTemporaryDirectory()
    func openssl(_ arguments: [String]) throws {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
      process.arguments = arguments
      process.standardError = FileHandle.nullDevice
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      process.waitUntilExit()
    }
    // A test CA, a certificate from it for 127.0.0.1, and one for another host.
    try openssl([
      "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory + "/ca.key", "-out",
      directory + "/ca.pem", "-days", "2", "-subj", "/CN=archsh test CA",
    ])
    for (name, san) in [("right", "IP:127.0.0.1"), ("wrong", "DNS:other.example")] {
      try openssl([
        "req", "-newkey", "rsa:2048", "-nodes", "-keyout", directory + "/\(name).key", "-out",
        directory + "/\(name).csr", "-subj", "/CN=\(name)",
      ])
      try "subjectAltName=\(san)\n".write(
        toFile: directory + "/\(name).ext", atomically: true, encoding: .utf8)
      try openssl([
        "x509", "-req", "-in", directory + "/\(name).csr", "-CA", directory + "/ca.pem", "-CAkey",
        directory + "/ca.key", "-CAcreateserial", "-out", directory + "/\(name).pem", "-days", "2",
        "-extfile", directory + "/\(name).ext",
      ])
    }
    let right = try Server(tls: (directory + "/right.pem", directory + "/right.key"))
    defer { right.stop() }
    let down = try run(
      [
        "--api", right.url, "--cacert", directory + "/ca.pem", "--keep-going", "-c",
        "session request GET /users/me", "-c", "net get /products/1",
      ])
    #expect(down.status == 1)
    #expect(
      down.stderr.contains(
        "did not follow the redirect from \(right.url)/users/me to \(right.otherURL)/users/me: it leaves https for plain http"
      ), "\(down.stderr)")
    #expect(down.stdout.contains("\"details\":\"hostile but honest\""), "\(down.stdout)")
    #expect(try right.received().allSatisfy { $0.server == "main" })
    let wrong = try Server(tls: (directory + "/wrong.pem", directory + "/wrong.key"))
    defer { wrong.stop() }
    let refused = try run(
      ["--api", wrong.url, "--cacert", directory + "/ca.pem", "-c", "net get /products/1"])
    #expect(refused.status == 1)
    #expect(
      refused.stderr.contains(
        "the certificate of 127.0.0.1:\(wrong.main) was not accepted: it is not for the address 127.0.0.1"
      ),
      "\(refused.stderr)")
    #expect(try wrong.received().isEmpty)
  }

  @Test(
    "a redirect chain that leaves the base URL's origin never swaps the base URL, even when its later hops stay on one origin"
  )
  func twoHopChain() throws {
    let server = try Server()
    defer { server.stop() }
    let run = try run(
      [
        "--api", server.url, "-c", "auth login ada@example.com --password-stdin", "-c",
        "session request GET /hop-away --auth", "-c", "session base", "-c",
        "session request GET /products/2 --auth",
      ], input: "lovelace\n")
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("swapped:          no"), "\(run.stdout)")
    #expect(!run.stdout.contains("swapped:          yes"), "\(run.stdout)")
    let received = try server.received()
    let other = received.filter { $0.server == "other" }
    #expect(
      other.map(\.target).filter { $0.hasPrefix("/hop") } == ["/hop1", "/hop2"],
      "\(received.map(\.target))")
    #expect(other.allSatisfy { $0.header("Authorization") == nil })
    let later = try #require(received.first { $0.target == "/products/2" })
    #expect(later.server == "main")
    #expect(later.header("Authorization") == "Bearer hostile-access-0001")
  }

  @Test("a Location whose host holds percent-escapes is refused, and nothing is sent to it")
  func encodedHostLocation() throws {
    let server = try Server()
    defer { server.stop() }
    let run = try run(
      [
        "--api", server.url, "--keep-going", "-c", "session request GET /encoded-host", "-c",
        "session base 'http://127.0.0.1%0D%0AX-Injected:1/'",
      ])
    #expect(run.status == 1)
    #expect(
      run.stderr.contains(
        "did not follow the redirect from \(server.url)/encoded-host to http://127.0.0.1%00%0D%0AX-Injected%3A%20yes:\(server.main)/x: its host is not a plain ASCII name or address"
      ), "\(run.stderr)")
    #expect(
      run.stderr.contains(
        "error: the host of 'http://127.0.0.1%0D%0AX-Injected:1/' is not a plain ASCII name or address (a percent-escape, a space or a control byte is refused)"
      ), "\(run.stderr)")
    let received = try server.received()
    #expect(received.map(\.target) == ["/encoded-host"])
    #expect(received.allSatisfy { $0.header("X-Injected") == nil })
  }

  @Test("one deadline covers every redirect hop: three hops of 0.8 s each outlast a 2 s timeout")
  func deadlineAcrossHops() throws {
    let server = try Server()
    defer { server.stop() }
    let start = Date()
    let run = try run(
      ["--api", server.url, "-c", "net timeout 2s", "-c", "session request GET /slow-hop"])
    let elapsed = Date().timeIntervalSince(start)
    #expect(run.status == 1)
    #expect(run.stderr.contains("timed out"), "\(run.stderr)")
    #expect(elapsed < 3.5, "took \(elapsed) s")
    #expect(try !server.received().contains { $0.target == "/products/3" })
  }

  @Test("a TLS server that sends one byte a second cannot hold a request past its timeout")
  func tricklingHandshake() throws {
    let script = """
      import socket, sys, threading, time
      listener = socket.socket(); listener.bind(("127.0.0.1", 0)); listener.listen(8)
      print(listener.getsockname()[1], flush=True)
      def trickle(conn):
          try:
              for byte in b"\\x16\\x03\\x03\\x40\\x00" + b"\\x00" * 60:
                  conn.send(bytes([byte])); time.sleep(1)
          except OSError:
              pass
      while True:
          conn, _ = listener.accept()
          threading.Thread(target=trickle, args=(conn,), daemon=True).start()
      """
    let (process, port) = try startServer(script)
    defer { stop(process) }
    #expect(port > 0)
    let start = Date()
    let run = try run(
      ["--api", "https://127.0.0.1:\(port)", "-c", "net timeout 2s", "-c", "net get /products/1"])
    let elapsed = Date().timeIntervalSince(start)
    #expect(run.status == 1)
    #expect(
      run.stderr.contains("timed out after 2 s waiting for https://127.0.0.1:\(port)/products/1")
        || run.stderr.contains(
          "timed out after 2s waiting for https://127.0.0.1:\(port)/products/1"),
      "\(run.stderr)")
    #expect(elapsed < 3.5, "took \(elapsed) s")
  }

  @Test("an IPv6 address with a port is accepted, and its Host header keeps the brackets")
  func ipv6() throws {
    let script = """
      import http.server, json, socket
      class Server(http.server.HTTPServer):
          address_family = socket.AF_INET6
      class Handler(http.server.BaseHTTPRequestHandler):
          def do_GET(self):
              body = json.dumps({"code": "OK", "data": {"type": "product", "id": 1, "name": "Six",
                  "family": "IPv6", "price": 1.0, "price_cents": 100, "currency": "USD",
                  "details": "host " + self.headers["Host"]}}).encode()
              self.send_response(200); self.send_header("Content-Type", "application/json")
              self.send_header("Content-Length", str(len(body))); self.end_headers()
              self.wfile.write(body)
          def log_message(self, *args): pass
      server = Server(("::1", 0), Handler)
      print(server.server_address[1], flush=True)
      server.serve_forever()
      """
    let (process, port) = try startServer(script)
    defer { stop(process) }
    let run = try run(["--api", "http://[::1]:\(port)", "-c", "product update 1"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("host [::1]:\(port)"), "\(run.stdout)")
  }

  /// A Python server from `script`, which prints its port on its first line.
  private func startServer(_ script: String) throws -> (Process, Int) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", script]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    return (process, Int(Binary.firstLine(of: output).trimmingCharacters(in: .whitespaces)) ?? 0)
  }

  /// Ends a server started by `startServer` and waits for it.
  private func stop(_ process: Process) {
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }
}
