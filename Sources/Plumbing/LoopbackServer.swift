import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A request a loopback server received whole: its head and its body.
public struct ServerRequest: Sendable {
  /// The method, such as `GET`.
  public let method: String
  /// The path, without its query, as it was sent (not percent-decoded).
  public var path: String
  /// The query as it was sent, after its `?`; nil without one.
  public let queryString: String?
  /// The query's fields in order: a name as sent, its value percent-decoded (as sent when it
  /// cannot be), and an empty value for a field without `=`.
  public let query: [(name: String, value: String)]
  /// The header fields in order, names lowercased, without the `Host` field (see `authority`).
  public var headers: [(name: String, value: String)]
  /// The first `Host` field: the authority the request was sent to.
  public let authority: String?
  /// The body.
  public let body: [UInt8]
  /// The port of the server it came to.
  public let port: Int

  /// Takes a request that came to the server on `port` apart.
  public init(
    method: String, target: String, headers: [(name: String, value: String)], body: [UInt8],
    port: Int
  ) {
    self.method = method
    self.port = port
    // A fragment is not part of the request; an absolute-form target (`http://host/path`) names
    // its path after the authority. The usual origin-form (`/path`) is not searched: Foundation's
    // `range(of:)` goes through NSString, on every request.
    var target = target.firstIndex(of: "#").map { target[..<$0] } ?? target[...]
    if target.first != "/", let scheme = target.range(of: "://"),
      !target[..<scheme.lowerBound].contains("/")
    {
      let rest = target[scheme.upperBound...]
      target = rest.firstIndex(where: { $0 == "/" || $0 == "?" }).map { rest[$0...] } ?? ""
    }
    let (path, query) =
      target.firstIndex(of: "?").map { (target[..<$0], target[$0...].dropFirst()) }
      ?? (target[...], nil)
    self.path = path.isEmpty ? "/" : String(path)
    self.queryString = query.map(String.init)
    self.query = (query?.split(separator: "&") ?? []).map { field in
      guard let equals = field.firstIndex(of: "=") else { return (String(field), "") }
      let value = field[field.index(after: equals)...]
      return (String(field[..<equals]), value.removingPercentEncoding ?? String(value))
    }
    var fields: [(name: String, value: String)] = []
    var authority: String?
    for (name, value) in headers {
      let lower = name.lowercased()
      if lower == "host", authority == nil {
        authority = value
      } else {
        fields.append((lower, value))
      }
    }
    self.headers = fields
    self.authority = authority
    self.body = body
  }

  /// Whether its `Host` names this server, `127.0.0.1:PORT` or `localhost:PORT`: against DNS
  /// rebinding, where a page whose own name was made to resolve to 127.0.0.1 still sends that name.
  public var namesThisServer: Bool {
    authority == "127.0.0.1:\(port)" || authority == "localhost:\(port)"
  }

  /// The first value of a header field, by its name in lowercase.
  public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

  /// The first value of a query field.
  public func query(_ name: String) -> String? { query.first { $0.name == name }?.value }
}

/// What a loopback server answers a request with.
public struct ServerResponse: Sendable {
  /// How the body goes out.
  public enum Body: Sendable {
    /// These bytes, with their `Content-Length`.
    case bytes([UInt8])
    /// The head as given (whose `Content-Length` promises more), these bytes, and then the
    /// connection closes: an answer cut off.
    case cut([UInt8])
    /// Chunks, as the closure writes them, until it returns.
    case stream(@Sendable (ServerStream) async -> Void)
  }

  /// The status code.
  public var status: Int
  /// The header fields.
  public var headers: [(name: String, value: String)]
  /// The body.
  public var body: Body
  /// Seconds to wait before the answer is made and goes out.
  public private(set) var delay: Double = 0
  /// What makes the answer once the delay has passed, for `after`.
  private(set) var deferred: (@Sendable () -> ServerResponse)?

