import Foundation
import Synchronization

/// A fault the demo API injects into the requests it matches, so that error paths travel over real
/// HTTP.
public struct Fault: Sendable, Equatable {
  /// What the server does instead of answering normally.
  public enum Kind: Sendable, Equatable {
    /// Answer with this status and body; a nil body is a BDModules error envelope.
    case status(Int, body: String?)
    /// Answer 200 with no body at all.
    case empty
    /// Answer 200 with a body cut off in the middle of its JSON.
    case malformed
    /// Close the connection without answering.
    case drop
    /// Answer normally, after the delay.
    case delayOnly
    /// Answer 307 with a `Location` on this base URL (the same path), as a moved API does.
    case redirect(String)
  }

  /// The method it matches, such as `GET`, or `*` for any.
  public var method: String
  /// The path it matches, such as `/products/42`; a trailing `*` matches any path with that prefix.
  public var path: String
  /// What happens.
  public var kind: Kind
  /// Seconds to wait before the fault (or the normal answer) happens.
  public var delay: Double
  /// How many more requests it applies to; nil means until it is cleared.
  public var remaining: Int?
  /// How many requests it has applied to.
  public var hits = 0
  /// How many matching requests it lets through, answered normally, before it applies.
  public var skip = 0

  /// Creates a fault.
  public init(
    method: String, path: String, kind: Kind, delay: Double = 0, times: Int? = 1, after: Int = 0
  ) {
    self.skip = max(0, after)
    self.method = method.uppercased()
    self.path = path
    self.kind = kind
    self.delay = delay
    self.remaining = times
  }

  /// Whether the fault applies to a request.
  public func matches(method: String, path: String) -> Bool {
    guard self.method == "*" || self.method == method.uppercased() else { return false }
    if self.path.hasSuffix("*") { return path.hasPrefix(self.path.dropLast()) }
    return self.path == path
  }

  /// The BDModules error code the demo API uses for a status.
  public static func code(forStatus status: Int) -> String {
    switch status {
    case 400: return "BadRequest"
    case 401: return "Unauthorized"
    case 403: return "Forbidden"
    case 404: return "ResourceNotFound"
    case 409: return "Conflict"
    case 422: return "ValidationFailed"
    case 429: return "TooManyRequests"
    case 500: return "InternalError"
    case 502: return "BadGateway"
    case 503: return "ServiceUnavailable"
    case 504: return "GatewayTimeout"
    default: return status >= 500 ? "ServerError" : "ClientError"
    }
  }
}

/// The faults a running demo API injects, shared between the shell that adds them and the server
/// that applies them.
public final class FaultTable: Sendable {
  private let faults: Mutex<[Fault]> = Mutex([])

  /// Creates an empty table.
  public init() {}

  /// Adds a fault; the first added fault that matches a request applies to it.
  public func add(_ fault: Fault) { faults.withLock { faults in faults.append(fault) } }

  /// The faults still active, in the order they were added.
  public var active: [Fault] { faults.withLock { faults in faults } }

  /// Removes every fault and returns how many there were.
  @discardableResult
  public func clear() -> Int {
    faults.withLock { faults in
      defer { faults.removeAll() }
      return faults.count
    }
  }

  /// Removes the faults added for `path` (as it was given, so `/products/*` removes the prefix
  /// fault, not the faults on single products), and only those for `method` when it is given;
  /// returns them, in the order they were added.
  @discardableResult
  public func clear(path: String, method: String? = nil) -> [Fault] {
    faults.withLock { faults in
      let method = method?.uppercased()
      let removed = faults.filter { $0.path == path && (method == nil || $0.method == method) }
      faults.removeAll { $0.path == path && (method == nil || $0.method == method) }
      return removed
    }
  }

  /// The fault that applies to a request, counting it as used (the server calls this).
  public func take(method: String, path: String) -> Fault? {
    faults.withLock { faults in
      guard let index = faults.firstIndex(where: { $0.matches(method: method, path: path) }) else {
        return nil
      }
      if faults[index].skip > 0 {
        faults[index].skip -= 1
        return nil
      }
      faults[index].hits += 1
      let fault = faults[index]
      if let remaining = faults[index].remaining {
        if remaining <= 1 {
          faults.remove(at: index)
        } else {
          faults[index].remaining = remaining - 1
        }
      }
      return fault
    }
  }
}
