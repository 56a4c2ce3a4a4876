import CTLS
import DemoAPI
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

@testable import Domain

/// HTTPTransport, plain HTTP on the calling thread, against real servers: connections are kept
/// and reused, and a request is sent again only when that is safe.
@Suite("keep-alive in HTTPTransport", .serialized)
struct KeepAliveTests {
  private func send(
    _ method: String, _ url: URL, seconds: Double = 5,
    isCancelled: @escaping @Sendable () -> Bool = { false }
  ) -> Result<TransportResponse, Error> {
    HTTPTransport.perform(
      method: method, url: url, headers: [], body: method == "POST" ? Data("{}".utf8) : nil,
      deadline: DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1_000_000_000),
      control: ExchangeControl(isCancelled: isCancelled))
  }

  @Test("a second request goes over the connection the first one kept")
  func reuse() throws {
    // A server of its own: no test running alongside takes the connection this one kept.
    let api = try DemoAPI.start()
    defer { api.stop() }
    let url = api.baseURL.appendingPathComponent("products/1")
    let first = try send("GET", url).get()
    let second = try send("GET", url).get()
    #expect(first.head.status.code == 200 && !first.reusedConnection)
    #expect(second.head.status.code == 200 && second.reusedConnection)
    #expect(String(buffer: second.body).contains("\"id\":1"))
    #expect(ConnectionPools.shared.idleCount >= 1)
  }

  @Test(
    "a GET on a kept connection the server closed unanswered goes again on a new one; a POST does not"
  )
  func retriesOnlySafeRequests() throws {
    let server = try ClosingServer.start()
    defer { server.stop() }
    let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/a"))
    #expect(try send("GET", url).get().head.status.code == 200)
    let retried = try send("GET", url).get()
    #expect(retried.head.status.code == 200 && !retried.reusedConnection)
    #expect(server.accepted == 2)
    #expect(throws: TransportError.dropped) { try send("POST", url).get() }
    #expect(server.accepted == 2)
  }

  @Test("a response that was cut off halfway is never sent again, even for a GET")
  func doesNotRetryAfterAnAnswerBegan() async throws {
    let api = try await TestServer.shared.get()
    let url = api.baseURL.appendingPathComponent("products/2")
    _ = try await offPool { try send("GET", url).get() }
    // The demo API's drop sends a head and part of a body, then closes.
    api.faults.add(Fault(method: "GET", path: "/products/2", kind: .drop))
    let result = await offPool { send("GET", url) }
    #expect(throws: TransportError.dropped) { try result.get() }
  }

  @Test("a slow answer ends at once when cancelled, and at the deadline")
  func cancelAndDeadline() throws {
    let api = try DemoAPI.start()
    defer { api.stop() }
    let url = api.baseURL.appendingPathComponent("products/3")
    api.faults.add(Fault(method: "GET", path: "/products/3", kind: .delayOnly, delay: 5, times: 2))
    let start = Date()
    let cancelled = send("GET", url) { Date().timeIntervalSince(start) > 0.1 }
    #expect(throws: TransportError.cancelled) { try cancelled.get() }
    let timed = send("GET", url, seconds: 0.2)
    #expect(throws: TransportError.timedOut) { try timed.get() }
    #expect(Date().timeIntervalSince(start) < 2)
  }

  @Test("an exchange cancelled before it starts sends nothing")
  func cancelledBeforeSending() throws {
    let server = try ClosingServer.start()
    defer { server.stop() }
    let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/a"))
    let control = ExchangeControl()
    control.cancel()
    let result = HTTPTransport.perform(
      method: "GET", url: url, headers: [], body: nil,
      deadline: DispatchTime.now().uptimeNanoseconds + 5_000_000_000, control: control)
    #expect(throws: TransportError.cancelled) { try result.get() }
    #expect(server.accepted == 0)
  }

  @Test("a connection that is not accepted ends at once when cancelled, and at the deadline")
  func cancelWhileConnecting() throws {
    let server = try FullBacklog()
    let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/"))
    let start = Date()
    let cancelled = send("GET", url) { Date().timeIntervalSince(start) > 0.1 }
    #expect(throws: TransportError.cancelled) { try cancelled.get() }
    #expect(Date().timeIntervalSince(start) < 1)
    let timed = send("GET", url, seconds: 0.2)
    #expect(throws: TransportError.timedOut) { try timed.get() }
    #expect(Date().timeIntervalSince(start) < 2)
  }

  @Test("a kept connection with bytes nobody asked for is not used again")
  func noisyConnectionDropped() throws {
    // Each answer is followed by a byte that belongs to no response.
    let server = try ClosingServer.start(after: "X")
    defer { server.stop() }
    let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/a"))
    #expect(try send("GET", url).get().head.status.code == 200)
    let second = try send("GET", url).get()
    #expect(second.head.status.code == 200 && !second.reusedConnection)
    #expect(server.accepted == 2)
  }

  @Test(
    "nothing listening is refused; a name that does not resolve says so; a bad URL sends nothing")
  func failures() throws {
    let port = try #require((1024...65000).first { LoopbackPort.isFree($0) })
    let refused = send("GET", try #require(URL(string: "http://127.0.0.1:\(port)/")))
    #expect(throws: TransportError.refused) { try refused.get() }
    let unknown = send("GET", try #require(URL(string: "http://archsh-no-such-host.invalid/")))
    #expect(throws: SocketError.self) { try unknown.get() }
    #expect(throws: TransportError.unsupportedURL) {
      try send("GET", URL(fileURLWithPath: "/")).get()
    }
  }

  @Test("the target is sent percent-encoded, so that no escape can end the request line")
  func targets() throws {
    let injected = try #require(URL(string: "http://127.0.0.1:1/x%0D%0AX-Injected:%20yes?a=%0A"))
    let head = try HTTPTransport.request(method: "GET", url: injected, headers: [], body: nil).head
    #expect(head.uri == "/x%0D%0AX-Injected:%20yes?a=%0A")
    let spaced = try #require(URL(string: "http://127.0.0.1:1/a%20b"))
    #expect(
      try HTTPTransport.request(method: "GET", url: spaced, headers: [], body: nil).head.uri
        == "/a%20b")
    #expect(throws: TransportError.self) {
      try HTTPTransport.request(
        method: "GET", url: spaced, headers: [(name: "X-A", value: "1\r\nX-B: 2")], body: nil)
    }
    #expect(throws: TransportError.self) {
      try HTTPTransport.request(method: "GET\r\n", url: spaced, headers: [], body: nil)
    }
  }
}

