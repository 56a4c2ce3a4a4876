import DemoAPI
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import Testing

@testable import Domain
@testable import Plumbing

/// A name whose lookup does not answer until the test lets it: the resolver stands in for the
/// system's for it, and answers 127.0.0.1 for every other name.
private let slowName = "archsh-slow-lookup.test"

private final class SlowResolver: Resolver, Sendable {
  /// The lookups of the slow name, held until `release`.
  let held = Mutex<[EventLoopPromise<[SocketAddress]>]>([])

  func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
    let loop = ClientLoop.group.next()
    guard host == slowName else {
      return loop.makeCompletedFuture { [try SocketAddress(ipAddress: "127.0.0.1", port: port)] }
    }
    let promise = loop.makePromise(of: [SocketAddress].self)
    held.withLock { $0.append(promise) }
    return promise.futureResult
  }

  /// Ends every held lookup, with no address.
  func release() {
    for promise in held.withLock({ $0 }) { promise.succeed([]) }
  }

  func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
    ClientLoop.group.next().makeSucceededFuture([])
  }

  func cancelQueries() {}
}

// A request that neither its cancellation nor its deadline ends hangs: the time limit ends the
// test instead of the whole run. No assertion reads the clock.
@Suite("a name lookup that does not answer", .serialized, .timeLimit(.minutes(1)))
struct SlowLookupTests {
  @Test("ends at once when cancelled, and at the deadline, the lookup left to finish on its own")
  func cancelAndDeadline() throws {
    let resolver = SlowResolver()
    SocketConnection.resolver.withLock { $0 = resolver }
    defer {
      resolver.release()
      SocketConnection.resolver.withLock { $0 = nil }
    }
    let url = try #require(URL(string: "http://\(slowName)/"))
    // The lookups never answer while the test runs: only the cancellation and the deadline can
    // end these requests, and each says which did.
    let asked = Mutex(0)
    let cancelled = HTTPTransport.perform(
      method: "GET", url: url, headers: [], body: nil,
      deadline: DispatchTime.now().uptimeNanoseconds + 600_000_000_000,
      control: ExchangeControl {
        asked.withLock {
          $0 += 1
          return $0 > 2
        }
      })
    #expect(throws: TransportError.cancelled) { try cancelled.get() }
    let timed = HTTPTransport.perform(
      method: "GET", url: url, headers: [], body: nil,
      deadline: DispatchTime.now().uptimeNanoseconds + 200_000_000)
    #expect(throws: TransportError.timedOut) { try timed.get() }
    // Other names still resolve, while the slow lookups have not finished.
    let api = try DemoAPI.start()
    defer { api.stop() }
    let port = try #require(api.baseURL.port)
    let local = try #require(URL(string: "http://localhost:\(port)/products/1"))
    let answer = HTTPTransport.perform(
      method: "GET", url: local, headers: [], body: nil,
      deadline: DispatchTime.now().uptimeNanoseconds + 5_000_000_000)
    #expect(try answer.get().head.status.code == 200)
    // It answered while both slow lookups were still unanswered.
    #expect(resolver.held.withLock { $0.count } == 2)
  }
}
