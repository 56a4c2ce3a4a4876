import Foundation
import Synchronization

/// Runs blocking work (SQLite, a request waited on) on a thread of its own and resumes the caller
/// when it ends: an async API over a blocking one never blocks a thread of Swift's cooperative
/// pool, which has as many threads as cores (two here), and which the servers' tasks need.
public func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T)
  async throws -> T
{
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try body() }) }.start()
  }
}

/// A bounded pool of threads for blocking work: at most `limit` run at once, started as work
/// arrives and kept for the next, and work beyond them waits its turn in order of arrival.
///
/// Dispatch's pool adds threads slowly while its threads block, so blocking work queued there
/// waits behind one another; a thread per piece of work has no bound at all. A burst of 1,000
/// requests runs here on `limit` threads.
public final class WorkerPool: Sendable {
  /// How many threads may run work at once.
  public let limit: Int
  private let state = Mutex<(queue: [@Sendable () -> Void], threads: Int)>(([], 0))
  private let ready = DispatchSemaphore(value: 0)

  /// Creates a pool of at most `limit` threads.
  public init(limit: Int) {
    self.limit = max(1, limit)
  }

  /// How many threads the pool has started so far.
  public var threads: Int { state.withLock { $0.threads } }

  /// Runs `work` on one of the pool's threads, when one is free.
  public func run(_ work: @escaping @Sendable () -> Void) {
    let startsThread = state.withLock { state -> Bool in
      state.queue.append(work)
      guard state.threads < limit else { return false }
      state.threads += 1
      return true
    }
    ready.signal()
    guard startsThread else { return }
    let thread = Thread { [self] in
      while true {
        ready.wait()
        let next = state.withLock { $0.queue.isEmpty ? nil : $0.queue.removeFirst() }
        next?()
      }
    }
    thread.name = "archsh worker"
    thread.start()
  }
}
