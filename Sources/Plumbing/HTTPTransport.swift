import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// What came back from one HTTP exchange.
public struct TransportResponse: Sendable {
  /// The status line and headers.
  public var head: HTTPResponseHead
  /// The whole body.
  public var body: ByteBuffer
  /// Whether it came over a connection kept open from an earlier exchange.
  public var reusedConnection = false

  /// The body's bytes, copied once.
  public var bodyData: Data { body.withUnsafeReadableBytes { Data($0) } }
}

/// Why an exchange ended without a response.
public enum TransportError: Error, Equatable, CustomStringConvertible {
  /// The connection closed before the whole response arrived.
  case dropped
  /// The exchange was cancelled (Ctrl-C).
  case cancelled
  /// The whole exchange took longer than its timeout.
  case timedOut
  /// The URL is not an `http://` or `https://` URL with a host.
  case unsupportedURL
  /// The URL's host is not a plain ASCII name or address; the URL, escaped.
  case badHost(String)
  /// Nothing listens at the server's port.
  case refused
  /// The request would put a byte on the wire that breaks its head; nothing was sent.
  case invalidRequest(String)
  /// The reply does not begin as an HTTP/1.x response; the text is its first line, escaped.
  case notHTTP(String)
  /// The status line is not `HTTP/1.x` and a status of three digits from 100 to 599.
  case badStatusLine(String)
  /// The head was longer than the limit, in bytes.
  case headTooLarge(limit: Int)
  /// The head had more fields than the limit.
  case tooManyFields(limit: Int)
  /// The body was longer than the limit, in bytes.
  case bodyTooLarge(limit: Int)
  /// The server closed the connection before the whole body its head announced arrived.
  case shortBody(received: Int, expected: Int)
  /// Content-Length fields that disagree, or one that is not a whole number: the values sent.
  case conflictingLengths([String])
  /// The response broke HTTP/1.1's framing after its head.
  case malformed(String)

  /// A one-line description, for `NetworkError.transport`.
  public var description: String {
    switch self {
    case .dropped: return "the connection was dropped before a response arrived"
    case .cancelled: return "the request was cancelled"
    case .timedOut: return "timed out"
    case .unsupportedURL: return "only http:// and https:// URLs with a host are supported"
    case .badHost(let url):
      return "the host of '\(url)' is not a plain ASCII name or address "
        + "(a percent-escape, a space or a control byte is refused)"
    case .refused: return "connection refused"
    case .invalidRequest(let detail): return "the request was not sent: \(detail)"
    case .notHTTP(let began): return "the server's reply is not HTTP/1.1 (it began: '\(began)')"
    case .badStatusLine(let line):
      return
        "the server's status line '\(line)' is not HTTP/1.1 (a status is three digits, 100 to 599)"
    case .headTooLarge(let limit):
      return "the server's response head is larger than the limit of \(HTTPLimits.describe(limit))"
    case .tooManyFields(let limit):
      return "the server's response has more than the limit of \(limit) header fields"
    case .bodyTooLarge(let limit):
      return "the response body is larger than the limit of \(HTTPLimits.describe(limit))"
    case .shortBody(let received, let expected):
      return "the body ended after \(received) of \(expected) bytes: the server closed the "
        + "connection before the rest"
    case .conflictingLengths(let values):
      return Set(values).count > 1
        ? "the server sent Content-Length values that disagree (\(values.joined(separator: " and ")))"
        : "the server's Content-Length is not one whole number"
          + (values.first.map { " ('\(TerminalText.escaped($0))')" } ?? "")
    case .malformed(let detail): return "the server's response breaks HTTP/1.1 framing (\(detail))"
    }
  }
}

