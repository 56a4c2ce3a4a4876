import Foundation
import NIOCore
import TestSupport
import Testing

@testable import Plumbing

private enum RawClientError: Error { case refused }

/// A plain TCP client for the server's own tests: it sends bytes as given, and reads what comes
/// back until the server closes or `seconds` pass.
private final class RawClient {
  private let descriptor: Int32

  init(port: Int) throws {
    descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port)).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(descriptor)
      throw RawClientError.refused
    }
  }

  deinit { close(descriptor) }

  func send(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
  }

  /// Sends `text` a byte at a time, a tenth of a second apart; whether the server closed the
  /// connection before all of it was sent.
  func trickle(_ text: String) -> Bool {
    for byte in text {
      send(String(byte))
      if read(seconds: 0.1).closed { return true }
    }
    return false
  }

  /// What arrives within `seconds`, and whether the server closed the connection by then.
  func read(seconds: Double, until marker: String? = nil) -> (text: String, closed: Bool) {
    var received: [UInt8] = []
    let deadline = Date().addingTimeInterval(seconds)
    var timeout = timeval(tv_sec: 0, tv_usec: 50_000)
    setsockopt(
      descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var buffer = [UInt8](repeating: 0, count: 65536)
    while Date() < deadline {
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count == 0 { return (String(decoding: received, as: UTF8.self), true) }
      if count > 0 {
        received += buffer[0..<count]
        if let marker, String(decoding: received, as: UTF8.self).contains(marker) { break }
      }
    }
    return (String(decoding: received, as: UTF8.self), false)
  }
}

/// Each test's client blocks while it reads, so it runs off Swift's cooperative pool (`offPool`).
@Suite("LoopbackServer: the HTTP/1.1 server the demo API and the board run on")
struct LoopbackServerTests {
  /// A server that echoes the method, path, query and body length, and answers `/slow` after
  /// 0.4 s, `/cut` with half an answer, and `/stream` with three chunks.
  private static func server(idle: TimeAmount = .seconds(10)) throws -> LoopbackServer {
    try LoopbackServer.start(port: 0, name: "test", bodyLimit: 100, idleTimeout: idle) { request in
      switch request.path {
      case "/slow":
        return .after(0.4) { ServerResponse(status: 200, contentType: "text/plain", "slow") }
      case "/host":
        return ServerResponse(
          status: 200, contentType: "text/plain",
          "names this server: \(request.namesThisServer), port \(request.port)")
      case "/none":
        return ServerResponse(status: 204, contentType: "text/plain", "no body may follow a 204")
      case "/early":
        return ServerResponse(status: 103, contentType: "text/plain", "hints")
      case "/cut":
        return ServerResponse(
          status: 200, headers: [("Content-Length", "100")], body: .cut(Array("part".utf8)))
      case "/stream":
        return ServerResponse(
          status: 200, headers: [("Content-Type", "text/event-stream")],
          body: .stream { writer in
            for word in ["one", "two", "three"] {
              guard await writer.write(ByteBuffer(string: word)) else { return }
            }
          })
      default:
        let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
        let text =
          "\(request.method) \(request.path) [\(query)] \(request.body.count) "
          + "\(request.authority ?? "-") \(request.header("x-a") ?? "-")"
        return ServerResponse(status: 200, contentType: "text/plain", text)
      }
    }
  }

  @Test("a request is answered with its length, and the connection is kept for the next")
  func keepAlive() async throws {
    try await offPool {
      let server = try Self.server()
      defer { server.stop() }
      let client = try RawClient(port: server.port)
      client.send("GET /a?x=1%202&y HTTP/1.1\r\nHost: h\r\nX-A: b\r\n\r\n")
      let first = client.read(seconds: 2, until: "h b")
      #expect(first.text.hasPrefix("HTTP/1.1 200 OK\r\n"))
      #expect(first.text.contains("\r\nContent-Length: 23\r\n"))
      #expect(first.text.contains("\r\nServer: test\r\n"))
      #expect(first.text.hasSuffix("\r\n\r\nGET /a [x=1 2,y=] 0 h b"))
      #expect(!first.closed)
      client.send(
        "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc")
      let second = client.read(seconds: 2)
      #expect(second.text.contains("Connection: close\r\n"))
      #expect(second.text.hasSuffix("POST /b [] 3 h -"))
      #expect(second.closed)
    }
  }

  @Test(
    "an HTTP/1.0 request that asks to keep the connection is told it is kept; one that does not is closed"
  )
  func http10() async throws {
    try await offPool {
      let server = try Self.server()
      defer { server.stop() }
      let client = try RawClient(port: server.port)
      client.send("GET /k HTTP/1.0\r\nHost: h\r\nConnection: keep-alive\r\n\r\n")
      let kept = client.read(seconds: 2, until: "h -")
      #expect(kept.text.hasPrefix("HTTP/1.0 200 OK\r\n"))
      #expect(kept.text.contains("\r\nConnection: keep-alive\r\n"))
      #expect(!kept.closed)
      client.send("GET /c HTTP/1.0\r\nHost: h\r\n\r\n")
      let closed = client.read(seconds: 2)
      #expect(closed.text.hasSuffix("GET /c [] 0 h -"))
      #expect(closed.closed)
    }
  }

