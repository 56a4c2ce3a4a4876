import DemoAPI
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

@testable import Domain
@testable import Plumbing

@Suite("the pool of kept connections")
struct ConnectionPoolTests {
  final class Fake: @unchecked Sendable {
    let name: String
    var closed = false
    init(_ name: String) { self.name = name }
  }

  @Test("a full pool lets go of the connection that waited longest, whichever server it leads to")
  func evictsTheOldest() {
    let pool = ConnectionPool<Fake>(isOpen: { !$0.closed }, close: { $0.closed = true })
    let first = (0..<16).map { Fake("s\($0)") }
    for (index, connection) in first.enumerated() {
      #expect(pool.put(connection, server: "server\(index)"))
    }
    #expect(pool.idleCount == 16)
    // The seventeenth, to a server that has none waiting: server0's, the oldest, is closed.
    let newest = Fake("new")
    #expect(pool.put(newest, server: "server16"))
    #expect(pool.idleCount == 16)
    #expect(first[0].closed)
    #expect(first[1...].allSatisfy { !$0.closed })
    #expect(pool.take("server0") == nil)
    #expect(pool.take("server16") === newest)
  }

  @Test("a connection idle for 30 s is closed, not reused")
  func idleLimit() {
    let clock = LockedBox<UInt64>(0)
    let pool = ConnectionPool<Fake>(
      isOpen: { !$0.closed }, close: { $0.closed = true }, now: { clock.value })
    let old = Fake("old")
    #expect(pool.put(old, server: "a"))
    clock.value = 29_000_000_000
    let fresh = Fake("fresh")
    #expect(pool.put(fresh, server: "b"))
    clock.value = 31_000_000_000
    #expect(pool.take("a") == nil)
    #expect(old.closed)
    #expect(pool.take("b") === fresh)
  }

  @Test("a server keeps at most four; a fifth is refused, and the most recent is taken first")
  func perServer() {
    let pool = ConnectionPool<Fake>(isOpen: { !$0.closed }, close: { $0.closed = true })
    let kept = (0..<4).map { Fake("c\($0)") }
    for connection in kept { #expect(pool.put(connection, server: "a")) }
    #expect(!pool.put(Fake("c4"), server: "a"))
    #expect(pool.take("a") === kept[3])
    kept[2].closed = true
    // A connection that closed while it waited is passed over.
    #expect(pool.take("a") === kept[1])
  }
}
