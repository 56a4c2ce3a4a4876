import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// What came back from one HTTP exchange.
struct TransportResponse: Sendable {
  /// The status line and headers.
  var head: HTTPResponseHead
  /// The whole body.
  var body: ByteBuffer
  /// Whether it came over a connection kept open from an earlier exchange.
  var reusedConnection = false
}

/// Why an exchange ended without a response.
enum TransportError: Error, Equatable {
  /// The connection closed before the whole response arrived.
  case dropped
  /// `cancel()` was called.
  case cancelled
  /// The whole exchange took longer than its timeout.
  case timedOut
  /// The URL is not an `http://` or `https://` URL with a host.
  case unsupportedURL
  /// Nothing listens at the server's port.
  case refused
}

/// HTTP/1.1 over SwiftNIO, the event loops the demo API already runs on, with keep-alive: a
/// connection whose response allows it goes back to a small pool, per host and port, and the next
/// request to that server reuses it.
///
/// This is NetworkController's transport. URLSession, which the seed wraps, comes on Linux from
/// FoundationNetworking, which loads libcurl and about 30 more shared libraries at every start-up
/// (about 7 ms of archsh's 10). AsyncHTTPClient avoids that too, but brings SwiftNIO's TLS and
/// HTTP/2 stacks, which doubled the clean build; archsh talks plain HTTP to its own API, and NIO's
/// HTTP/1 codec is all that takes.
///
/// A server may close a kept connection at any moment. When a request on a reused connection
/// gets no response at all because the connection closed, it is sent once more on a new
/// connection, if it is safe to repeat (GET, HEAD, OPTIONS, PUT, DELETE, TRACE: RFC 9110's
/// idempotent methods); any other request fails as dropped, as it would have without the pool.
enum HTTPTransport {
  /// Starts sending `method url` with `headers` and `body`; the exchange completes once.
  static func start(
    method: String, url: URL, headers: [String: String], body: Data?, connectTimeout: TimeAmount
  ) -> HTTPExchange {
    start(
      method: method, url: url,
      headers: headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) },
      body: body, connectTimeout: connectTimeout)
  }

  /// The request's wire form: its line, its headers, an empty line, and the body.
  static func bytes(of head: HTTPRequestHead, body: Data?) -> [UInt8] {
    var request = "\(head.method.rawValue) \(head.uri) HTTP/1.1\r\n"
    for (name, value) in head.headers { request += "\(name): \(value)\r\n" }
    request += "\r\n"
    var bytes = Array(request.utf8)
    if let body { bytes += body }
    return bytes
  }

  /// Where `url` leads, and the head of a request for it; nil for a URL that is not `http://`
  /// or `https://` with a host.
  static func request(
    method: String, url: URL, headers: [(name: String, value: String)], body: Data?
  ) -> (host: String, port: Int, isTLS: Bool, head: HTTPRequestHead)? {
    guard url.scheme == "http" || url.scheme == "https", let host = url.host, !host.isEmpty else {
      return nil
    }
    let isTLS = url.scheme == "https"
    let port = url.port ?? (isTLS ? 443 : 80)
    var target = url.path.isEmpty ? "/" : url.path
    if let query = url.query { target += "?" + query }
    var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: target)
    head.headers.add(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)
    head.headers.add(name: "User-Agent", value: "archsh")
    for (name, value) in headers { head.headers.replaceOrAdd(name: name, value: value) }
    if let body { head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count)) }
    return (host, port, isTLS, head)
  }

  /// The methods a request may be repeated with, when a kept connection closed under it.
  static let idempotentMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"]

  /// Starts sending `method url` with `headers`, in their order, and `body`.
  static func start(
    method: String, url: URL, headers: [(name: String, value: String)], body: Data?,
    connectTimeout: TimeAmount
  ) -> HTTPExchange {
    guard
      let (host, port, isTLS, requestHead) = request(
        method: method, url: url, headers: headers, body: body)
    else {
      let exchange = HTTPExchange(
        eventLoop: MultiThreadedEventLoopGroup.singleton.next(), server: "", retryable: false)
      exchange.finish(.failure(TransportError.unsupportedURL))
      return exchange
    }
    let server = "\(host):\(port)"

    if isTLS {
      let exchange = HTTPExchange(
        eventLoop: MultiThreadedEventLoopGroup.singleton.next(), server: server, retryable: false)
      TLSTransport.start(
        exchange: exchange, host: host, port: port, head: requestHead, body: body,
        timeout: connectTimeout)
      return exchange
    }

    let pooled = ConnectionPools.plain.take(server)
    let eventLoop = pooled?.channel.eventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
    let exchange = HTTPExchange(
      eventLoop: eventLoop, server: server,
      retryable: idempotentMethods.contains(method.uppercased()) && requestHead.isKeepAlive)
    exchange.keepsConnection = requestHead.isKeepAlive
    let send: @Sendable (Connection) -> Void = { connection in
      guard exchange.attach(connection) else { return }
      let channel = connection.channel
      channel.write(HTTPClientRequestPart.head(requestHead), promise: nil)
      if let body {
        channel.write(
          HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
      }
      channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
    }
    exchange.reconnect = {
      let router = ResponseRouter()
      ClientBootstrap(group: eventLoop)
        .connectTimeout(connectTimeout)
        .channelOption(.socketOption(.tcp_nodelay), value: 1)
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHTTPClientHandlers()
            try channel.pipeline.syncOperations.addHandler(router)
          }
        }
        .connect(host: host, port: port)
        .whenComplete { result in
          switch result {
          case .failure(let error): exchange.finish(.failure(error))
          case .success(let channel): send(Connection(channel: channel, router: router))
          }
        }
    }
    if let pooled {
      exchange.reused = true
      eventLoop.execute { send(pooled) }
    } else {
      eventLoop.execute { exchange.reconnect?() }
    }
    return exchange
  }
}