/// HTTP/1.1 for NetworkController and APISessionManager, plain or over TLS, on the thread that
/// waits for the answer: a connection made by NIOPosix and swift-nio-ssl (`SocketConnection`),
/// and NIOHTTP1's encoder and decoder to frame the bytes (`HTTPFramer`).
///
/// The seed wraps URLSession; on Linux that comes from FoundationNetworking, which loads libcurl
/// and many more shared libraries at every start-up.
///
/// A connection both sides allow to keep, whose response ended exactly, goes back to a pool per
/// server; the next request to that server reuses it. A kept connection that the server closed
/// before it answered is replaced once by a new one, for a request that is safe to repeat (RFC
/// 9110's idempotent methods). One deadline covers the whole exchange: the name lookup, the
/// connection, the TLS handshake, the head and the body.
public enum HTTPTransport {
  /// The methods a request may be repeated with, when a kept connection closed under it.
  public static let idempotentMethods: Set<String> = [
    "GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE",
  ]

  /// Whether `byte` may be part of a header name (an RFC 9110 token).
  public static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "A")...UInt8(ascii: "Z"):
      return true
    default:
      return "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
  }

  /// The connection's target, server and head for `method url`; throws for a URL that is not
  /// `http://` or `https://` with a host and a port from 1 to 65535, for a target with a control
  /// byte or a space, and for a header whose name is not a token or whose value holds a control
  /// byte: the checks NIOHTTP1's outbound validator makes, made here once, before anything is
  /// sent, with the header named.
  public static func request(
    method: String, url: URL, headers: [(name: String, value: String)], body: Data?
  ) throws(TransportError) -> (host: String, port: Int, isTLS: Bool, head: HTTPRequestHead) {
    let scheme = url.scheme?.lowercased()
    guard scheme == "http" || scheme == "https" else { throw .unsupportedURL }
    let host = try canonicalHost(of: url)
    guard url.password == nil else {
      throw .invalidRequest("a URL with a password ('user:password@') is never sent")
    }
    let isTLS = scheme == "https"
    let port = url.port ?? (isTLS ? 443 : 80)
    guard (1...65535).contains(port) else { throw .unsupportedURL }
    // The path as it is written in the URL, percent-escapes kept: a decoded path could hold CR
    // and LF, and end the request line.
    var target = url.path(percentEncoded: true)
    if target.isEmpty { target = "/" }
    if let query = url.query(percentEncoded: true) { target += "?" + query }
    guard !target.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
      throw .invalidRequest(
        "the target '\(TerminalText.escaped(target))' holds a space or a control byte")
    }
    for (name, value) in headers {
      guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
        throw .invalidRequest("'\(TerminalText.escaped(name))' is not a header name")
      }
      // HTTP/1.1 allows a tab in a value, and no other control byte (CR and LF would end it).
      guard value.utf8.allSatisfy({ $0 == 9 || ($0 >= 0x20 && $0 != 0x7F) }) else {
        throw .invalidRequest("the header '\(name)' holds a control byte")
      }
    }
    guard !method.isEmpty, method.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      throw .invalidRequest("the method '\(TerminalText.escaped(method))' is not a token")
    }
    var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: target)
    let named = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
    head.headers.add(name: "Host", value: url.port.map { "\(named):\($0)" } ?? named)
    head.headers.add(name: "User-Agent", value: "archsh")
    for (name, value) in headers { head.headers.replaceOrAdd(name: name, value: value) }
    if let body {
      head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
    } else if ["POST", "PUT", "PATCH"].contains(method.uppercased()) {
      head.headers.replaceOrAdd(name: "Content-Length", value: "0")
    }
    return (host, port, isTLS, head)
  }

  /// The host of `url` as it goes on the wire: plain ASCII, lower-case, without brackets.
  ///
  /// An IPv6 address keeps no brackets here; `Host` adds them. Foundation writes a Unicode name through IDNA (`xn--…`) when it makes the URL;
  /// a host that still holds a percent-escape, a space, a control byte or any other byte a host
  /// name cannot have is refused, so that what is sent is what the URL looks like.
  public static func canonicalHost(of url: URL) throws(TransportError) -> String {
    guard let written = url.host(percentEncoded: true), !written.isEmpty else {
      throw .unsupportedURL
    }
    // An IPv6 address (Foundation gives it without its brackets) is hex digits, colons and dots.
    // The checks look at bytes: Foundation's `contains` of a string searches through NSString.
    if written.utf8.contains(UInt8(ascii: ":")) {
      let isAddressByte = { (byte: UInt8) in
        isHexDigit(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
      }
      guard written.utf8.allSatisfy(isAddressByte) else {
        throw .badHost(TerminalText.escaped(url.absoluteString))
      }
      return written.lowercased()
    }
    if written.utf8.contains(UInt8(ascii: "%")) {
      // Foundation shows a Unicode name percent-encoded here (`b%C3%BCcher`) and gives its IDNA
      // form (`xn--bcher-kva`) decoded; any other percent-escape decodes to what it says, and is
      // refused.
      guard let decoded = url.host(percentEncoded: false),
        decoded != written.removingPercentEncoding, decoded.utf8.allSatisfy(isHostByte)
      else { throw .badHost(TerminalText.escaped(url.absoluteString)) }
      return decoded.lowercased()
    }
    guard written.utf8.allSatisfy(isHostByte) else {
      throw .badHost(TerminalText.escaped(url.absoluteString))
    }
    return written.lowercased()
  }

  /// Whether `byte` may be part of a host name: letters, digits, `-`, `.` and `_`.
  private static func isHostByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "-"), UInt8(ascii: "."),
      UInt8(ascii: "_"):
      return true
    default:
      return false
    }
  }

  private static func isHexDigit(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
      UInt8(ascii: "A")...UInt8(ascii: "F"):
      return true
    default:
      return false
    }
  }

  /// Sends `method url` with `headers`, in their order, and `body`, and reads the response,
  /// before `deadline` (uptime nanoseconds) unless `control` is cancelled.
  public static func perform(
    method: String, url: URL, headers: [(name: String, value: String)], body: Data?,
    deadline: UInt64, control: ExchangeControl = ExchangeControl(),
    bodyLimit: Int = HTTPLimits.bodyBytes
  ) -> Result<TransportResponse, Error> {
    let host: String
    let port: Int
    let isTLS: Bool
    let head: HTTPRequestHead
    do {
      (host, port, isTLS, head) = try request(
        method: method, url: url, headers: headers, body: body)
    } catch {
      return .failure(error)
    }
    let caFile = isTLS ? TLSTrust.shared.caFile : nil
    let server = "\(isTLS ? "https" : "http")://\(host.lowercased()):\(port) \(caFile ?? "")"
    let keepsConnection = head.isKeepAlive
    let retryable = idempotentMethods.contains(method.uppercased()) && keepsConnection
    var pooled = ConnectionPools.shared.take(server)
    while true {
      if control.isCancelled { return .failure(TransportError.cancelled) }
      let reused = pooled != nil
      let connection: SocketConnection
      if let kept = pooled {
        connection = kept
        pooled = nil
      } else {
        switch SocketConnection.connect(
          host: host, port: port, tls: isTLS, caFile: caFile, deadline: deadline, control: control)
        {
        case .success(let made): connection = made
        case .failure(let error): return .failure(error)
        }
      }
      guard control.attach(connection) else {
        connection.close()
        return .failure(TransportError.cancelled)
      }
      let framer: HTTPFramer
      let payload: [UInt8]
      do {
        if let kept = connection.framer, kept.isOnItsThread {
          kept.reset(bodyLimit: bodyLimit)
          framer = kept
        } else {
          framer = try HTTPFramer(bodyLimit: bodyLimit)
        }
        connection.framer = nil
        payload = try framer.encode(head, body: body)
      } catch {
        connection.framer?.finish()
        connection.framer = nil
        control.detach()
        if reused {
          _ = ConnectionPools.shared.put(connection, server: server)
        } else {
          connection.close()
        }
        return .failure(error)
      }
      var keptFramer = false
      defer { if !keptFramer { framer.finish() } }
      let result: Result<TransportResponse, Error>
      if control.isCancelled {
        result = .failure(TransportError.cancelled)
      } else if connection.write(payload) {
        result = read(from: connection, into: framer, deadline: deadline, control: control)
      } else {
        result = .failure(TransportError.dropped)
      }
      control.detach()
      switch result {
      case .failure(TransportError.dropped)
      where reused && retryable && !framer.receivedAny && !control.isCancelled:
        // The server closed the kept connection before it answered: once more, on a new one.
        connection.close()
        continue
      case .success(var response):
        response.reusedConnection = reused
        let keep =
          keepsConnection && response.head.isKeepAlive && !framer.framedTwoWays && framer.isClean
        // A framer is kept only by the main thread's exchanges (NetworkController's), whose
        // connections come back to the same thread; any other is finished here, on its thread.
        // (`Thread.isMainThread` asks the kernel for the process's id on Linux; the current
        // thread's object answers without a system call.)
        if keep, framer.isReusable, Thread.current.isMainThread {
          connection.framer = framer
          keptFramer = true
        }
        // The pool keeps it only while nothing waits to be read on it.
        if !keep || !ConnectionPools.shared.put(connection, server: server) { connection.close() }
        return .success(response)
      case .failure(let error):
        connection.close()
        return .failure(error)
      }
    }
  }

  /// Reads until the framer has the whole response, the server closes, or the exchange stops.
  private static func read(
    from connection: SocketConnection, into framer: HTTPFramer, deadline: UInt64,
    control: ExchangeControl
  ) -> Result<TransportResponse, Error> {
    while true {
      switch connection.read(deadline: deadline, control: control) {
      case .bytes(let buffer):
        do {
          let whole = try buffer.withUnsafeReadableBytes { try framer.feed($0) }
          if let whole { return .success(whole) }
        } catch {
          return .failure(error)
        }
      case .end:
        do {
          return .success(try framer.endOfStream())
        } catch {
          return .failure(error)
        }
      case .failed:
        return .failure(control.isCancelled ? TransportError.cancelled : TransportError.dropped)
      case .timedOut: return .failure(TransportError.timedOut)
      case .cancelled: return .failure(TransportError.cancelled)
      }
    }
  }
}