/// A name whose lookup takes three seconds: the resolver stands in for getaddrinfo for it, and
/// forwards every other name.
private let slowName = "archsh-slow-lookup.test"

private func slowResolver(
  _ host: UnsafePointer<CChar>?, _ service: UnsafePointer<CChar>?,
  _ hints: UnsafePointer<addrinfo>?, _ found: UnsafeMutablePointer<UnsafeMutablePointer<addrinfo>?>?
) -> Int32 {
  if let host, String(cString: host) == slowName {
    usleep(3_000_000)
    return EAI_NONAME
  }
  return getaddrinfo(host, service, hints, found)
}

@Suite("a name lookup that does not answer")
struct SlowLookupTests {
  @Test("ends at once when cancelled, and at the deadline, the lookup left to finish on its own")
  func cancelAndDeadline() throws {
    archsh_set_resolver(slowResolver)
    let url = try #require(URL(string: "http://\(slowName)/"))
    let start = Date()
    let cancelled = HTTPTransport.perform(
      method: "GET", url: url, headers: [], body: nil,
      deadline: DispatchTime.now().uptimeNanoseconds + 5_000_000_000,
      control: ExchangeControl { Date().timeIntervalSince(start) > 0.1 })
    #expect(throws: TransportError.cancelled) { try cancelled.get() }
    #expect(Date().timeIntervalSince(start) < 1)
    let timed = HTTPTransport.perform(
      method: "GET", url: url, headers: [], body: nil,
      deadline: DispatchTime.now().uptimeNanoseconds + 200_000_000)
    #expect(throws: TransportError.timedOut) { try timed.get() }
    #expect(Date().timeIntervalSince(start) < 2)
    // The C call says which wait ended it.
    var error = [CChar](repeating: 0, count: 256)
    var failure: Int32 = 0
    #expect(archsh_connect(slowName, 80, 100, &error, error.count, &failure, nil, nil) == nil)
    #expect(failure == ETIMEDOUT)
    #expect(String(cMessage: error) == "cannot resolve \(slowName): no answer within 100 ms")
    // Other names still resolve through getaddrinfo.
    let api = try DemoAPI.start()
    defer { api.stop() }
    let port = try #require(api.baseURL.port)
    let local = try #require(URL(string: "http://localhost:\(port)/products/1"))
    let answer = HTTPTransport.perform(
      method: "GET", url: local, headers: [], body: nil,
      deadline: DispatchTime.now().uptimeNanoseconds + 5_000_000_000)
    #expect(try answer.get().head.status.code == 200)
  }
}

