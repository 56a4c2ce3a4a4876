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
}

/// Why an exchange ended without a response.
enum TransportError: Error, Equatable {
  /// The connection closed before the whole response arrived.
  case dropped
  /// `cancel()` was called.
  case cancelled
  /// The whole exchange took longer than its timeout.
  case timedOut
  /// The URL is not an `http://` URL with a host.
  case unsupportedURL
}

/// HTTP/1.1 over SwiftNIO, the event loops the demo API already runs on: one request on its own
/// connection, answered in full.
///
/// This is NetworkController's transport. URLSession, which the seed wraps, comes on Linux from
/// FoundationNetworking, which loads libcurl and about 30 more shared libraries at every start-up
/// (about 7 ms of archsh's 10). AsyncHTTPClient avoids that too, but brings SwiftNIO's TLS and
/// HTTP/2 stacks, which doubled the clean build; archsh talks plain HTTP to its own API, and NIO's
/// HTTP/1 codec is all that takes.
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

  /// Starts sending `method url` with `headers`, in their order, and `body`.
  static func start(
    method: String, url: URL, headers: [(name: String, value: String)], body: Data?,
    connectTimeout: TimeAmount
  ) -> HTTPExchange {
    let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
    let exchange = HTTPExchange(eventLoop: eventLoop)
    guard url.scheme == "http", let host = url.host, !host.isEmpty else {
      exchange.finish(.failure(TransportError.unsupportedURL))
      return exchange
    }
    let port = url.port ?? 80
    var target = url.path.isEmpty ? "/" : url.path
    if let query = url.query { target += "?" + query }
    var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: target)
    head.headers.add(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)
    head.headers.add(name: "User-Agent", value: "archsh")
    head.headers.add(name: "Connection", value: "close")
    for (name, value) in headers { head.headers.replaceOrAdd(name: name, value: value) }
    if let body { head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count)) }
    let requestHead = head

    let connection = ClientBootstrap(group: eventLoop)
      .connectTimeout(connectTimeout)
      .channelOption(.socketOption(.tcp_nodelay), value: 1)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHTTPClientHandlers()
          try channel.pipeline.syncOperations.addHandler(ResponseCollector(exchange: exchange))
        }
      }
      .connect(host: host, port: port)
    connection.whenComplete { result in
      switch result {
      case .failure(let error):
        exchange.finish(.failure(error))
      case .success(let channel):
        guard exchange.attach(channel) else { return }
        channel.write(HTTPClientRequestPart.head(requestHead), promise: nil)
        if let body {
          channel.write(
            HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
        }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
      }
    }
    return exchange
  }
}

/// One request in flight: its result, and a way to cancel it.
///
/// Its state is touched only on its event loop, which is what makes it safe to share.
final class HTTPExchange: @unchecked Sendable {
  /// The loop the connection runs on.
  let eventLoop: EventLoop
  private let promise: EventLoopPromise<TransportResponse>
  private var isFinished = false
  private var channel: Channel?

  init(eventLoop: EventLoop) {
    self.eventLoop = eventLoop
    promise = eventLoop.makePromise()
  }

  /// The response, or why there is none.
  var result: EventLoopFuture<TransportResponse> { promise.futureResult }

  /// Completes the exchange once and closes its connection; later calls do nothing.
  func finish(_ result: Result<TransportResponse, Error>) {
    guard eventLoop.inEventLoop else {
      eventLoop.execute { self.finish(result) }
      return
    }
    guard !isFinished else { return }
    isFinished = true
    promise.completeWith(result)
    channel?.close(promise: nil)
    channel = nil
  }

  /// Ends the exchange with `cancelled`, closing the connection.
  func cancel() { finish(.failure(TransportError.cancelled)) }

  /// Records the connection; false, and the connection closed, when the exchange already ended.
  fileprivate func attach(_ channel: Channel) -> Bool {
    eventLoop.preconditionInEventLoop()
    guard !isFinished else {
      channel.close(promise: nil)
      return false
    }
    self.channel = channel
    return true
  }
}

/// Gathers the response head and body, and ends the exchange when the response is whole, the
/// connection drops, or an error arrives.
private final class ResponseCollector: ChannelInboundHandler {
  typealias InboundIn = HTTPClientResponsePart

  private let exchange: HTTPExchange
  private var head: HTTPResponseHead?
  private var body = ByteBuffer()

  init(exchange: HTTPExchange) {
    self.exchange = exchange
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head):
      self.head = head
    case .body(var part):
      body.writeBuffer(&part)
    case .end:
      guard let head else { return }
      exchange.finish(.success(TransportResponse(head: head, body: body)))
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    exchange.finish(.failure(TransportError.dropped))
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) {
    exchange.finish(.failure(error))
    context.close(promise: nil)
  }
}
