import CTLS
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Where HTTPS trusts certificates: the system's trust store, and the CA that `--cacert FILE`
/// adds for a private or self-signed server.
public final class TLSTrust: @unchecked Sendable {
  /// The process's one setting.
  public static let shared = TLSTrust()
  private let lock = NSLock()
  private var file: String?

  /// A PEM file of CA certificates trusted besides the system's, or nil.
  public var caFile: String? {
    get { lock.withLock { file } }
    set { lock.withLock { file = newValue } }
  }
}

/// HTTPS requests: the system's OpenSSL 3, loaded with dlopen the first time an `https://` URL is
/// used (a start-up never pays for it), on blocking connections of its own, off the event loops.
///
/// Connections are kept alive like plain HTTP's: one that both sides allow to keep goes back to
/// `ConnectionPools.tls`, per server and CA file, and the next request to that server reuses it,
/// skipping the TCP and TLS handshakes. A kept connection that the server closed before it
/// answered is replaced once by a new one, for a request that is safe to repeat. The certificate
/// and the host name are verified against the system's trust store and `TLSTrust.shared.caFile`.
///
/// Measured against the candidates the issue names: SwiftNIO's TLS (swift-nio-ssl) compiles
/// BoringSSL into the binary, about 94 s more of every clean release build on this machine;
/// libcurl loaded on demand brings thirty shared libraries and its own HTTP stack beside NIO's.
/// The system's libssl.so.3 is already on every Debian machine (python3 needs it), adds nothing to
/// the build, and is loaded only by the first HTTPS request.
enum TLSTransport {
  /// Sends `head` and `body` to `host:port` over TLS, completing `exchange`.
  static func start(
    exchange: HTTPExchange, host: String, port: Int, head: HTTPRequestHead, body: Data?,
    timeout: TimeAmount
  ) {
    let payload = HTTPTransport.bytes(of: head, body: body)
    let caFile = TLSTrust.shared.caFile
    let milliseconds = Int32(clamping: max(1, timeout.nanoseconds / 1_000_000))
    DispatchQueue.global().async {
      let result = SocketConnection.exchange(
        payload, head: head, server: "\(host):\(port) \(caFile ?? "")", pool: ConnectionPools.tls,
        connect: {
          var error = [CChar](repeating: 0, count: 512)
          guard
            let connection = archsh_tls_connect(
              host, Int32(port), caFile, milliseconds, &error, error.count)
          else {
            return .failure(TLSError.failed(String(cMessage: error)))
          }
          return .success(SocketConnection(connection))
        },
        reading: { tls in
          exchange.setAbort { tls.abort() }
          return tls.read
        })
      exchange.finish(result)
    }
  }
}

