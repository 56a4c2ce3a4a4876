import Foundation
import Testing

/// `--api https://…` against a local TLS server whose certificate the test makes, with the
/// binary that ships.
@Suite("HTTPS through swift-nio-ssl", .serialized)
struct HTTPSTests {
  /// A Python HTTPS server on 127.0.0.1 with a self-signed certificate made by `openssl`.
  final class Server {
    let process = Process()
    let port: Int
    let certificate: String

    init() throws {
      let directory = try Binary.makeTemporaryDirectory()
      certificate = directory + "/cert.pem"
      let openssl = Process()
      openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
      openssl.arguments = [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory + "/key.pem",
        "-out", certificate, "-days", "2", "-subj", "/CN=localhost",
        "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
      ]
      openssl.standardError = FileHandle.nullDevice
      try openssl.run()
      openssl.waitUntilExit()
      let script = """
        import http.server, json, ssl, sys
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            timeout = 0.5   # a kept connection idle this long is closed, as real servers do
            def answer(self, with_body):
                if self.path.startswith("/old"):
                    self.send_response(307); self.send_header("Location", "/products/1")
                    self.send_header("Content-Length", "0"); self.end_headers(); return
                body = json.dumps({"code": "OK", "data": {"type": "product", "id": 1,
                    "name": "iPhone 15 Pro Max", "family": "iPhones", "price": 1199.0,
                    "price_cents": 119900, "currency": "USD", "details": "over TLS"}}).encode()
                self.send_response(200); self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body))); self.end_headers()
                if with_body: self.wfile.write(body)
            def do_GET(self): self.answer(True)
            def do_HEAD(self): self.answer(False)
            def log_message(self, *args): pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """
      process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
      process.arguments = ["-c", script, certificate, directory + "/key.pem"]
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      try process.run()
      port = Int(Binary.firstLine(of: output).trimmingCharacters(in: .whitespaces)) ?? 0
    }

    var url: String { "https://127.0.0.1:\(port)" }

    /// Ends the server with SIGKILL and waits for it, so no process outlives the test.
    ///
    /// The child inherits the test runner's blocked SIGTERM, so `terminate()` is not enough.
    func stop() {
      if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
      }
    }

    deinit { stop() }
  }

  @Test(
    "with --cacert the request goes over TLS; without it a self-signed certificate is refused, with a hint"
  )
  func verifies() throws {
    let server = try Server()
    defer { server.stop() }
    #expect(server.port > 0)
    let trusted = try Binary.run(
      [
        "--no-rc", "--db", ":memory:", "--api", server.url, "--cacert", server.certificate, "-c",
        "net get /products/1", "-c", "session request GET /old",
      ])
    #expect(trusted.status == 0, "\(trusted.stderr)")
    #expect(
      trusted.stdout.contains("request:      GET \(server.url)/products/1\nstatus:       200\n"))
    #expect(trusted.stdout.contains("\"details\":\"over TLS\""))
    // A redirect on an HTTPS server is followed by the same rules as over HTTP: /old answers 307
    // to /products/1 on the same origin.
    #expect(
      trusted.stdout.contains(
        "request:          GET \(server.url)/products/1\nstatus:           200\n"),
      "\(trusted.stdout)")
    let refused = try Binary.run(
      ["--no-rc", "--db", ":memory:", "--api", server.url, "-c", "net get /products/1"])
    #expect(refused.status == 1)
    #expect(
      refused.stderr
        == "-c:1:9: error: request to \(server.url)/products/1 failed: the certificate of 127.0.0.1:\(server.port) was not accepted: it is self-signed, expired, or signed by a CA that is not trusted (certificate verify failed); for a private or self-signed server, give its CA with --cacert FILE\n"
    )
    let missing = try Binary.run(["--cacert", "/nonexistent.pem", "-c", "echo hi"])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("cannot read the CA file '/nonexistent.pem'"))
  }

  @Test(
    "HTTPS connections are kept and reused; one the server closed while idle is replaced, and HEAD has no body"
  )
  func keepsConnections() throws {
    let server = try Server()
    defer { server.stop() }
    let run = try Binary.run(
      [
        "--no-rc", "--db", ":memory:", "--api", server.url, "--cacert", server.certificate, "-c",
        "net get /products/1", "-c", "net get /products/2", "-c",
        "session request HEAD /products/3",
        "-c", "sleep 1s", "-c", "net get /products/4", "-c", "net log",
      ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      run.stdout.contains("request:      HEAD \(server.url)/products/3\nstatus:       200\n"),
      "\(run.stdout)"
    )
    // The server closed the kept connection during the sleep: the last GET went again on a new
    // one, and nothing (no SIGPIPE from the dead socket) ended archsh.
    // net log's rows: method, URL, status, bytes, milliseconds, connection.
    let rows = run.stdout.split(separator: "\n").filter { $0.hasPrefix("GET ") }
      .map { $0.split(separator: " ") }
    #expect(
      rows.map { "\($0[1]) \($0[2]) \($0[5])" } == [
        "\(server.url)/products/1 200 new", "\(server.url)/products/2 200 reused",
        "\(server.url)/products/4 200 new",
      ], "\(run.stdout)")
  }

  @Test("no OpenSSL is ever loaded: TLS is swift-nio-ssl's BoringSSL, linked into the binary")
  func noSystemTLSLibrary() throws {
    let server = try Server()
    defer { server.stop() }
    let secure = try Binary.run(
      [
        "--no-rc", "--db", ":memory:", "--api", server.url, "--cacert", server.certificate, "-c",
        "net get /products/1",
      ], environment: ["LD_DEBUG": "files"])
    #expect(secure.status == 0)
    #expect(secure.stdout.contains("\"details\":\"over TLS\""), "\(secure.stdout)")
    #expect(!secure.stderr.contains("libssl") && !secure.stderr.contains("libcrypto"))
  }

  @Test("a script loads the system's shared libraries and nothing else")
  func loadsOnlySystemLibraries() throws {
    let plain = try Binary.run(["--no-rc", "-c", "echo hi"], environment: ["LD_DEBUG": "files"])
    #expect(plain.stdout == "hi\n")
    // ld.so names each library it loads in a "file=NAME [0];  needed by ..." line.
    let loaded = plain.stderr.split(separator: "\n").compactMap { line -> String? in
      guard let start = line.range(of: "file=")?.upperBound,
        let end = line[start...].firstIndex(of: " ")
      else { return nil }
      return String(line[start..<end])
    }
    #expect(loaded.contains("libsqlite3.so.0"), "\(loaded)")
    #expect(loaded.contains("libedit.so.2"), "\(loaded)")
    // libedit and the terminal libraries it needs, linked as Debian ships them.
    let allowed: Set<String> = [
      "libc.so.6", "libm.so.6", "libsqlite3.so.0", "libstdc++.so.6", "libgcc_s.so.1",
      "libz.so.1", "libdl.so.2", "libpthread.so.0", "libutil.so.1", "libedit.so.2",
      "libtinfo.so.6", "libbsd.so.0", "libmd.so.0",
    ]
    #expect(Set(loaded).isSubset(of: allowed), "\(loaded)")
  }
}