/// A server whose queue of connections is full: a new connection waits, unanswered.
private final class FullBacklog {
  let port: Int
  private var descriptors: [Int32] = []

  init() throws {
    let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(server, $0, length)
        listen(server, 0)
        return getsockname(server, $0, &length)
      }
    }
    port = Int(UInt16(bigEndian: address.sin_port))
    descriptors.append(server)
    // The one connection the queue holds.
    let first = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(first, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    descriptors.append(first)
  }

  deinit {
    for descriptor in descriptors { close(descriptor) }
  }
}

@Suite("framing responses with NIOHTTP1")
struct HTTPFramerTests {
  /// What the framer makes of `text`, handed to it 7 bytes at a time, then the end of the stream.
  private func frame(_ text: String, bodyLimit: Int = 1 << 20, method: HTTPMethod = .GET) throws
    -> (TransportResponse, clean: Bool)
  {
    let framer = try HTTPFramer(bodyLimit: bodyLimit)
    _ = try framer.encode(HTTPRequestHead(version: .http1_1, method: method, uri: "/"), body: nil)
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let slice = Array(bytes.prefix(7))
      bytes = bytes.dropFirst(7)
      if let response = try slice.withUnsafeBytes({ try framer.feed($0) }) {
        let rest = Array(bytes)
        _ = try rest.withUnsafeBytes { try framer.feed($0) }
        return (response, framer.isClean)
      }
    }
    return (try framer.endOfStream(), false)
  }

  private func failure(_ text: String, bodyLimit: Int = 1 << 20) -> TransportError? {
    do {
      _ = try frame(text, bodyLimit: bodyLimit)
      return nil
    } catch {
      return error as? TransportError
    }
  }

  @Test("a chunked body's trailer is read, an interim 100 is skipped, and the stream is clean")
  func trailerAndInterim() throws {
    let (response, clean) = try frame(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "2\r\nok\r\n3\r\n!!!\r\n0\r\nX-Checksum: 1\r\n\r\n")
    #expect(response.head.status.code == 200)
    #expect(String(buffer: response.body) == "ok!!!")
    #expect(clean)
  }

  @Test("a body read to the close ends with the stream; a HEAD's answer has no body")
  func closeAndHead() throws {
    let (closed, _) = try frame("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it")
    #expect(String(buffer: closed.body) == "all of it")
    let framer = try HTTPFramer()
    _ = try framer.encode(HTTPRequestHead(version: .http1_1, method: .HEAD, uri: "/"), body: nil)
    let head = try Array("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n".utf8).withUnsafeBytes {
      try framer.feed($0)
    }
    #expect(head?.body.readableBytes == 0)
    #expect(framer.isClean)
  }

  @Test("bytes after a whole response leave it whole and the connection unclean")
  func leftovers() throws {
    let (response, clean) = try frame(
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nSMUGGLED"
    )
    #expect(String(buffer: response.body) == "ok")
    #expect(!clean)
    #expect(try !frame("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokX").clean)
  }

  @Test("a status must be three digits from 100 to 599, and the reply must be HTTP")
  func statusLines() {
    for line in ["HTTP/1.1 -1 Bad", "HTTP/1.1 +20 OK", "HTTP/1.1 2000 OK", "HTTP/1.1 999 Odd"] {
      #expect(failure(line + "\r\nContent-Length: 0\r\n\r\n") == .badStatusLine(line), "\(line)")
    }
    #expect(
      failure("SSH-2.0-OpenSSH_9.2p1\r\n")
        == .notHTTP("SSH-2.0-OpenSSH_9.2p1"))
    #expect(
      failure("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nok") == .conflictingLengths(["-1"]))
  }

  @Test("every limit holds, and the error names it")
  func limits() {
    let fields = (0..<101).map { "X-F\($0): v\r\n" }.joined()
    #expect(
      failure("HTTP/1.1 200 OK\r\n\(fields)Content-Length: 0\r\n\r\n")
        == .tooManyFields(limit: 100))
    let big = String(repeating: "a", count: 90_000)
    #expect(failure("HTTP/1.1 200 OK\r\nX-Big: \(big)\r\n\r\n") == .headTooLarge(limit: 81_920))
    #expect(
      failure("HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n12345678901234567890", bodyLimit: 10)
        == .bodyTooLarge(limit: 10))
    let chunks = String(repeating: "5\r\nhello\r\n", count: 5)
    #expect(
      failure("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(chunks)", bodyLimit: 10)
        == .bodyTooLarge(limit: 10))
    #expect(
      failure("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n\(big)", bodyLimit: 10)
        == .bodyTooLarge(limit: 10))
    #expect(
      failure("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello!!")
        == .conflictingLengths(["5", "7"]))
  }

  @Test("a head framed by Transfer-Encoding and Content-Length is read as chunked, and marked")
  func framedTwoWays() throws {
    let framer = try HTTPFramer()
    _ = try framer.encode(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/"), body: nil)
    let text =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 100\r\n\r\n2\r\nok\r\n0\r\n\r\n"
    let response = try Array(text.utf8).withUnsafeBytes { try framer.feed($0) }
    #expect(response.map { String(buffer: $0.body) } == "ok")
    #expect(framer.framedTwoWays)
  }

  @Test("a framer frames the next exchange when the last response ended where its length said")
  func reuse() throws {
    let framer = try HTTPFramer()
    func exchange(_ method: HTTPMethod, _ text: String) throws -> String? {
      framer.reset(bodyLimit: 1 << 20)
      _ = try framer.encode(HTTPRequestHead(version: .http1_1, method: method, uri: "/"), body: nil)
      let response = try Array(text.utf8).withUnsafeBytes { try framer.feed($0) }
      return response.map { String(buffer: $0.body) }
    }
    #expect(try exchange(.GET, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") == "ok")
    #expect(framer.isClean && framer.isReusable)
    #expect(try exchange(.HEAD, "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n") == "")
    #expect(framer.isClean && framer.isReusable)
    #expect(try exchange(.GET, "HTTP/1.1 204 No Content\r\n\r\n") == "")
    #expect(framer.isClean && framer.isReusable)
    #expect(try exchange(.GET, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nyes") == "yes")
    #expect(framer.isClean && framer.isReusable)
    // A chunked body ends where the decoder says: clean, but the decoder was asked by closing it.
    let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"
    #expect(try exchange(.GET, chunked) == "ok")
    #expect(framer.isClean && !framer.isReusable)
  }

  @Test("a head of exactly the limit is read")
  func headAtTheLimit() throws {
    let prefix = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Pad: "
    let pad = String(repeating: "p", count: 81_920 - prefix.utf8.count - 4)
    let (response, _) = try frame(prefix + pad + "\r\n\r\n")
    #expect(response.head.status.code == 200)
  }
}

