import DemoAPI
import Foundation

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
    let task = Task<DemoAPI, Error> {
      try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
          continuation.resume(with: Result { try DemoAPI.start(catalogSize: 30) })
        }
      }
    }
    starting = task
    return try await task.value
  }
}