extension String {
  /// The text a C function wrote into `buffer`, up to its NUL.
  init(cMessage buffer: [CChar]) {
    self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

/// Why an HTTPS exchange failed before any response: the library, the connection, the handshake or
/// the certificate, in OpenSSL's words.
struct TLSError: Error, Equatable, CustomStringConvertible {
  let description: String
  static func failed(_ message: String) -> TLSError { TLSError(description: message) }
}

extension SocketConnection {
  /// One request over a kept connection to `server` from `pool`, or a new one from `connect`:
  /// sends `payload`, reads the response with the reader `reading` makes for the connection, and
  /// gives the connection back to `pool` when both sides allow it.
  ///
  /// A kept connection that the server closed before it answered is replaced once by a new one,
  /// for a request that is safe to repeat. When `stopped` names a reason after the read (Ctrl-C,
  /// the deadline), that is the result, and the connection is closed.
  static func exchange(
    _ payload: [UInt8], head: HTTPRequestHead, server: String,
    pool: ConnectionPool<SocketConnection>, connect: () -> Result<SocketConnection, Error>,
    reading: (SocketConnection) -> (UnsafeMutableRawBufferPointer) -> Int,
    stopped: () -> Error? = { nil }
  ) -> Result<TransportResponse, Error> {
    let keepsConnection = head.isKeepAlive
    let retryable =
      HTTPTransport.idempotentMethods.contains(head.method.rawValue.uppercased())
      && keepsConnection
    var pooled = pool.take(server)
    while true {
      let reused = pooled != nil
      let connection: SocketConnection
      if let kept = pooled {
        connection = kept
        pooled = nil
      } else {
        switch connect() {
        case .success(let made): connection = made
        case .failure(let error): return .failure(error)
        }
      }
      var reader = HTTPResponseReader(read: reading(connection))
      let result: Result<TransportResponse, Error>
      if connection.write(payload) {
        result = Result { try reader.response(bodiless: head.method == .HEAD) }
      } else {
        result = .failure(TransportError.dropped)
      }
      if let reason = stopped() {
        connection.close()
        return .failure(reason)
      }
      switch result {
      case .failure(TransportError.dropped) where reused && retryable && !reader.receivedAny:
        // The server closed the kept connection before it answered: once more, on a new one.
        connection.close()
        continue
      case .success(var response):
        response.reusedConnection = reused
        let keep = keepsConnection && response.head.isKeepAlive && reader.isDrained
        if !keep || !pool.put(connection, server: server) { connection.close() }
        return .success(response)
      case .failure(let error):
        connection.close()
        return .failure(error)
      }
    }
  }
}

/// One connection, over TLS or plain, closed once.
final class SocketConnection: @unchecked Sendable {
  private let lock = NSLock()
  private var connection: OpaquePointer?

  init(_ connection: OpaquePointer) { self.connection = connection }

  func read(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard let connection = lock.withLock({ self.connection }) else { return -1 }
    return archsh_tls_read(connection, buffer.baseAddress, buffer.count)
  }

  /// Writes all of `bytes`; false when the connection failed.
  func write(_ bytes: [UInt8]) -> Bool {
    guard let connection = lock.withLock({ self.connection }) else { return false }
    return bytes.withUnsafeBytes { archsh_tls_write(connection, $0.baseAddress, $0.count) } == 0
  }

  /// Waits up to `milliseconds` for bytes to read: 1 when there are (or the server closed), 0
  /// when the time ran out, -1 on failure.
  func waitReadable(milliseconds: Int32) -> Int32 {
    guard let connection = lock.withLock({ self.connection }) else { return -1 }
    return archsh_wait_readable(connection, milliseconds)
  }

  /// Whether a kept plain connection has nothing waiting to be read: one the server closed, or
  /// one with bytes no request asked for, must not carry the next request.
  var isQuiet: Bool {
    guard let connection = lock.withLock({ self.connection }) else { return false }
    return archsh_is_quiet(connection) != 0
  }

  /// Makes a blocked read return: the exchange was cancelled or timed out.
  func abort() { lock.withLock { connection.map { archsh_tls_abort($0) } } }

  func close() {
    lock.withLock {
      connection.map { archsh_tls_close($0) }
      connection = nil
    }
  }
}

/// Reads an HTTP/1.1 response from a byte stream: the head, then a body of `Content-Length`
/// bytes, in chunks, or up to the end of the stream; none for HEAD, 1xx, 204 and 304.
struct HTTPResponseReader {
  let read: (UnsafeMutableRawBufferPointer) -> Int
  private var buffer: [UInt8] = []
  private var ended = false
  /// Whether any byte of a response arrived: a request that got none may be sent again.
  private(set) var receivedAny = false

  /// Whether the response ended exactly where the stream's bytes did, so that the connection can
  /// carry the next one.
  var isDrained: Bool { buffer.isEmpty && !ended }

  init(read: @escaping (UnsafeMutableRawBufferPointer) -> Int) { self.read = read }

  /// Reads more; false at the end of the stream, and a failure throws `dropped`.
  private mutating func fill() throws -> Bool {
    guard !ended else { return false }
    var chunk = [UInt8](repeating: 0, count: 16_384)
    let count = chunk.withUnsafeMutableBytes { read($0) }
    if count < 0 { throw TransportError.dropped }
    if count == 0 {
      ended = true
      return false
    }
    buffer += chunk[0..<count]
    receivedAny = true
    return true
  }

  private mutating func line() throws -> String {
    while true {
      if let end = buffer.firstIndex(of: 10) {
        var line = Array(buffer[..<end])
        if line.last == 13 { line.removeLast() }
        buffer.removeFirst(end + 1)
        return String(decoding: line, as: UTF8.self)
      }
      guard try fill() else { throw TransportError.dropped }
    }
  }

  /// Reads one response; `bodiless` for the answer to a HEAD request.
  mutating func response(bodiless: Bool = false) throws -> TransportResponse {
    var (parts, headers) = try head()
    // An interim answer (100 Continue, 103 Early Hints) comes before the real one: skipped.
    while let code = Int(parts[1]), code / 100 == 1, code != 101 { (parts, headers) = try head() }
    guard let code = Int(parts[1]) else { throw TransportError.dropped }
    var body: [UInt8] = []
    if bodiless || code / 100 == 1 || code == 204 || code == 304 {
      // No body, whatever Content-Length says (RFC 9112, 6.3).
    } else if headers["Transfer-Encoding"].contains(where: { $0.lowercased().contains("chunked") })
    {
      while true {
        let field = try line().split(separator: ";").first ?? ""
        let size = Int(field.trimmingCharacters(in: .whitespaces), radix: 16) ?? -1
        // A size that is not a count of bytes, or one no answer could have, ends the exchange
        // instead of the process.
        guard (0...Self.largestBody).contains(size) else { throw TransportError.dropped }
        if size == 0 { break }
        while buffer.count < size + 2 { guard try fill() else { throw TransportError.dropped } }
        body += buffer[0..<size]
        buffer.removeFirst(size + 2)
      }
      // The trailer: header lines up to an empty one, so that the connection is left at the
      // start of the next response.
      while try !line().isEmpty {}
    } else if let text = headers["Content-Length"].first {
      guard let length = Int(text), (0...Self.largestBody).contains(length) else {
        throw TransportError.dropped
      }
      while buffer.count < length { guard try fill() else { throw TransportError.dropped } }
      body = Array(buffer[0..<length])
      buffer.removeFirst(length)
    } else {
      while try fill() {}
      body = buffer
      buffer = []
    }
    let version = parts[0] == "HTTP/1.0" ? HTTPVersion.http1_0 : .http1_1
    return TransportResponse(
      head: HTTPResponseHead(
        version: version, status: HTTPResponseStatus(statusCode: code), headers: headers),
      body: ByteBuffer(bytes: body))
  }

  /// The largest body read: 1 GiB.
  static let largestBody = 1 << 30

  /// A status line, split into its version, code and reason, and the header lines after it.
  private mutating func head() throws -> (parts: [Substring], headers: HTTPHeaders) {
    let status = try line()
    let parts = status.split(separator: " ", maxSplits: 2)
    guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), Int(parts[1]) != nil else {
      throw TransportError.dropped
    }
    var headers = HTTPHeaders()
    while true {
      let header = try line()
      if header.isEmpty { break }
      guard let colon = header.firstIndex(of: ":") else { continue }
      headers.add(
        name: String(header[..<colon]),
        value: header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
    return (parts, headers)
  }
}