/// A server that answers the first request on each connection and keeps the connection open,
/// then closes it, unanswered, when a second request arrives on it: what a server that timed out
/// an idle keep-alive connection does to a client that sends on it at that moment.
private final class ClosingServer: @unchecked Sendable {
  let channel: Channel
  let counter: Counter
  var port: Int { channel.localAddress?.port ?? 0 }
  var accepted: Int { counter.value }

  final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
  }

  private init(channel: Channel, counter: Counter) {
    self.channel = channel
    self.counter = counter
  }

  /// A server whose answers are followed by `after`, bytes no request asked for.
  static func start(after: String = "") throws -> ClosingServer {
    let counter = Counter()
    let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { channel in
        counter.increment()
        return channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(Handler(after: after))
        }
      }
      .bind(host: "127.0.0.1", port: 0).wait()
    return ClosingServer(channel: channel, counter: counter)
  }

  func stop() { try? channel.close().wait() }

  private final class Handler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private var received = ""
    private var answered = 0
    private let after: String

    init(after: String) { self.after = after }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      var buffer = unwrapInboundIn(data)
      received += buffer.readString(length: buffer.readableBytes) ?? ""
      // A request ends with its blank line (GET) or with its two-byte body (POST).
      guard received.contains("\r\n\r\n") else { return }
      if received.hasPrefix("POST"), !received.hasSuffix("{}") { return }
      received = ""
      answered += 1
      guard answered == 1 else {
        context.close(promise: nil)
        return
      }
      let answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" + after
      context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer)), promise: nil)
    }
  }
}