  @Test("a 204 carries no body even when given one, and a 1xx is not an answer but a 500")
  func bodylessAndInformational() async throws {
    try await offPool {
      let server = try Self.server()
      defer { server.stop() }
      let client = try RawClient(port: server.port)
      client.send("GET /none HTTP/1.1\r\nHost: h\r\n\r\nGET /early HTTP/1.1\r\nHost: h\r\n\r\n")
      let answers = client.read(seconds: 2, until: "not 103\n").text
      #expect(answers.hasPrefix("HTTP/1.1 204 No Content\r\n"))
      #expect(!answers.contains("no body may follow"))
      #expect(!answers.lowercased().contains("content-length: 24"))
      #expect(answers.contains("\r\n\r\nHTTP/1.1 500 Internal Server Error\r\n"))
      #expect(answers.hasSuffix("\r\n\r\na server answers with a final status, not 103\n"))
    }
  }

  @Test("requests sent together are answered in order, a slow one included, 2,000 of them at once")
  func pipelined() async throws {
    try await offPool {
      let server = try Self.server()
      defer { server.stop() }
      let client = try RawClient(port: server.port)
      client.send(
        "GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /slow HTTP/1.1\r\nHost: h\r\n\r\n"
          + "GET /3 HTTP/1.1\r\nHost: h\r\n\r\n")
      let three = client.read(seconds: 3, until: "GET /3 [] 0 h -").text
      let first = three.range(of: "GET /1 [] 0 h -")
      let slow = three.range(of: "\r\n\r\nslow")
      let third = three.range(of: "GET /3 [] 0 h -")
      #expect(first != nil && slow != nil && third != nil)
      if let first, let slow, let third {
        #expect(first.upperBound <= slow.lowerBound && slow.upperBound <= third.lowerBound)
      }
      client.send(String(repeating: "GET /p HTTP/1.1\r\nHost: h\r\n\r\n", count: 2000))
      var text = ""
      let deadline = Date().addingTimeInterval(10)
      while text.components(separatedBy: "GET /p [] 0 h -").count - 1 < 2000, Date() < deadline {
        text += client.read(seconds: 0.5).text
      }
      #expect(text.components(separatedBy: "GET /p [] 0 h -").count - 1 == 2000)
    }
  }

  @Test("an absolute-form target and a fragment are routed by their path")
  func targets() async throws {
    try await offPool {
      let server = try Self.server()
      defer { server.stop() }
      let client = try RawClient(port: server.port)
      client.send("GET http://h:1/abs?q=1#f HTTP/1.1\r\nHost: h\r\n\r\n")
      #expect(client.read(seconds: 2, until: "h -").text.hasSuffix("GET /abs [q=1] 0 h -"))
    }
  }

