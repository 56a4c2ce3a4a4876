import DemoAPI
import Foundation
import TestSupport

/// One demo API for the Domain tests, started on a Dispatch thread.
///
/// `DemoAPI.start` blocks its thread until the server listens, and the server itself runs on
/// Swift's cooperative pool. Two suites starting servers from pool threads at once could block
/// the whole pool on a two-core machine, so the start happens off the pool while the test awaits.
actor TestServer {
  static let shared = TestServer()
  private var starting: Task<DemoAPI, Error>?

  /// The shared server, started on first use with a catalog of 30 products.
  func get() async throws -> DemoAPI {
    if let starting { return try await starting.value }
    let task = Task<DemoAPI, Error> { try await Self.start(catalogSize: 30) }
    starting = task
    return try await task.value
  }

  /// A server of a test's own, started off the pool; the test stops it.
  static func start(catalogSize: Int = 100) async throws -> DemoAPI {
    try await offPool { try DemoAPI.start(catalogSize: catalogSize) }
  }
}

/// Runs blocking work on a Dispatch thread, off the cooperative pool the in-process server
/// answers on: a test that blocked a pool thread while waiting could starve it (the archsh binary
/// waits on its main thread instead).

/// Runs blocking work that can fail on a Dispatch thread, off the cooperative pool.
