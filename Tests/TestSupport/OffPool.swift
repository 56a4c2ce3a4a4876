import Foundation

/// Runs blocking work (a request waited on, a lock held) on a thread of its own, off Swift's
/// cooperative pool, which two blocked tests would otherwise exhaust on two cores; its 8 MiB stack
/// is the main thread's, for the interpreter's deepest recursion.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    let thread = Thread { continuation.resume(with: Result { try body() }) }
    thread.stackSize = 8 << 20
    thread.start()
  }
}

/// `offPool` for work that cannot fail.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    let thread = Thread { continuation.resume(returning: body()) }
    thread.stackSize = 8 << 20
    thread.start()
  }
}
