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
/// used (a start-up never pays for it), on a blocking connection of its own, off the event loops.
///
/// Each request has its own connection (`Connection: close`); the certificate and the host name
/// are verified against the system's trust store and `TLSTrust.shared.caFile`.
///
/// Measured against the candidates the issue names: SwiftNIO's TLS (swift-nio-ssl) compiles
/// BoringSSL into the binary, minutes more of every clean build; libcurl loaded on demand brings
/// thirty shared libraries and its own HTTP stack beside NIO's. The system's libssl.so.3 is
/// already on every Debian machine (python3 needs it), adds nothing to the build, and is loaded
/// only by the first HTTPS request.
enum TLSTransport {
  /// Sends `head` and `body` to `host:port` over TLS, completing `exchange`.
  static func start(
    exchange: HTTPExchange, host: String, port: Int, head: HTTPRequestHead, body: Data?,
    timeout: TimeAmount
  ) {
    var request = "\(head.method.rawValue) \(head.uri) HTTP/1.1\r\n"
    var headers = head.headers
    headers.replaceOrAdd(name: "Connection", value: "close")
    for (name, value) in headers { request += "\(name): \(value)\r\n" }
    request += "\r\n"
    var bytes = Array(request.utf8)
    if let body { bytes += body }
    let caFile = TLSTrust.shared.caFile
    let milliseconds = Int32(clamping: max(1, timeout.nanoseconds / 1_000_000))
    let payload = bytes
    DispatchQueue.global().async {
      var error = [CChar](repeating: 0, count: 512)
      guard
        let connection = archsh_tls_connect(
          host, Int32(port), caFile, milliseconds, &error, error.count)
      else {
        let message = String(
          decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        exchange.finish(.failure(TLSError.failed(message)))
        return
      }
      let tls = TLSConnection(connection)
      exchange.setAbort { tls.abort() }
      defer { tls.close() }
      let sent = payload.withUnsafeBytes { archsh_tls_write(connection, $0.baseAddress, $0.count) }
      guard sent == 0 else {
        exchange.finish(.failure(TransportError.dropped))
        return
      }
      var reader = HTTPResponseReader(read: tls.read)
      exchange.finish(Result { try reader.response() })
    }
  }
}

/// Why an HTTPS exchange failed before any response: the library, the connection, the handshake or
/// the certificate, in OpenSSL's words.
struct TLSError: Error, Equatable, CustomStringConvertible {
  let description: String
  static func failed(_ message: String) -> TLSError { TLSError(description: message) }
}

/// One TLS connection, closed once.
private final class TLSConnection: @unchecked Sendable {
  private let lock = NSLock()
  private var connection: OpaquePointer?

  init(_ connection: OpaquePointer) { self.connection = connection }

  func read(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard let connection = lock.withLock({ self.connection }) else { return -1 }
    return archsh_tls_read(connection, buffer.baseAddress, buffer.count)
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
/// bytes, in chunks, or up to the end of the stream.
struct HTTPResponseReader {
  let read: (UnsafeMutableRawBufferPointer) -> Int
  private var buffer: [UInt8] = []
  private var ended = false

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

  mutating func response() throws -> TransportResponse {
    let status = try line()
    let parts = status.split(separator: " ", maxSplits: 2)
    guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let code = Int(parts[1]) else {
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
    var body: [UInt8] = []
    if headers["Transfer-Encoding"].contains(where: { $0.lowercased().contains("chunked") }) {
      while true {
        let size = try line().split(separator: ";").first.flatMap { Int($0, radix: 16) } ?? -1
        guard size >= 0 else { throw TransportError.dropped }
        if size == 0 { break }
        while buffer.count < size + 2 { guard try fill() else { throw TransportError.dropped } }
        body += buffer[0..<size]
        buffer.removeFirst(size + 2)
      }
    } else if let length = headers["Content-Length"].first.flatMap({ Int($0) }) {
      while buffer.count < length { guard try fill() else { throw TransportError.dropped } }
      body = Array(buffer[0..<length])
    } else {
      while try fill() {}
      body = buffer
    }
    let version = parts[0] == "HTTP/1.0" ? HTTPVersion.http1_0 : .http1_1
    return TransportResponse(
      head: HTTPResponseHead(
        version: version, status: HTTPResponseStatus(statusCode: code), headers: headers),
      body: ByteBuffer(bytes: body))
  }
}