  @Test("a stream is written while every thread of Swift's cooperative pool is held")
  func streamWithBusyPool() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let port = server.port
    // A synchronous wait on each cooperative thread (the pool has one per core), as a command
    // that waits for an answer holds one.
    let holders = (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in
      Task.detached { _ = usleep(1_500_000) }
    }
    let chunks = try await offPool {
      let client = try RawClient(port: port)
      client.send("GET /stream HTTP/1.1\r\nHost: h\r\n\r\n")
      return client.read(seconds: 1.2, until: "0\r\n\r\n").text
    }
    for holder in holders { await holder.value }
    #expect(chunks.hasSuffix("\r\n\r\n3\r\none\r\n3\r\ntwo\r\n5\r\nthree\r\n0\r\n\r\n"))
  }

  @Test(
    "a request names this server when its Host is 127.0.0.1 or localhost with the server's port")
  func host() async throws {
    try await offPool {
      let server = try Self.server()
      defer { server.stop() }
      let port = server.port
      let client = try RawClient(port: port)
      for (host, names) in [
        ("127.0.0.1:\(port)", true), ("localhost:\(port)", true), ("evil.example:\(port)", false),
        ("127.0.0.1:\(port + 1)", false), ("127.0.0.1", false),
      ] {
        client.send("GET /host HTTP/1.1\r\nHost: \(host)\r\n\r\n")
        let answer = client.read(seconds: 2, until: "port \(port)").text
        #expect(answer.hasSuffix("names this server: \(names), port \(port)"), "Host: \(host)")
      }
    }
  }

  @Test("a stream to an HTTP/1.0 client ends with the connection")
  func http10Stream() async throws {
    try await offPool {
      let server = try Self.server()
      defer { server.stop() }
      let client = try RawClient(port: server.port)
      client.send("GET /stream HTTP/1.0\r\nHost: h\r\nConnection: keep-alive\r\n\r\n")
      let answer = client.read(seconds: 2)
      #expect(answer.text.contains("\r\nConnection: close\r\n"))
      #expect(answer.text.hasSuffix("\r\n\r\nonetwothree"))
      #expect(answer.closed)
    }
  }

  @Test("a body over the limit that is still arriving gets its 413, not a reset")
  func refusedWhileArriving() async throws {
    try await offPool {
      let server = try Self.server()
      defer { server.stop() }
      let client = try RawClient(port: server.port)
      client.send("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 30000\r\n\r\n")
      for _ in 0..<30 { client.send(String(repeating: "x", count: 1000)) }
      let answer = client.read(seconds: 2)
      #expect(answer.text.hasPrefix("HTTP/1.1 413 Payload Too Large\r\n"))
      #expect(answer.text.hasSuffix("the body is larger than 100 bytes\n"))
      #expect(answer.closed)
    }
  }

  @Test("a body over the limit is answered 413, and the connection closes")
  func bodyLimit() async throws {
    try await offPool {
      let server = try Self.server()
      defer { server.stop() }
      let client = try RawClient(port: server.port)
      client.send("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 101\r\n\r\n")
      let answer = client.read(seconds: 2)
      #expect(answer.text.hasPrefix("HTTP/1.1 413 Payload Too Large\r\n"))
      #expect(answer.text.hasSuffix("the body is larger than 100 bytes\n"))
      #expect(answer.closed)
    }
  }

  @Test("a head sent a byte at a time is cut off when the idle time runs out")
  func trickledHead() async throws {
    try await offPool {
      let server = try Self.server(idle: .milliseconds(600))
      defer { server.stop() }
      let client = try RawClient(port: server.port)
      let began = Date()
      #expect(
        client.trickle("GET / HTTP/1.1\r\nHost: h\r\nX-Long: " + String(repeating: "a", count: 30)))
      #expect(Date().timeIntervalSince(began) < 3)
    }
  }

  @Test("a body sent a byte at a time is cut off too: the idle time runs until a request is whole")
  func trickledBody() async throws {
    try await offPool {
      let server = try Self.server(idle: .milliseconds(600))
      defer { server.stop() }
      let client = try RawClient(port: server.port)
      client.send("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 90\r\n\r\n")
      let began = Date()
      #expect(client.trickle(String(repeating: "a", count: 90)))
      #expect(Date().timeIntervalSince(began) < 3)
    }
  }

  @Test("an answer cut off closes; a streamed one is chunked")
  func cutAndStream() async throws {
    try await offPool {
      let server = try Self.server()
      defer { server.stop() }
      let cut = try RawClient(port: server.port)
      cut.send("GET /cut HTTP/1.1\r\nHost: h\r\n\r\n")
      let partial = cut.read(seconds: 2)
      #expect(partial.text.contains("\r\nContent-Length: 100\r\n"))
      #expect(partial.text.hasSuffix("\r\n\r\npart"))
      #expect(partial.closed)
      let stream = try RawClient(port: server.port)
      stream.send("GET /stream HTTP/1.1\r\nHost: h\r\n\r\n")
      let chunks = stream.read(seconds: 2, until: "0\r\n\r\n")
      #expect(chunks.text.lowercased().contains("transfer-encoding: chunked\r\n"))
      #expect(chunks.text.hasSuffix("\r\n\r\n3\r\none\r\n3\r\ntwo\r\n5\r\nthree\r\n0\r\n\r\n"))
    }
  }

  @Test("stopping closes an idle connection at once, and a busy one after its answer")
  func stopping() async throws {
    try await offPool {
      let server = try Self.server()
      let idle = try RawClient(port: server.port)
      let busy = try RawClient(port: server.port)
      busy.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n")
      Thread.sleep(forTimeInterval: 0.1)
      server.stop()
      #expect(idle.read(seconds: 1).closed)
      let answer = busy.read(seconds: 2)
      #expect(answer.text.hasSuffix("\r\n\r\nslow"))
      #expect(answer.text.contains("Connection: close\r\n"))
      #expect(answer.closed)
      #expect(throws: (any Error).self) { try RawClient(port: server.port) }
    }
  }

  @Test("a port that is taken is refused at once")
  func takenPort() async throws {
    try await offPool {
      let first = try Self.server()
      defer { first.stop() }
      #expect(throws: ServerStartError.self) {
        try LoopbackServer.start(
          port: first.port, name: "second", bodyLimit: 1, idleTimeout: .seconds(1)
        ) { _ in ServerResponse(status: 204) }
      }
    }
  }
}
