import Foundation
import GRDB
import TestSupport
import Testing

@testable import Domain
@testable import Runtime

/// A clock the tests move by hand.
final class ManualClock: @unchecked Sendable {
  private let lock = NSLock()
  private var seconds: Double = 1_800_000_000
  var now: Date { lock.withLock { Date(timeIntervalSince1970: seconds) } }
  func advance(_ delta: Double) { lock.withLock { seconds += delta } }
}

func text(_ string: String) -> Data { Data(string.utf8) }

/// Given: an in-memory workspace and a controller for `store` on a manual clock.
func makeController(
  _ store: String = "generalCache", workspace: Workspace? = nil, clock: ManualClock = ManualClock()
) throws -> (PersistenceController, Workspace, ManualClock) {
  let workspace = try workspace ?? Workspace(path: ":memory:")
  let controller = PersistenceController(
    identifier: store, workspace: workspace, tracer: Tracer(), now: { clock.now })
  return (controller, workspace, clock)
}

/// The whole state of a store: key, bytes and access count of every entry, in key order.
func state(_ controller: PersistenceController) throws -> [String] {
  try controller.entries().map { "\($0.key):\($0.bytes):\($0.accessCount)" }
}

@Suite("PersistenceController")
struct PersistenceTests {
  @Test("a new workspace has the seed's stores with PINCache's default limits")
  func seedStores() throws {
    let workspace = try Workspace(path: ":memory:")
    let stores = try PersistenceController.stores(in: workspace)
    #expect(
      stores.map(\.name) == [
        "articleAssets", "articleStyles", "bookmarks", "generalCache", "issueAssets", "issues",
        "productCache", "user",
      ])
    #expect(
      stores.allSatisfy {
        $0.limits
          == PersistenceController.Limits(byteLimit: 52_428_800, ageLimit: 2_592_000, ttl: false)
      })
    #expect(stores.allSatisfy { $0.entries == 0 && $0.bytes == 0 })
  }

  @Test("persist, retrieve and remove one entry; reads bump the access count")
  func roundTrip() throws {
    let (controller, _, _) = try makeController("bookmarks")
    try controller.persist(text("https://example.com"), forKey: "home")
    #expect(try state(controller) == ["home:19:0"])
    #expect(try controller.retrieve(forKey: "home") == text("https://example.com"))
    #expect(try controller.retrieve(forKey: "home") == text("https://example.com"))
    #expect(try state(controller) == ["home:19:2"])
    try controller.persist(text("changed"), forKey: "home")
    // Stored again, the key counts its reads over, as its creation time starts over.
    #expect(try state(controller) == ["home:7:0"])
    try controller.remove(forKeys: ["home"])
    #expect(try state(controller) == [])
    #expect(throws: PersistenceController.Error.objectNotFound(store: "bookmarks", keys: ["home"]))
    {
      try controller.retrieve(forKey: "home")
    }
  }

  @Test(
    "retrieving several keeps key order, skips missing keys, and fails only when all are missing")
  func retrieveSeveral() throws {
    let (controller, _, _) = try makeController()
    try controller.persist(text("A"), forKey: "a")
    try controller.persist(text("C"), forKey: "c")
    let found = try controller.retrieveObjects(forKeys: ["c", "b", "a"])
    #expect(found.map(\.key) == ["c", "a"])
    #expect(found.map(\.value) == [text("C"), text("A")])
    #expect(
      throws: PersistenceController.Error.objectNotFound(store: "generalCache", keys: ["x", "y"])
    ) {
      try controller.retrieveObjects(forKeys: ["x", "y"])
    }
    #expect(
      PersistenceController.Error.objectNotFound(store: "s", keys: ["x", "y"]).description
        == "none of the keys 'x', 'y' are in store 's'")
  }

  @Test("removing several removes nothing when one key is missing")
  func removeAllOrNothing() throws {
    let (controller, _, _) = try makeController()
    try controller.persist(text("A"), forKey: "a")
    #expect(throws: PersistenceController.Error.objectNotFound(store: "generalCache", keys: ["b"]))
    {
      try controller.remove(forKeys: ["a", "b"])
    }
    #expect(try state(controller) == ["a:1:0"])
  }

  @Test("byte counts: the total and one key's")
  func byteCounts() throws {
    let (controller, _, _) = try makeController()
    try controller.persist(text("12345"), forKey: "five")
    try controller.persist(text("123"), forKey: "three")
    #expect(try controller.byteCount() == 8)
    #expect(try controller.byteCount(forKey: "three") == 3)
    #expect(
      throws: PersistenceController.Error.objectNotFound(store: "generalCache", keys: ["none"])
    ) {
      try controller.byteCount(forKey: "none")
    }
  }

  @Test("a write over the byte limit trims the least recently accessed entries")
  func lruTrim() throws {
    let (controller, _, clock) = try makeController()
    _ = try controller.changeLimits(byteLimit: 10, ageLimit: nil, ttl: nil)
    try controller.persist(text("aaaa"), forKey: "a")
    clock.advance(2)
    try controller.persist(text("bbbb"), forKey: "b")
    clock.advance(2)
    _ = try controller.retrieve(forKey: "a")  // a is now more recent than b
    clock.advance(2)
    let trimmed = try controller.persist(text("cccc"), forKey: "c")
    #expect(trimmed == ["b"])
    #expect(try state(controller) == ["a:4:1", "c:4:0"])
    #expect(try controller.byteCount() == 8)
  }

  @Test("a value larger than the byte limit is rejected, not silently dropped")
  func tooLarge() throws {
    let (controller, _, _) = try makeController()
    _ = try controller.changeLimits(byteLimit: 4, ageLimit: nil, ttl: nil)
    try controller.persist(text("ok"), forKey: "small")
    #expect(
      throws: PersistenceController.Error.objectFailedToPersist(
        store: "generalCache",
        reason:
          "the value (5 bytes) is larger than the byte limit of store 'generalCache' (4 bytes)")
    ) { try controller.persist(text("12345"), forKey: "big") }
    #expect(try state(controller) == ["small:2:0"])
  }

  @Test("lowering the byte limit trims at once")
  func lowerLimit() throws {
    let (controller, _, clock) = try makeController()
    for key in ["a", "b", "c"] {
      try controller.persist(text("xxxx"), forKey: key)
      clock.advance(2)
    }
    _ = try controller.changeLimits(byteLimit: 8, ageLimit: nil, ttl: nil)
    #expect(try state(controller) == ["b:4:0", "c:4:0"])
  }

  @Test("TTL mode: an entry past its age limit, counted from creation, reads as missing")
  func ttl() throws {
    let (controller, _, clock) = try makeController()
    _ = try controller.changeLimits(byteLimit: nil, ageLimit: 60, ttl: true)
    try controller.persist(text("v"), forKey: "k")
    try controller.persist(text("w"), forKey: "short", ageLimit: 10)
    clock.advance(30)
    #expect(try controller.retrieve(forKey: "k") == text("v"))
    #expect(
      throws: PersistenceController.Error.expired(store: "generalCache", key: "short")
    ) {
      try controller.retrieve(forKey: "short")
    }
    clock.advance(31)
    #expect(throws: PersistenceController.Error.expired(store: "generalCache", key: "k")) {
      try controller.retrieve(forKey: "k")
    }
  }

  @Test("a read sees limits changed since the last read: here, in an atomic run, and elsewhere")
  func readsSeeNewLimits() throws {
    let path = Scratch.file("limits", suffix: ".sqlite")
    let clock = ManualClock()
    let (controller, workspace, _) = try makeController(
      workspace: try Workspace(path: path), clock: clock)
    let (other, _, _) = try makeController(workspace: try Workspace(path: path), clock: clock)
    try controller.persist(text("v"), forKey: "k", ageLimit: 10)
    clock.advance(30)
    // Stored, and expired in TTL mode: said as such, not as missing.
    let missing = PersistenceController.Error.expired(store: "generalCache", key: "k")
    func readable() -> Bool { (try? controller.retrieve(forKey: "k")) != nil }
    #expect(readable())
    _ = try controller.changeLimits(byteLimit: nil, ageLimit: nil, ttl: true)
    #expect(throws: missing) { try controller.retrieve(forKey: "k") }
    try workspace.beginAtomic()
    _ = try controller.changeLimits(byteLimit: nil, ageLimit: nil, ttl: false)
    #expect(readable())
    _ = try controller.changeLimits(byteLimit: nil, ageLimit: nil, ttl: true)
    #expect(!readable())
    try workspace.endAtomic(commit: false)
    // The rollback left TTL on; another connection turns it off.
    #expect(!readable())
    _ = try other.changeLimits(byteLimit: nil, ageLimit: nil, ttl: false)
    #expect(readable())
  }

  @Test("a store dropped after a write and a read is unknown to the next write and read")
  func droppedStoreForgotten() throws {
    let workspace = try Workspace(path: ":memory:")
    try PersistenceController.createStore("scratch", in: workspace, tracer: Tracer())
    let scratch = PersistenceController(
      identifier: "scratch", workspace: workspace, tracer: Tracer())
    try scratch.persist(text("v"), forKey: "k")
    #expect(try scratch.retrieve(forKey: "k") == text("v"))
    try scratch.dropStore()
    #expect(throws: PersistenceController.Error.self) {
      try scratch.persist(text("w"), forKey: "k")
    }
    #expect(throws: PersistenceController.Error.self) { try scratch.retrieve(forKey: "k") }
    try PersistenceController.createStore("scratch", in: workspace, tracer: Tracer())
    try scratch.persist(text("w"), forKey: "k")
    #expect(try scratch.retrieve(forKey: "k") == text("w"))
  }

  @Test("without TTL, expired entries stay readable until trimmed")
  func expiredTrim() throws {
    let (controller, _, clock) = try makeController()
    _ = try controller.changeLimits(byteLimit: nil, ageLimit: 60, ttl: false)
    try controller.persist(text("old"), forKey: "old")
    clock.advance(50)
    try controller.persist(text("new"), forKey: "new")
    clock.advance(20)
    #expect(try controller.retrieve(forKey: "old") == text("old"))
    #expect(try controller.trim(.expired) == ["old"])
    #expect(try state(controller) == ["new:3:0"])
  }

  @Test("trims: largest first to a size, and by creation date")
  func trims() throws {
    let (controller, _, clock) = try makeController()
    try controller.persist(text("1"), forKey: "one")
    clock.advance(10)
    try controller.persist(text("333"), forKey: "three")
    try controller.persist(text("22"), forKey: "two")
    #expect(try controller.trim(.toBytes(3)) == ["three"])
    #expect(try controller.trim(.toDate(clock.now.addingTimeInterval(-5))) == ["one"])
    #expect(try state(controller) == ["two:2:0"])
  }

  @Test("two controllers with one identifier share one data set")
  func sameIdentifier() throws {
    let (first, workspace, _) = try makeController("user")
    let (second, _, _) = try makeController("user", workspace: workspace)
    try first.persist(text("ann"), forKey: "name")
    #expect(try second.retrieve(forKey: "name") == text("ann"))
  }

  @Test("keys come in key order, by prefix range, with a limit")
  func keys() throws {
    let (controller, _, _) = try makeController()
    for key in ["user.b", "user.a", "item", "user", "usex"] {
      try controller.persist(text("v"), forKey: key)
    }
    #expect(try controller.keys() == ["item", "user", "user.a", "user.b", "usex"])
    #expect(try controller.keys(prefix: "user.") == ["user.a", "user.b"])
    #expect(try controller.keys(prefix: "user", limit: 2) == ["user", "user.a"])
    #expect(EntryStorage.prefixUpperBound("ab") == "ac")
  }

  @Test("stores: create, refuse duplicates and bad names, suggest on unknown ones")
  func stores() throws {
    let workspace = try Workspace(path: ":memory:")
    try PersistenceController.createStore("thumbnails", in: workspace, tracer: Tracer())
    #expect(throws: PersistenceController.Error.storeExists("thumbnails")) {
      try PersistenceController.createStore("thumbnails", in: workspace, tracer: Tracer())
    }
    #expect(throws: PersistenceController.Error.invalidStoreName("a b")) {
      try PersistenceController.createStore("a b", in: workspace, tracer: Tracer())
    }
    let (controller, _, _) = try makeController("bookmark", workspace: workspace)
    #expect(throws: PersistenceController.Error.unknownStore("bookmark", suggestion: "bookmarks")) {
      try controller.persist(text("v"), forKey: "k")
    }
    // A read of one key asks for the store and the entry in one statement: still unknownStore.
    #expect(throws: PersistenceController.Error.unknownStore("bookmark", suggestion: "bookmarks")) {
      try controller.retrieve(forKey: "k")
    }
  }

  @Test("an empty value is found, not taken for a missing key")
  func emptyValue() throws {
    let (controller, _, _) = try makeController()
    try controller.persist(Data(), forKey: "empty")
    #expect(try controller.retrieve(forKey: "empty") == Data())
    #expect(
      throws: PersistenceController.Error.objectNotFound(store: "generalCache", keys: ["none"])
    ) {
      try controller.retrieve(forKey: "none")
    }
  }

  @Test("reads' access counts survive a write that fails and rolls back")
  func touchesSurviveFailedWrite() throws {
    let (controller, workspace, _) = try makeController()
    try controller.persist(text("v"), forKey: "k")
    _ = try controller.retrieve(forKey: "k")
    _ = try controller.retrieve(forKey: "k")
    let other = PersistenceController(
      identifier: "nosuchstore", workspace: workspace, tracer: Tracer())
    #expect(throws: PersistenceController.Error.self) { try other.persist(text("x"), forKey: "y") }
    _ = try controller.changeLimits(byteLimit: 1, ageLimit: nil, ttl: nil)
    #expect(throws: PersistenceController.Error.self) {
      try controller.persist(text("too big"), forKey: "z")
    }
    _ = try controller.changeLimits(byteLimit: 0, ageLimit: nil, ttl: nil)
    #expect(try state(controller) == ["k:1:2"])
  }

  @Test("a byte limit of 0 means no limit, as in PINCache")
  func zeroLimit() throws {
    let (controller, _, _) = try makeController()
    _ = try controller.changeLimits(byteLimit: 0, ageLimit: nil, ttl: nil)
    try controller.persist(Data(count: 100_000), forKey: "big")
    try controller.persist(text("small"), forKey: "small")
    #expect(try state(controller) == ["big:100000:0", "small:5:0"])
  }

  @Test("expired entries are removed by the first write, then at most once a minute")
  func automaticAgeTrim() throws {
    let (controller, _, clock) = try makeController()
    _ = try controller.changeLimits(byteLimit: nil, ageLimit: 100, ttl: false)
    try controller.persist(text("1"), forKey: "first")
    clock.advance(101)
    try controller.persist(text("2"), forKey: "second")  // first write of a new minute: trims
    #expect(try state(controller) == ["second:1:0"])
    clock.advance(101)
    try controller.persist(text("3"), forKey: "third")  // a minute later: trims again
    #expect(try state(controller) == ["third:1:0"])
    clock.advance(30)
    try controller.persist(text("4"), forKey: "fourth")
    #expect(try state(controller) == ["fourth:1:0", "third:1:0"])
  }

  @Test("in TTL mode, keys, entries and per-key bytes leave expired entries out")
  func ttlEverywhere() throws {
    let (controller, _, clock) = try makeController()
    _ = try controller.changeLimits(byteLimit: nil, ageLimit: 10, ttl: true)
    try controller.persist(text("old"), forKey: "old")
    clock.advance(5)
    try controller.persist(text("new"), forKey: "new")
    clock.advance(6)
    #expect(try controller.keys() == ["new"])
    #expect(try controller.entries().map(\.key) == ["new"])
    #expect(
      throws: PersistenceController.Error.objectNotFound(store: "generalCache", keys: ["old"])
    ) {
      try controller.byteCount(forKey: "old")
    }
  }

  @Test("the async forms do the same work")
  func asyncForms() async throws {
    let (controller, _, _) = try makeController()
    try await controller.persist(text("v"), forKey: "k")
    #expect(try await controller.retrieve(forKey: "k") == text("v"))
    #expect(try await controller.retrieveObjects(forKeys: ["k", "x"]).map(\.key) == ["k"])
    try await controller.remove(forKeys: ["k"])
    #expect(try controller.keys() == [])
  }

  @Test("operations report spans with store, key, bytes and SQL operation")
  func tracing() throws {
    let tracer = Tracer()
    tracer.enable()
    let workspace = try Workspace(path: ":memory:")
    let controller = PersistenceController(
      identifier: "bookmarks", workspace: workspace, tracer: tracer)
    try controller.persist(text("hello"), forKey: "greeting")
    let span = try #require(tracer.drainCompleted().first)
    #expect(span.component == "PersistenceController")
    #expect(span.operation == "persist")
    #expect(
      span.attributes.map { "\($0.key)=\($0.value)" } == [
        "store=bookmarks", "key=greeting", "bytes=5", "sql=INSERT … ON CONFLICT UPDATE entry",
      ])
  }
}