/// What lets another thread stop one exchange: a cancelled flag, asked before connecting, before
/// writing, between reads and before a retry, and the connection in use, which `cancel()` aborts.
///
/// The connection is attached before anything is written on it and detached before it goes back
/// to the pool, so that a late `cancel()` never touches a connection serving another request.
public final class ExchangeControl: Sendable {
  private struct State {
    var cancelled = false
    var connection: SocketConnection?
    var asks: @Sendable () -> Bool
  }

  private let state: Mutex<State>

  /// A control that is also cancelled whenever `isCancelled` answers true (the shell's Ctrl-C).
  public init(isCancelled: @escaping @Sendable () -> Bool = { false }) {
    state = Mutex(State(asks: isCancelled))
  }

  /// Whether the exchange was cancelled.
  public var isCancelled: Bool {
    let (cancelled, asks) = state.withLock { ($0.cancelled, $0.asks) }
    return cancelled || asks()
  }

  /// Makes the exchange cancelled also whenever `isCancelled` answers true.
  public func alsoCancelWhen(_ isCancelled: @escaping @Sendable () -> Bool) {
    state.withLock { state in
      let earlier = state.asks
      state.asks = { earlier() || isCancelled() }
    }
  }

  /// Cancels the exchange: a blocked read or write on its connection returns at once.
  public func cancel() {
    let current = state.withLock { state in
      state.cancelled = true
      return state.connection
    }
    current?.abort()
  }