/// An open connection and the handler that gives its responses to the exchange using it.
final class Connection: @unchecked Sendable {
  let channel: Channel
  let router: ResponseRouter

  init(channel: Channel, router: ResponseRouter) {
    self.channel = channel
    self.router = router
  }
}

/// The connections kept open between requests, per server: plain HTTP's by `host:port`, and
/// HTTPS's by `host:port` and CA file (`ConnectionPools`).
///
/// At most 4 idle ones per server and 16 in all. A fifth to one server is closed; a connection
/// that would pass the total takes the place of the one that has waited longest, whichever server
/// it leads to, so that the server being talked to now keeps its connection. A connection the
/// server closed while it waited is dropped when it is next asked for, if `isOpen` can tell.
final class ConnectionPool<Kept: AnyObject>: @unchecked Sendable {
  static var perServer: Int { 4 }
  static var total: Int { 16 }

  private struct Entry {
    let connection: Kept
    /// When it was put back: the smallest has waited longest.
    let stamp: UInt64
  }

  private let isOpen: @Sendable (Kept) -> Bool
  private let close: @Sendable (Kept) -> Void
  private let lock = NSLock()
  private var idle: [String: [Entry]] = [:]
  private var count = 0
  private var clock: UInt64 = 0

  /// A pool that keeps only connections `isOpen` says are still open, and ends the ones it lets
  /// go with `close`.
  init(isOpen: @escaping @Sendable (Kept) -> Bool, close: @escaping @Sendable (Kept) -> Void) {
    self.isOpen = isOpen
    self.close = close
  }

  /// An idle connection to `server` that is still open, if there is one.
  func take(_ server: String) -> Kept? {
    lock.withLock {
      while var list = idle[server], let entry = list.popLast() {
        idle[server] = list.isEmpty ? nil : list
        count -= 1
        if isOpen(entry.connection) { return entry.connection }
        close(entry.connection)
      }
      return nil
    }
  }

  /// Keeps `connection` for the next request to `server`; false when that server has as many
  /// waiting as it may.
  func put(_ connection: Kept, server: String) -> Bool {
    guard isOpen(connection) else { return false }
    let evicted: Kept? = lock.withLock {
      guard idle[server, default: []].count < Self.perServer else { return connection }
      var evicted: Kept?
      if count >= Self.total,
        let oldest = idle.min(by: {
          ($0.value.first?.stamp ?? .max) < ($1.value.first?.stamp ?? .max)
        })
      {
        var list = oldest.value
        evicted = list.removeFirst().connection
        idle[oldest.key] = list.isEmpty ? nil : list
        count -= 1
      }
      clock += 1
      idle[server, default: []].append(Entry(connection: connection, stamp: clock))
      count += 1
      return evicted
    }
    guard let evicted else { return true }
    if evicted === connection { return false }
    close(evicted)
    return true
  }

  /// How many connections wait, for tests.
  var idleCount: Int { lock.withLock { count } }
}

/// The process's pools of kept connections.
enum ConnectionPools {
  /// Plain HTTP's, on NIO channels.
  static let plain = ConnectionPool<Connection>(
    isOpen: { $0.channel.isActive }, close: { $0.channel.close(promise: nil) })
  /// HTTPS's blocking connections; one the server closed is found out when it is next used.
  static let tls = ConnectionPool<SocketConnection>(isOpen: { _ in true }, close: { $0.close() })
  /// Plain HTTP's blocking connections, which NetworkController uses on its caller's thread; one
  /// with anything to read (the server closed it, or sent more than was asked) is let go.
  static let socket = ConnectionPool<SocketConnection>(
    isOpen: { $0.isQuiet }, close: { $0.close() })
}

