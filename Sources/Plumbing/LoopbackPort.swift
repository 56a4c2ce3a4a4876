import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A port on 127.0.0.1 that a server is about to listen on.
public enum LoopbackPort {
  /// Whether a listening socket could bind `port` on 127.0.0.1 now, with SO_REUSEADDR as the
  /// servers use it, so that a port whose last connections are in TIME_WAIT counts as free.
  ///
  /// The demo API and the board ask before they start on a chosen port. Hummingbird, given a port
  /// that is taken, fails inside its service group, and cancelling that group while it fails
  /// could deadlock (a lock in swift-async-algorithms' merge against the task's status lock, seen
  /// once in 20 runs of the port-moving test). Asking first makes that unlikely; a port taken in
  /// the moment between the question and the bind still goes through Hummingbird's failure.
  public static func isFree(_ port: Int) -> Bool {
    guard (1...65535).contains(port) else { return false }
    let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
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
}
