import Foundation

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
