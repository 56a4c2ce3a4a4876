import CTLS
import DemoAPI
import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import Domain

/// HTTPTransport keeps connections open and reuses them, against the demo API over real HTTP.
@Suite("keep-alive in HTTPTransport", .serialized)
struct KeepAliveTests {
  private func send(_ method: String, _ url: URL) async -> Result<TransportResponse, Error> {
    await offPool {
      let exchange = HTTPTransport.start(
        method: method, url: url, headers: [:], body: method == "POST" ? Data("{}".utf8) : nil,
        connectTimeout: .seconds(5))
      return Result { try exchange.result.wait() }
    }
  }

  @Test("a second request to the same server goes over the connection the first one kept")
  func reuse() async throws {
    // A server of its own: no test running alongside takes the connection this one kept.
    let api = try DemoAPI.start()
    defer { api.stop() }
    let url = api.baseURL.appendingPathComponent("products/1")
    _ = try await send("GET", url).get()
    let second = try await send("GET", url).get()
    #expect(second.head.status.code == 200)
    #expect(second.reusedConnection)
    #expect(ConnectionPools.plain.idleCount >= 1)
  }

  @Test(
    "a GET on a kept connection that the server closes unanswered is sent once more, on a new connection"
  )
  func retriesASafeRequest() async throws {
    let server = try ClosingServer.start()
    defer { server.stop() }
    let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/a"))
    #expect(try await send("GET", url).get().head.status.code == 200)
    let retried = try await send("GET", url).get()
    #expect(retried.head.status.code == 200)
    #expect(!retried.reusedConnection)
    #expect(server.accepted == 2)
  }

  @Test("a POST on a kept connection that the server closes unanswered is not sent again")
  func doesNotRetryAnUnsafeRequest() async throws {
    let server = try ClosingServer.start()
    defer { server.stop() }
    let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/a"))
    _ = try await send("GET", url).get()
    let result = await send("POST", url)
    #expect(throws: TransportError.dropped) { try result.get() }
    #expect(server.accepted == 1)
  }

  @Test("a response that was cut off halfway is never sent again, even for a GET")
  func doesNotRetryAfterAnAnswerBegan() async throws {
    let api = try await TestServer.shared.get()
    let url = api.baseURL.appendingPathComponent("products/2")
    _ = try await send("GET", url).get()
    // The demo API's drop sends a head and part of a body, then closes.
    api.faults.add(Fault(method: "GET", path: "/products/2", kind: .drop))
    let result = await send("GET", url)
    #expect(throws: TransportError.dropped) { try result.get() }
  }
}

/// SocketTransport, NetworkController's plain HTTP on the calling thread, against real servers.
@Suite("plain HTTP on the calling thread", .serialized)
struct SocketTransportTests {
  private func send(
    _ method: String, _ url: URL, seconds: Double = 5,
    isCancelled: @escaping @Sendable () -> Bool = { false }
  ) -> Result<TransportResponse, Error> {
    SocketTransport.perform(
      method: method, url: url, headers: [], body: method == "POST" ? Data("{}".utf8) : nil,
      deadline: DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1_000_000_000),
      isCancelled: isCancelled)
  }

  @Test("a second request goes over the connection the first one kept")
  func reuse() throws {
    let api = try DemoAPI.start()
    defer { api.stop() }
    let url = api.baseURL.appendingPathComponent("products/1")
    let first = try send("GET", url).get()
    let second = try send("GET", url).get()
    #expect(first.head.status.code == 200 && !first.reusedConnection)
    #expect(second.head.status.code == 200 && second.reusedConnection)
    #expect(String(buffer: second.body).contains("\"id\":1"))
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

  @Test("nothing listening is refused; a name that does not resolve says so")
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
    let cancelled = SocketTransport.perform(
      method: "GET", url: url, headers: [], body: nil,
      deadline: DispatchTime.now().uptimeNanoseconds + 5_000_000_000,
      isCancelled: { Date().timeIntervalSince(start) > 0.1 })
    #expect(throws: TransportError.cancelled) { try cancelled.get() }
    #expect(Date().timeIntervalSince(start) < 1)
    let timed = SocketTransport.perform(
      method: "GET", url: url, headers: [], body: nil,
      deadline: DispatchTime.now().uptimeNanoseconds + 200_000_000, isCancelled: { false })
    #expect(throws: TransportError.timedOut) { try timed.get() }
    #expect(Date().timeIntervalSince(start) < 2)
    // The C call says which wait ended it.
    var error = [CChar](repeating: 0, count: 256)
    var failure: Int32 = 0
    #expect(archsh_plain_connect(slowName, 80, 100, &error, error.count, &failure, nil, nil) == nil)
    #expect(failure == ETIMEDOUT)
    #expect(String(cMessage: error) == "cannot resolve \(slowName): no answer within 100 ms")
    // Other names still resolve through getaddrinfo.
    let api = try DemoAPI.start()
    defer { api.stop() }
    let port = try #require(api.baseURL.port)
    let local = try #require(URL(string: "http://localhost:\(port)/products/1"))
    let answer = SocketTransport.perform(
      method: "GET", url: local, headers: [], body: nil,
      deadline: DispatchTime.now().uptimeNanoseconds + 5_000_000_000, isCancelled: { false })
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

@Suite("the HTTP/1.1 response reader")
struct ResponseReaderTests {
  /// A reader over `text`, handed out 7 bytes at a time.
  private func reader(_ text: String) -> HTTPResponseReader {
    var bytes = Array(text.utf8)[...]
    return HTTPResponseReader { buffer in
      let count = min(7, bytes.count, buffer.count)
      for index in 0..<count { buffer[index] = bytes[bytes.startIndex + index] }
      bytes = bytes.dropFirst(count)
      return count
    }
  }

  @Test("a length no answer could have ends the exchange as dropped, not the process")
  func impossibleLengths() {
    for text in [
      "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nok",
      "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999\r\n\r\nok",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\nok\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-2\r\nok\r\n",
    ] {
      var reader = reader(text)
      #expect(throws: TransportError.dropped) { try reader.response() }
    }
  }

  @Test(
    "a chunked body's trailer is read, an interim 100 is skipped, and the stream is left drained")
  func trailerAndInterim() throws {
    var reader = reader(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "2\r\nok\r\n3\r\n!!!\r\n0\r\nX-Checksum: 1\r\n\r\n")
    let response = try reader.response()
    #expect(response.head.status.code == 200)
    #expect(String(buffer: response.body) == "ok!!!")
    #expect(reader.isDrained)
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