@Suite("the pool of kept connections")
struct ConnectionPoolTests {
  final class Fake: @unchecked Sendable {
    let name: String
    var closed = false
    init(_ name: String) { self.name = name }
  }

  @Test("a full pool lets go of the connection that waited longest, whichever server it leads to")
  func evictsTheOldest() {
    let pool = ConnectionPool<Fake>(isOpen: { !$0.closed }, close: { $0.closed = true })
    let first = (0..<16).map { Fake("s\($0)") }
    for (index, connection) in first.enumerated() {
      #expect(pool.put(connection, server: "server\(index)"))
    }
    #expect(pool.idleCount == 16)
    // The seventeenth, to a server that has none waiting: server0's, the oldest, is closed.
    let newest = Fake("new")
    #expect(pool.put(newest, server: "server16"))
    #expect(pool.idleCount == 16)
    #expect(first[0].closed)
    #expect(first[1...].allSatisfy { !$0.closed })
    #expect(pool.take("server0") == nil)
    #expect(pool.take("server16") === newest)
  }

  @Test("a connection idle for 30 s is closed, not reused")
  func idleLimit() {
    let clock = LockedValue<UInt64>(0)
    let pool = ConnectionPool<Fake>(
      isOpen: { !$0.closed }, close: { $0.closed = true }, now: { clock.value })
    let old = Fake("old")
    #expect(pool.put(old, server: "a"))
    clock.value = 29_000_000_000
    let fresh = Fake("fresh")
    #expect(pool.put(fresh, server: "b"))
    clock.value = 31_000_000_000
    #expect(pool.take("a") == nil)
    #expect(old.closed)
    #expect(pool.take("b") === fresh)
  }

  @Test("a server keeps at most four; a fifth is refused, and the most recent is taken first")
  func perServer() {
    let pool = ConnectionPool<Fake>(isOpen: { !$0.closed }, close: { $0.closed = true })
    let kept = (0..<4).map { Fake("c\($0)") }
    for connection in kept { #expect(pool.put(connection, server: "a")) }
    #expect(!pool.put(Fake("c4"), server: "a"))
    #expect(pool.take("a") === kept[3])
    kept[2].closed = true
    // A connection that closed while it waited is passed over.
    #expect(pool.take("a") === kept[1])
  }
}

@Suite("a loopback port's availability")
struct LoopbackPortTests {
  @Test("a port a server listens on is taken; once it stops, the port is free again")
  func takenThenFree() throws {
    let api = try DemoAPI.start()
    let port = try #require(api.baseURL.port)
    #expect(!LoopbackPort.isFree(port))
    api.stop()
    var free = false
    for _ in 0..<500 where !free {
      free = LoopbackPort.isFree(port)
      if !free { Thread.sleep(forTimeInterval: 0.02) }
    }
    #expect(free)
    #expect(!LoopbackPort.isFree(0))
  }
}