  /// An answer.
  public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// The answer `make` makes `seconds` from now: a route run after a delay sees the state of
  /// that moment (a token that expired meanwhile is refused), as a slow server would.
  public static func after(
    _ seconds: Double, _ make: @escaping @Sendable () -> ServerResponse
  ) -> ServerResponse {
    var response = ServerResponse(status: 503)
    response.delay = seconds
    response.deferred = make
    return response
  }

  /// An answer whose body is `text`, of the type given.
  public init(status: Int, contentType: String, _ text: String) {
    self.init(
      status: status, headers: [("Content-Type", contentType)], body: .bytes(Array(text.utf8)))
  }
}

/// Where a streamed answer writes its chunks: from a task on the servers' own threads
/// (`ServerThreads`), never waiting on Swift's cooperative pool.
public struct ServerStream: Sendable {
  let channel: Channel

  /// Writes a chunk, and waits until it is written; false once the connection has gone.
  public func write(_ buffer: ByteBuffer) async -> Bool {
    do {
      try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer))).get()
      return true
    } catch {
      return false
    }
  }
}

/// Why a loopback server did not start.
public struct ServerStartError: Error {
  /// What the system said.
  public let underlying: Error
}

/// An HTTP/1.1 server on 127.0.0.1, on SwiftNIO's server pipeline (NIOHTTP1): the demo API and the
/// board run on it.
///
/// It reads a request whole (its body up to `bodyLimit`, past which it answers 413 and closes),
/// hands it to the responder on its event loop, and writes the answer, keeping the connection for
/// the next request unless either side asked to close. A connection that sends no complete request
/// for `idleTimeout` (from when it opened, or from its last answer) is closed, so that a head sent
/// a byte at a time holds nothing for long; an answer being streamed is not idle.
public final class LoopbackServer: Sendable {
  /// The port it listens on.
  public let port: Int
  private let listener: Channel
  private let connections: Connections

  /// The event loops every loopback server in the process shares, apart from the client's.
  static let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)

  private init(port: Int, listener: Channel, connections: Connections) {
    self.port = port
    self.listener = listener
    self.connections = connections
  }

  /// Starts listening on 127.0.0.1:`port` (0 picks a free port), and returns once it listens.
  public static func start(
    port: Int, name: String, bodyLimit: Int, idleTimeout: TimeAmount,
    responder: @escaping @Sendable (ServerRequest) -> ServerResponse
  ) throws(ServerStartError) -> LoopbackServer {
    let connections = Connections()
    let settings = ServerSettings(
      name: name, bodyLimit: bodyLimit, idleTimeout: idleTimeout, responder: responder)
    let bootstrap = ServerBootstrap(group: group)
      .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
      .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
      .childChannelInitializer { channel in
        guard connections.add(channel) else {
          return channel.close()
        }
        return channel.eventLoop.makeCompletedFuture {
          let pipeline = channel.pipeline.syncOperations
          try pipeline.configureHTTPServerPipeline(
            withPipeliningAssistance: true, withErrorHandling: true)
          try pipeline.addHandler(ServerHandler(settings: settings))
        }
      }
    do {
      let listener = try bootstrap.bind(host: "127.0.0.1", port: port).wait()
      guard let bound = listener.localAddress?.port else {
        listener.close(promise: nil)
        throw ServerStartError(underlying: ChannelError.unknownLocalAddress)
      }
      return LoopbackServer(port: bound, listener: listener, connections: connections)
    } catch let error as ServerStartError {
      throw error
    } catch {
      throw ServerStartError(underlying: error)
    }
  }

  /// Stops listening and closes the connections, and returns at once.
  ///
  /// An idle connection closes at once, a busy one once its answer is out.
  public func stop() {
    listener.close(promise: nil)
    for channel in connections.stop() {
      channel.pipeline.fireUserInboundEventTriggered(ServerHandler.Stop())
    }
  }
}

/// The connections a server has open, and whether it has stopped.
final class Connections: Sendable {
  private let state = Mutex<(open: [ObjectIdentifier: Channel], stopped: Bool)>(([:], false))

