import CTLS
import Foundation
import NIOCore
import NIOHTTP1

/// Plain HTTP/1.1 on the calling thread, for NetworkController, which waits for each answer.
///
/// Through HTTPTransport, a request went from the shell's thread to an event loop and its answer
/// came back the other way: four thread switches per request, which on this machine's virtual
/// CPUs cost more than the HTTP itself (`finish_task_switch` was 27% of a 'net get' script's
/// time, perf). Here the thread that waits does the reading: a blocking socket of its own, the
/// same HTTP/1.1 reader that HTTPS uses, and its own pool of kept connections. It waits for bytes
/// in slices of 20 ms, while it connects and while it reads, and asks `isCancelled` between them, so
/// Ctrl-C and the timeout end a request within 20 ms (a host name is resolved in one call, which
/// the timeout does not cut short). APISessionManager, whose requests run side by side, keeps HTTPTransport.
///
/// Keep-alive follows HTTPTransport's rules: a connection both sides allow to keep goes back to
/// `ConnectionPools.socket`; a kept one that the server closed before it answered is replaced
/// once by a new one, for a request that is safe to repeat.
enum SocketTransport {
  /// Sends `method url` and reads the response, before `deadline` (uptime nanoseconds).
  static func perform(
    method: String, url: URL, headers: [(name: String, value: String)], body: Data?,
    deadline: UInt64, isCancelled: @escaping @Sendable () -> Bool
  ) -> Result<TransportResponse, Error> {
    guard
      let (host, port, _, head) = HTTPTransport.request(
        method: method, url: url, headers: headers, body: body)
    else { return .failure(TransportError.unsupportedURL) }
    let stop = StopReason()
    return SocketConnection.exchange(
      HTTPTransport.bytes(of: head, body: body), head: head, server: "\(host):\(port)",
      pool: ConnectionPools.socket,
      connect: { connect(host: host, port: port, deadline: deadline, isCancelled: isCancelled) },
      reading: { connection in
        { buffer in
          // Waits in slices, asking between them whether to stop.
          while true {
            if isCancelled() {
              stop.reason = .cancelled
              return -1
            }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else {
              stop.reason = .timedOut
              return -1
            }
            let slice = Int32(min(20, max(1, (deadline - now) / 1_000_000)))
            switch connection.waitReadable(milliseconds: slice) {
            case 0: continue
            case 1: return connection.read(buffer)
            default: return -1
            }
          }
        }
      },
      stopped: { stop.reason })
  }

  /// A new connection to `host:port`, made before `deadline` unless `isCancelled` says to stop.
  private static func connect(
    host: String, port: Int, deadline: UInt64, isCancelled: @escaping @Sendable () -> Bool
  ) -> Result<SocketConnection, Error> {
    let now = DispatchTime.now().uptimeNanoseconds
    guard now < deadline else { return .failure(TransportError.timedOut) }
    let milliseconds = Int32(clamping: max(1, (deadline - now) / 1_000_000))
    var error = [CChar](repeating: 0, count: 512)
    var failure: Int32 = 0
    let question = Unmanaged.passRetained(CancelQuestion(isCancelled))
    defer { question.release() }
    let made = archsh_plain_connect(
      host, Int32(port), milliseconds, &error, error.count, &failure,
      { context in
        guard let context else { return 0 }
        return Unmanaged<CancelQuestion>.fromOpaque(context).takeUnretainedValue().ask() ? 1 : 0
      }, question.toOpaque())
    guard let made else {
      switch failure {
      case ECANCELED: return .failure(TransportError.cancelled)
      case ECONNREFUSED: return .failure(TransportError.refused)
      case ETIMEDOUT: return .failure(TransportError.timedOut)
      default:
        let message = String(cMessage: error)
        return .failure(SocketError(description: message))
      }
    }
    return .success(SocketConnection(made))
  }

  /// `isCancelled`, in a box that C can hold while the connection is made.
  private final class CancelQuestion: @unchecked Sendable {
    let ask: @Sendable () -> Bool
    init(_ ask: @escaping @Sendable () -> Bool) { self.ask = ask }
  }

  /// Why a read stopped waiting: set by the read, looked at after the response.
  private final class StopReason: @unchecked Sendable {
    var reason: TransportError?
  }
}

/// Why a plain connection could not be made, in the system's words (a name that does not
/// resolve, a network that cannot be reached).
struct SocketError: Error, Equatable, CustomStringConvertible {
  let description: String
}
