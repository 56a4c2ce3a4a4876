import DemoAPI
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

@testable import Domain
@testable import Plumbing

/// A name whose lookup takes three seconds: the resolver stands in for the system's for it, and
/// answers 127.0.0.1 for every other name.
private let slowName = "archsh-slow-lookup.test"

private final class SlowResolver: Resolver, Sendable {
  func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
    let loop = ClientLoop.group.next()
    guard host == slowName else {
      return loop.makeCompletedFuture { [try SocketAddress(ipAddress: "127.0.0.1", port: port)] }
    }
    return loop.scheduleTask(in: .seconds(3)) { [SocketAddress]() }.futureResult
  }

  func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
    ClientLoop.group.next().makeSucceededFuture([])
  }

  func cancelQueries() {}
}

@Suite("a name lookup that does not answer", .serialized)
struct SlowLookupTests {
  @Test("ends at once when cancelled, and at the deadline, the lookup left to finish on its own")
  func cancelAndDeadline() throws {
    SocketConnection.resolver.withLock { $0 = SlowResolver() }
    defer { SocketConnection.resolver.withLock { $0 = nil } }
    let url = try #require(URL(string: "http://\(slowName)/"))
    let start = Date()
    let cancelled = HTTPTransport.perform(
      method: "GET", url: url, headers: [], body: nil,
      deadline: DispatchTime.now().uptimeNanoseconds + 5_000_000_000,
      control: ExchangeControl { Date().timeIntervalSince(start) > 0.1 })
    #expect(throws: TransportError.cancelled) { try cancelled.get() }
    #expect(Date().timeIntervalSince(start) < 1)
    let timed = HTTPTransport.perform(
      method: "GET", url: url, headers: [], body: nil,
      deadline: DispatchTime.now().uptimeNanoseconds + 200_000_000)
    #expect(throws: TransportError.timedOut) { try timed.get() }
    #expect(Date().timeIntervalSince(start) < 2)
    // Other names still resolve, while the slow lookups have not finished.
    let api = try DemoAPI.start()
    defer { api.stop() }
    let port = try #require(api.baseURL.port)
    let local = try #require(URL(string: "http://localhost:\(port)/products/1"))
    let answer = HTTPTransport.perform(
      method: "GET", url: local, headers: [], body: nil,
      deadline: DispatchTime.now().uptimeNanoseconds + 5_000_000_000)
    #expect(try answer.get().head.status.code == 200)
    #expect(Date().timeIntervalSince(start) < 2.5)
  }
}