  /// Counts a new connection in; false once the server has stopped (it is then closed).
  func add(_ channel: Channel) -> Bool {
    let key = ObjectIdentifier(channel)
    let added = state.withLock { state in
      guard !state.stopped else { return false }
      state.open[key] = channel
      return true
    }
    guard added else { return false }
    channel.closeFuture.whenComplete { [weak self] _ in
      _ = self?.state.withLock { $0.open.removeValue(forKey: key) }
    }
    return true
  }

  /// Marks the server stopped, and returns the connections open now: a connection accepted
  /// later is closed as it opens.
  func stop() -> [Channel] {
    state.withLock { state in
      state.stopped = true
      return Array(state.open.values)
    }
  }
}

/// The `Date` an answer carries (RFC 9110's IMF-fixdate, such as `Sun, 06 Nov 1994 08:49:37
/// GMT`), formatted once a second.
enum HTTPDate {
  private static let cache = Mutex<(second: Int, text: String)>((-1, ""))
  private static let formatter: DateFormatter = {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter
  }()

  static func now() -> String {
    let now = Date()
    let second = Int(now.timeIntervalSince1970)
    return cache.withLock { cache in
      if cache.second != second { cache = (second, formatter.string(from: now)) }
      return cache.text
    }
  }
}

/// What every connection of one server shares.
struct ServerSettings: Sendable {
  let name: String
  let bodyLimit: Int
  let idleTimeout: TimeAmount
  let responder: @Sendable (ServerRequest) -> ServerResponse
}

