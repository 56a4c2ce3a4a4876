import CTLS
import DemoAPI
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

@testable import Domain
@testable import Plumbing

/// A name whose lookup takes three seconds: the resolver stands in for getaddrinfo for it, and
/// forwards every other name.
private let slowName = "archsh-slow-lookup.test"

private func slowResolver(
  _ host: UnsafePointer<CChar>?, _ service: UnsafePointer<CChar>?,
  _ hints: UnsafePointer<addrinfo>?, _ found: UnsafeMutablePointer<UnsafeMutablePointer<addrinfo>?>?
) -> Int32 {
  if let host, String(cString: host) == slowName {
    usleep(3_000_000)
    return EAI_NONAME
  }
  return getaddrinfo(host, service, hints, found)
}

@Suite("a name lookup that does not answer")
struct SlowLookupTests {
  @Test("ends at once when cancelled, and at the deadline, the lookup left to finish on its own")
  func cancelAndDeadline() throws {
    archsh_set_resolver(slowResolver)
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
    // The C call says which wait ended it.
    var error = [CChar](repeating: 0, count: 256)
    var failure: Int32 = 0
    #expect(archsh_connect(slowName, 80, 100, &error, error.count, &failure, nil, nil) == nil)
    #expect(failure == ETIMEDOUT)
    #expect(String(cMessage: error) == "cannot resolve \(slowName): no answer within 100 ms")
    // Other names still resolve through getaddrinfo.
    let api = try DemoAPI.start()
    defer { api.stop() }
    let port = try #require(api.baseURL.port)
    let local = try #require(URL(string: "http://localhost:\(port)/products/1"))
    let answer = HTTPTransport.perform(
      method: "GET", url: local, headers: [], body: nil,
      deadline: DispatchTime.now().uptimeNanoseconds + 5_000_000_000)
    #expect(try answer.get().head.status.code == 200)
  }
}