/// One request in flight: its result, and a way to cancel it.
///
/// Its state is touched only on its event loop, which is what makes it safe to share.
final class HTTPExchange: @unchecked Sendable {
  /// The loop the connection runs on.
  let eventLoop: EventLoop
  /// `host:port`, where a kept connection goes back to.
  let server: String
  /// Whether the request may be sent again when a kept connection closed under it.
  let retryable: Bool
  /// Whether the request allows its connection to be kept.
  var keepsConnection = true
  /// Whether it was sent on a kept connection.
  var reused = false
  /// Opens a new connection and sends the request on it.
  var reconnect: (@Sendable () -> Void)?
  /// Makes a blocked HTTPS read or write return, when the exchange is cancelled.
  var abort: (@Sendable () -> Void)?
  private let promise: EventLoopPromise<TransportResponse>
  private var isFinished = false
  private var receivedHead = false
  private var retried = false
  private var connection: Connection?

  init(eventLoop: EventLoop, server: String, retryable: Bool) {
    self.eventLoop = eventLoop
    self.server = server
    self.retryable = retryable
    promise = eventLoop.makePromise()
  }

  /// The response, or why there is none.
  var result: EventLoopFuture<TransportResponse> { promise.futureResult }

  /// The response's head arrived: the request was taken, so it is never sent again.
  func headArrived() { receivedHead = true }

  /// Completes the exchange once; later calls do nothing.
  ///
  /// A connection both sides allow to keep goes back to the pool; any other is closed.
  func finish(_ result: Result<TransportResponse, Error>) {
    guard eventLoop.inEventLoop else {
      eventLoop.execute { self.finish(result) }
      return
    }
    guard !isFinished else { return }
    if case .failure(TransportError.dropped) = result, reused, !receivedHead, retryable, !retried,
      let reconnect
    {
      // The server closed the kept connection before it answered: once more, on a new one.
      retried = true
      reused = false
      connection?.router.exchange = nil
      connection?.channel.close(promise: nil)
      connection = nil
      reconnect()
      return
    }
    isFinished = true
    reconnect = nil
    if case .failure = result, let abort {
      abort()
    }
    abort = nil
    var keep = false
    if case .success(let response) = result {
      keep = keepsConnection && response.head.isKeepAlive
    }
    // The connection goes back to the pool before the result is given: a request that its
    // caller sends at once, such as OAuth2's refresh after a 401, then always finds it.
    if let connection {
      self.connection = nil
      connection.router.exchange = nil
      if !keep || !ConnectionPools.plain.put(connection, server: server) {
        connection.channel.close(promise: nil)
      }
    }
    switch result {
    case .success(var response):
      // An HTTPS exchange says itself whether its connection was kept (TLSTransport).
      if reused { response.reusedConnection = true }
      promise.succeed(response)
    case .failure(let error):
      promise.fail(error)
    }
  }

  /// Sets what makes a blocked HTTPS read or write return; called at once when the exchange has
  /// ended already.
  func setAbort(_ abort: @escaping @Sendable () -> Void) {
    guard eventLoop.inEventLoop else {
      eventLoop.execute { self.setAbort(abort) }
      return
    }
    if isFinished { abort() } else { self.abort = abort }
  }

  /// Ends the exchange with `cancelled`, closing the connection.
  func cancel() { finish(.failure(TransportError.cancelled)) }

  /// Records the connection; false, and the connection closed, when the exchange already ended.
  fileprivate func attach(_ connection: Connection) -> Bool {
    eventLoop.preconditionInEventLoop()
    guard !isFinished else {
      connection.channel.close(promise: nil)
      return false
    }
    self.connection = connection
    connection.router.exchange = self
    // A kept connection that closed while it waited in the pool: the drop is noticed at once.
    if !connection.channel.isActive {
      finish(.failure(TransportError.dropped))
      return false
    }
    return true
  }
}

/// The handler at the end of a connection's pipeline: gathers each response's head and body for
/// the exchange using the connection, and ends it when the response is whole, the connection
/// drops, or an error arrives.
final class ResponseRouter: ChannelInboundHandler, @unchecked Sendable {
  typealias InboundIn = HTTPClientResponsePart

  /// The exchange the next response belongs to; nil while the connection waits in the pool.
  var exchange: HTTPExchange?
  private var head: HTTPResponseHead?
  private var body = ByteBuffer()

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head):
      self.head = head
      body.clear()
      exchange?.headArrived()
    case .body(var part):
      body.writeBuffer(&part)
    case .end:
      guard let head else { return }
      self.head = nil
      let response = TransportResponse(head: head, body: body)
      body = ByteBuffer()
      exchange?.finish(.success(response))
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    exchange?.finish(.failure(TransportError.dropped))
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) {
    // The connection closing before a whole response reaches the decoder as its end-of-stream
    // error: that is a drop, which a request on a kept connection may be sent again after.
    let dropped = (error as? HTTPParserError) == .invalidEOFState
    exchange?.finish(.failure(dropped ? TransportError.dropped : error))
    context.close(promise: nil)
  }
}