  /// Records the connection in use; false when the exchange was cancelled already.
  public func attach(_ connection: SocketConnection) -> Bool {
    state.withLock { state in
      guard !state.cancelled else { return false }
      state.connection = connection
      return true
    }
  }

  /// Forgets the connection, before it is closed or kept for another request.
  public func detach() { state.withLock { $0.connection = nil } }
}

/// The connections kept open between requests, per server (`scheme://host:port` and, for
/// HTTPS, the CA file).
///
/// At most 4 idle ones per server and 16 in all, each for at most 30 s. A fifth to one server is
/// closed; a connection that would pass the total takes the place of the one that has waited
/// longest, whichever server it leads to, so that the server being talked to now keeps its
/// connection. A connection that closed or received bytes while it waited is dropped when it is
/// next asked for.
public final class ConnectionPool<Kept: AnyObject & Sendable>: Sendable {
  /// How many idle connections one server may keep: 4.
  public static var perServer: Int { 4 }
  /// How many idle connections all servers together may keep: 16.
  public static var total: Int { 16 }
  /// How long a connection may wait idle, in nanoseconds: 30 s.
  public static var idleLimit: UInt64 { 30_000_000_000 }

  private struct Entry {
    let connection: Kept
    /// When it was put back: the smallest has waited longest.
    let stamp: UInt64
    /// The uptime at which it was put back.
    let since: UInt64
  }