/// One connection's requests and answers, on its event loop.
///
/// NIO's pipelining handler passes on the next request only once the last answer's end is
/// written, and may do so from inside that write: the state is settled before the end goes out,
/// and each answer is started from the event loop's queue, never from inside another's write.
final class ServerHandler: ChannelInboundHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  /// Sent down each connection when its server stops.
  struct Stop: Sendable {}

  private let settings: ServerSettings
  private var head: HTTPRequestHead?
  private var body: [UInt8] = []
  /// A request refused (its body too large): it is answered 413 and the output closed, and the
  /// rest of it is read and dropped, so that the client sees the answer rather than a reset.
  private var refused = false
  /// Between a request's head and the end of its answer.
  private var busy = false
  private var stopping = false
  private var idleTimer: Scheduled<Void>?
  private var stream: Task<Void, Never>?
  /// The server's port, which every request on this connection came to.
  private var port = 0

  init(settings: ServerSettings) { self.settings = settings }

  func channelActive(context: ChannelHandlerContext) {
    port = context.channel.localAddress?.port ?? 0
    armIdleTimer(context)
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    idleTimer?.cancel()
    stream?.cancel()
    context.fireChannelInactive()
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    guard event is Stop else { return context.fireUserInboundEventTriggered(event) }
    stopping = true
    if !busy { context.close(promise: nil) }
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) {
    context.close(promise: nil)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head):
      guard !refused else { return }
      busy = true
      body = []
      self.head = head
      if let length = head.headers.first(name: "content-length").flatMap(Int.init),
        length > settings.bodyLimit
      {
        refuse(context)
      }
    case .body(var buffer):
      guard !refused else { return }
      guard body.count + buffer.readableBytes <= settings.bodyLimit else { return refuse(context) }
      body += buffer.readBytes(length: buffer.readableBytes) ?? []
    case .end:
      guard !refused else { return context.close(promise: nil) }
      guard let head else { return }
      // The request is complete: its answer may take as long as it takes (a stream stays open).
      idleTimer?.cancel()
      self.head = nil
      let request = ServerRequest(
        method: head.method.rawValue, target: head.uri,
        headers: head.headers.map { ($0.name, $0.value) }, body: body, port: port)
      body = []
      let response = settings.responder(request)
      let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
      let send: @Sendable () -> Void = {
        let (handler, context) = bound.value
        guard context.channel.isActive else { return }
        handler.answer(response.deferred?() ?? response, to: head, context)
      }
      if response.delay > 0 {
        context.eventLoop.scheduleTask(in: .nanoseconds(Int64(response.delay * 1e9)), send)
      } else {
        context.eventLoop.execute(send)
      }
    }
  }

  /// Answers 413 to a body over the limit and closes the output; what is left of the request is
  /// read and dropped until it ends (then the connection closes) or the idle time runs out.
  private func refuse(_ context: ChannelHandlerContext) {
    refused = true
    head = nil
    body = []
    let text = "the body is larger than \(settings.bodyLimit) bytes\n"
    let headers = HTTPHeaders([
      ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(text.utf8.count)),
      ("Connection", "close"), ("Date", HTTPDate.now()), ("Server", settings.name),
    ])
    context.write(
      wrapOutboundOut(
        .head(HTTPResponseHead(version: .http1_1, status: .payloadTooLarge, headers: headers))),
      promise: nil)
    context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
    let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
      bound.value.close(mode: .output, promise: nil)
    }
    armIdleTimer(context)
  }

  private func answer(
    _ response: ServerResponse, to request: HTTPRequestHead, _ context: ChannelHandlerContext
  ) {
    var response = response
    // A 1xx is not an answer (NIO's server pipeline stops the process on a body after one).
    if response.status < 200 {
      response = ServerResponse(
        status: 500, contentType: "text/plain; charset=utf-8",
        "a server answers with a final status, not \(response.status)\n")
    }
    let old = request.version.major == 1 && request.version.minor == 0
    var keepAlive = request.isKeepAlive && !stopping
    // HTTP/1.0 has no chunks: a stream ends when the connection does.
    if case .stream = response.body, old { keepAlive = false }
    // 204 and 304 have no body, and no Content-Length.
    let bodyless = response.status == 204 || response.status == 304
    var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
    if case .bytes(let bytes) = response.body, !bodyless,
      !headers.contains(name: "content-length")
    {
      headers.add(name: "Content-Length", value: String(bytes.count))
    }
    headers.replaceOrAdd(name: "Date", value: HTTPDate.now())
    headers.replaceOrAdd(name: "Server", value: settings.name)
    if !keepAlive {
      headers.replaceOrAdd(name: "Connection", value: "close")
    } else if old {
      // HTTP/1.0 closes after each answer unless the server says it keeps the connection.
      headers.replaceOrAdd(name: "Connection", value: "keep-alive")
    }
    let head = HTTPResponseHead(
      version: request.version, status: HTTPResponseStatus(statusCode: response.status),
      headers: headers)
    context.write(wrapOutboundOut(.head(head)), promise: nil)
    switch response.body {
    case .bytes(let bytes):
      if request.method != .HEAD, !bodyless, !bytes.isEmpty {
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
      }
      end(keepAlive: keepAlive, context)
    case .cut(let bytes):
      let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
      context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))))
        .whenComplete { _ in bound.value.close(promise: nil) }
    case .stream(let produce):
      context.flush()
      let channel = context.channel
      let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
      let keepsConnection = keepAlive
      stream = Task(executorPreference: ServerThreads.shared) {
        await produce(ServerStream(channel: channel))
        channel.eventLoop.execute {
          let (handler, context) = bound.value
          guard channel.isActive else { return }
          handler.end(keepAlive: keepsConnection, context)
        }
      }
    }
  }

  /// Ends an answer: the state is settled first (the next request may arrive from inside the
  /// write), then the end goes out, and the connection closes or waits for its next request.
  private func end(keepAlive: Bool, _ context: ChannelHandlerContext) {
    busy = false
    stream = nil
    let closes = !keepAlive || stopping
    if !closes { armIdleTimer(context) }
    let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
      if closes { bound.value.close(promise: nil) }
    }
  }

  private func armIdleTimer(_ context: ChannelHandlerContext) {
    idleTimer?.cancel()
    let channel = context.channel
    idleTimer = context.eventLoop.scheduleTask(in: settings.idleTimeout) {
      channel.close(promise: nil)
    }
  }
}
