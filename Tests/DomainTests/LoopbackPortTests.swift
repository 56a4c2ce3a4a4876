import DemoAPI
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

@testable import Domain
@testable import Plumbing

@Suite("a loopback port's availability")
struct LoopbackPortTests {
  @Test("a port a server listens on is taken; once it stops, the port is free again")
  func takenThenFree() throws {
    let api = try DemoAPI.start()
    let port = try #require(api.baseURL.port)
    #expect(!LoopbackPort.isFree(port))
    api.stop()
    // The graceful shutdown runs on the two threads every demo API in the process shares, which
    // the other suites' servers keep busy in a full parallel run: it is waited for (up to 60 s),
    // not assumed to take a moment.
    var free = false
    for _ in 0..<3000 where !free {
      free = LoopbackPort.isFree(port)
      if !free { Thread.sleep(forTimeInterval: 0.02) }
    }
    #expect(free)
    #expect(!LoopbackPort.isFree(0))
  }
}