  /// The idle connections by server, how many there are, and the stamp of the last one put back.
  private struct Idle {
    var byServer: [String: [Entry]] = [:]
    var count = 0
    var clock: UInt64 = 0

    /// Removes the connections that waited since before `cutoff` less the idle limit.
    mutating func expired(at cutoff: UInt64) -> [Kept] {
      var gone: [Kept] = []
      for (server, list) in byServer {
        let fresh = list.filter { cutoff &- $0.since < ConnectionPool.idleLimit }
        guard fresh.count < list.count else { continue }
        gone += list.filter { cutoff &- $0.since >= ConnectionPool.idleLimit }.map(\.connection)
        byServer[server] = fresh.isEmpty ? nil : fresh
        count -= list.count - fresh.count
      }
      return gone
    }
  }

  private let isOpen: @Sendable (Kept) -> Bool
  private let close: @Sendable (Kept) -> Void
  private let now: @Sendable () -> UInt64
  private let idle = Mutex(Idle())

  /// A pool that keeps only connections `isOpen` says are still open, and ends the ones it lets
  /// go with `close`; `now` is the uptime in nanoseconds.
  public init(
    isOpen: @escaping @Sendable (Kept) -> Bool, close: @escaping @Sendable (Kept) -> Void,
    now: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }
  ) {
    self.isOpen = isOpen
    self.close = close
    self.now = now
  }

  /// An idle connection to `server` that is still open, if there is one.
  public func take(_ server: String) -> Kept? {
    let cutoff = now()
    let (found, stale) = idle.withLock { idle -> (Kept?, [Kept]) in
      var stale = idle.expired(at: cutoff)
      while var list = idle.byServer[server], let entry = list.popLast() {
        idle.byServer[server] = list.isEmpty ? nil : list
        idle.count -= 1
        if isOpen(entry.connection) { return (entry.connection, stale) }
        stale.append(entry.connection)
      }
      return (nil, stale)
    }
    stale.forEach(close)
    return found
  }

  /// Keeps `connection` for the next request to `server`; false when that server has as many
  /// waiting as it may.
  public func put(_ connection: Kept, server: String) -> Bool {
    guard isOpen(connection) else { return false }
    let cutoff = now()
    let (kept, evicted) = idle.withLock { idle -> (Bool, [Kept]) in
      var evicted = idle.expired(at: cutoff)
      guard idle.byServer[server, default: []].count < Self.perServer else {
        return (false, evicted)
      }
      if idle.count >= Self.total,
        let oldest = idle.byServer.min(by: {
          ($0.value.first?.stamp ?? .max) < ($1.value.first?.stamp ?? .max)
        })
      {
        var list = oldest.value
        evicted.append(list.removeFirst().connection)
        idle.byServer[oldest.key] = list.isEmpty ? nil : list
        idle.count -= 1
      }
      idle.clock += 1
      idle.byServer[server, default: []].append(
        Entry(connection: connection, stamp: idle.clock, since: cutoff))
      idle.count += 1
      return (true, evicted)
    }
    evicted.forEach(close)
    return kept
  }

  /// How many connections wait, for tests.
  public var idleCount: Int { idle.withLock { $0.count } }
}

/// The process's pool of kept connections.
public enum ConnectionPools {
  /// Every server's, plain and TLS: one with anything to read (the server closed it, or sent more
  /// than was asked) is let go.
  public static let shared = ConnectionPool<SocketConnection>(
    isOpen: { $0.isQuiet }, close: { $0.close() })
}
