import CTLS
import Foundation
import Synchronization

/// Where HTTPS trusts certificates: the system's trust store, and the CA that `--cacert FILE`
/// adds for a private or self-signed server.
public final class TLSTrust: Sendable {
  /// The process's one setting.
  public static let shared = TLSTrust()
  private let file = Mutex<String?>(nil)

  /// A PEM file of CA certificates trusted besides the system's, or nil.
  public var caFile: String? {
    get { file.withLock { $0 } }
    set { file.withLock { $0 = newValue } }
  }
}

/// Why a connection could not be made, in the system's or OpenSSL's words (a name that does not
/// resolve, a network that cannot be reached, a certificate that is not accepted).
public struct SocketError: Error, Equatable, CustomStringConvertible {
  /// The reason, in one line.
  public let description: String
}

/// Why a TLS handshake failed: the library, the handshake or the certificate, in OpenSSL's words.
public struct TLSError: Error, Equatable, CustomStringConvertible {
  /// The reason, in one line.
  public let description: String
}

/// One blocking connection, plain or over TLS (CTLS), closed once.
public final class SocketConnection: @unchecked Sendable {
  // @unchecked: `framer` and `readBuffer` belong to the one exchange using the connection. The
  // C calls on the handle are safe from that exchange's thread, and `abort` (a shutdown) from
  // any other.
  /// The C connection, nil once closed.
  private let handle: Mutex<OpaquePointer?>
  /// The framer of this connection's exchanges, kept while its responses end exactly.
  ///
  /// Only the exchange using the connection touches it, and `readBuffer`, which its reads fill.
  public var framer: HTTPFramer?
  /// Where reads put their bytes: allocated once, and never copied (an array held by a class
  /// would be copied on each mutable access).
  let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 1)

  private init(_ connection: sending OpaquePointer) { handle = Mutex(connection) }

  deinit { readBuffer.deallocate() }

  /// A new connection to `host:port`, made before `deadline` unless `control` is cancelled.
  ///
  /// Over TLS when `tls` is set: the certificate is checked against the system's store and
  /// `caFile`, and `control` can abort the handshake once the socket exists.
  public static func connect(
    host: String, port: Int, tls: Bool, caFile: String?, deadline: UInt64,
    control: ExchangeControl
  ) -> Result<SocketConnection, Error> {
    let now = DispatchTime.now().uptimeNanoseconds
    guard now < deadline else { return .failure(TransportError.timedOut) }
    let milliseconds = Int32(clamping: max(1, (deadline - now) / 1_000_000))
    var error = [CChar](repeating: 0, count: 512)
    var failure: Int32 = 0
    let question = Unmanaged.passRetained(control)
    defer { question.release() }
    let made = archsh_connect(
      host, Int32(port), milliseconds, &error, error.count, &failure,
      { context in
        guard let context else { return 0 }
        return Unmanaged<ExchangeControl>.fromOpaque(context).takeUnretainedValue().isCancelled
          ? 1 : 0
      }, question.toOpaque())
    guard let made else {
      switch failure {
      case ECANCELED: return .failure(TransportError.cancelled)
      case ECONNREFUSED: return .failure(TransportError.refused)
      case ETIMEDOUT: return .failure(TransportError.timedOut)
      default: return .failure(SocketError(description: String(cMessage: error)))
      }
    }
    let connection = SocketConnection(made)
    guard tls else { return .success(connection) }
    guard control.attach(connection) else {
      connection.close()
      return .failure(TransportError.cancelled)
    }
    // The handle belongs to the connection now, and is read back from it.
    let shaken =
      connection.handle.withLock({ $0 }).map {
        archsh_tls_handshake($0, host, Int32(port), caFile, &error, error.count)
      } ?? -1
    control.detach()
    if control.isCancelled {
      connection.close()
      return .failure(TransportError.cancelled)
    }
    guard shaken == 0 else {
      connection.close()
      let message = String(cMessage: error)
      // The handshake reads with the socket's own limit, which is the request's timeout.
      if DispatchTime.now().uptimeNanoseconds >= deadline {
        return .failure(TransportError.timedOut)
      }
      return .failure(TLSError(description: message))
    }
    return .success(connection)
  }

  /// Reads up to `buffer.count` bytes, waiting at most `milliseconds` for the first: the count,
  /// 0 at the end of the stream (or when the server closed), -1 on failure, -2 when the time ran
  /// out first.
  public func read(_ buffer: UnsafeMutableRawBufferPointer, waitingAtMost milliseconds: Int32)
    -> Int
  {
    guard let connection = handle.withLock({ $0 }) else { return -1 }
    return archsh_connection_read_within(
      connection, buffer.baseAddress, buffer.count, milliseconds)
  }

  /// Writes all of `bytes`; false when the connection failed.
  public func write(_ bytes: [UInt8]) -> Bool {
    guard let connection = handle.withLock({ $0 }) else { return false }
    return bytes.withUnsafeBytes {
      archsh_connection_write(connection, $0.baseAddress, $0.count)
    } == 0
  }

  /// Whether a kept connection has nothing waiting to be read: one the server closed, or one
  /// with bytes no request asked for, must not carry the next request.
  public var isQuiet: Bool {
    guard let connection = handle.withLock({ $0 }) else { return false }
    return archsh_is_quiet(connection) != 0
  }

  /// Makes a blocked read or write return: the exchange was cancelled.
  public func abort() { handle.withLock { $0.map { archsh_connection_abort($0) } } }

  /// Closes the connection; later calls do nothing.
  public func close() {
    let closing = handle.withLock { connection in
      defer { connection = nil }
      return connection
    }
    closing.map { archsh_connection_close($0) }
  }
}

extension String {
  /// The text a C function wrote into `buffer`, up to its NUL.
  public init(cMessage buffer: [CChar]) {
    self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
