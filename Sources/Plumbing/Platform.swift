// The one file of Plumbing that imports the C library: what the transport and the servers need
// from the system beyond SwiftNIO and Foundation, with the Linux and Darwin branches both written.
import NIOCore

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The system calls and constants that differ between Linux and macOS.
enum Platform {
  /// The TCP option that acknowledges the next segments at once, when the system has one.
  ///
  /// Linux delays an acknowledgement by up to 40 ms in a request-and-answer exchange, and a
  /// server that writes its head and its body in two sends (Python's http.server) then waits
  /// for it under Nagle's algorithm. `TCP_QUICKACK` (Linux only) turns the delay off until the
  /// kernel turns it on again, so it is asked for before every read. macOS has no such option.
  static var quickAck: ChannelOptions.Types.SocketOption? {
    #if os(Linux)
    return ChannelOptions.tcpOption(NIOBSDSocket.Option(rawValue: CInt(TCP_QUICKACK)))
    #else
    return nil
    #endif
  }

  /// Whether a listening socket could bind `port` on 127.0.0.1 now, with SO_REUSEADDR.
  static func canBindLoopback(_ port: Int) -> Bool {
    guard (1...65535).contains(port) else { return false }
    #if os(Linux)
    let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let probe = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard probe >= 0 else { return false }
    defer { close(probe) }
    var reuse: Int32 = 1
    setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port)).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  /// An identifier of the calling thread, for a value that belongs to the thread that made it.
  static func currentThread() -> pthread_t { pthread_self() }

  /// Whether `first` and `second` identify the same thread.
  static func isSameThread(_ first: pthread_t, _ second: pthread_t) -> Bool {
    pthread_equal(first, second) != 0
  }
}
