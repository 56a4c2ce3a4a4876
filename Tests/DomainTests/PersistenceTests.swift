import Foundation
import GRDB
import TestSupport
import Testing

@testable import Domain

/// A clock the tests move by hand.
private final class ManualClock: @unchecked Sendable {
  private let lock = NSLock()
  private var seconds: Double = 1_800_000_000
  var now: Date { lock.withLock { Date(timeIntervalSince1970: seconds) } }
  func advance(_ delta: Double) { lock.withLock { seconds += delta } }
}

private func text(_ string: String) -> Data { Data(string.utf8) }

/// Given: an in-memory workspace and a controller for `store` on a manual clock.
private func makeController(
  _ store: String = "generalCache", workspace: Workspace? = nil, clock: ManualClock = ManualClock()
) throws -> (PersistenceController, Workspace, ManualClock) {
  let workspace = try workspace ?? Workspace(path: ":memory:")
  let controller = PersistenceController(
    identifier: store, workspace: workspace, tracer: Tracer(), now: { clock.now })
  return (controller, workspace, clock)
}

/// The whole state of a store: key, bytes and access count of every entry, in key order.
private func state(_ controller: PersistenceController) throws -> [String] {
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
      throws: PersistenceController.Error.objectNotFound(store: "generalCache", keys: ["short"])
    ) {
      try controller.retrieve(forKey: "short")
    }
    clock.advance(31)
    #expect(throws: PersistenceController.Error.objectNotFound(store: "generalCache", keys: ["k"]))
    {
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
    let missing = PersistenceController.Error.objectNotFound(store: "generalCache", keys: ["k"])
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
    #expect(PersistenceController.prefixUpperBound("ab") == "ac")
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

@Suite("Workspace")
struct WorkspaceTests {
  private func temporaryPath(_ name: String = "workspace.sqlite") throws -> String {
    try Scratch.directory("ws") + "/" + name
  }

  /// Two workspaces open on one new file: two connections, as two processes have.
  private func twoConnections() throws -> (Workspace, Workspace) {
    let path = try temporaryPath()
    return (try Workspace(path: path), try Workspace(path: path))
  }

  /// The `user` store's controller on `workspace`.
  private func user(_ workspace: Workspace) -> PersistenceController {
    PersistenceController(identifier: "user", workspace: workspace, tracer: Tracer())
  }

  @Test("controllers of two stores take turns on one workspace: each reads and writes its own")
  func storesTakeTurns() throws {
    let workspace = try Workspace(path: try temporaryPath())
    let stores = ["bookmarks", "generalCache"].map {
      PersistenceController(identifier: $0, workspace: workspace, tracer: Tracer())
    }
    // The kept statements keep their store bound from one use to the next: each turn must bind
    // the store that is asking.
    for round in 0..<3 {
      for (index, store) in stores.enumerated() {
        try store.persist(text("\(store.identifier) \(round)"), forKey: "k\(index)")
      }
      for (index, store) in stores.enumerated() {
        #expect(try store.retrieve(forKey: "k\(index)") == text("\(store.identifier) \(round)"))
        #expect(throws: PersistenceController.Error.self) {
          try store.retrieve(forKey: "k\(1 - index)")
        }
      }
    }
    #expect(try stores[0].keys() == ["k0"])
    #expect(try stores[1].keys() == ["k1"])
  }

  @Test("a new file gets mode 0600, WAL, and the current schema; its data survives reopening")
  func newFile() throws {
    let path = try temporaryPath()
    do {
      let workspace = try Workspace(path: path)
      try PersistenceController(identifier: "user", workspace: workspace, tracer: Tracer()).persist(
        Data("1".utf8), forKey: "k")
      let info = try workspace.info()
      #expect(info.journalMode == "wal")
      #expect(info.schemaVersion == Workspace.schemaVersion)
    }
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    let reopened = try Workspace(path: path)
    #expect(
      try PersistenceController(identifier: "user", workspace: reopened, tracer: Tracer()).keys()
        == ["k"])
    #expect(try reopened.integrityCheck() == ["ok"])
  }

  @Test("two workspaces open on one file share one data set")
  func twoWorkspacesOneFile() throws {
    let path = try temporaryPath()
    let first = try Workspace(path: path)
    let second = try Workspace(path: path)
    try PersistenceController(identifier: "user", workspace: first, tracer: Tracer()).persist(
      Data("ann".utf8), forKey: "name")
    #expect(
      try PersistenceController(identifier: "user", workspace: second, tracer: Tracer()).retrieve(
        forKey: "name") == Data("ann".utf8))
  }

  @Test("another application's SQLite database is refused and left untouched")
  func foreignDatabase() throws {
    let path = try temporaryPath("other.sqlite")
    do {
      let other = try DatabaseQueue(path: path)
      try other.write { db in
        try db.execute(sql: "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hi')")
      }
    }
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(throws: WorkspaceError.foreignDatabase(path: path)) { try Workspace(path: path) }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
  }

  @Test(
    "the totals follow every write, removal, trim, drop and rollback, and other processes' writes")
  func totalsFollowWrites() throws {
    let (first, second) = try twoConnections()
    func listed(_ workspace: Workspace) throws -> String {
      let summary = try PersistenceController.stores(in: workspace).first { $0.name == "user" }
      return summary.map { "\($0.entries) entries, \($0.bytes) bytes" } ?? "none"
    }
    try user(first).persist(Data("abc".utf8), forKey: "a")
    try user(first).persist(Data("defg".utf8), forKey: "b")
    #expect(try listed(first) == "2 entries, 7 bytes")
    try user(first).persist(Data("x".utf8), forKey: "b")
    try user(first).remove(forKeys: ["a"])
    #expect(try listed(first) == "1 entries, 1 bytes")
    // The other connection's writes are counted again by the first.
    try user(second).persist(Data("12345".utf8), forKey: "c")
    #expect(try listed(first) == "2 entries, 6 bytes")
    #expect(try user(first).byteCount() == 6)
    // A rolled-back write takes its change to the totals with it.
    try first.beginAtomic()
    try user(first).persist(Data("long value".utf8), forKey: "d")
    #expect(try listed(first) == "3 entries, 16 bytes")
    try first.endAtomic(commit: false)
    #expect(try listed(first) == "2 entries, 6 bytes")
    #expect(try user(first).trim(.toBytes(2)) == ["c"])
    #expect(try listed(first) == "1 entries, 1 bytes")
    #expect(try listed(second) == "1 entries, 1 bytes")
    try PersistenceController.createStore("scratch", in: first, tracer: Tracer())
    let scratch = PersistenceController(identifier: "scratch", workspace: first, tracer: Tracer())
    try scratch.persist(Data("zz".utf8), forKey: "z")
    #expect(try scratch.dropStore().bytes == 2)
    for workspace in [first, second] { #expect(try workspace.integrityCheck() == ["ok"]) }
  }

  @Test("a store over its limit is trimmed after a write although the database is larger")
  func trimInLargerDatabase() throws {
    let workspace = try Workspace(path: ":memory:")
    let general = PersistenceController(
      identifier: "generalCache", workspace: workspace, tracer: Tracer())
    // Other stores make the database larger than this store's limit.
    try general.persist(Data(repeating: 1, count: 20_000), forKey: "big")
    let user = PersistenceController(identifier: "user", workspace: workspace, tracer: Tracer())
    _ = try user.changeLimits(byteLimit: 10_000, ageLimit: nil, ttl: nil)
    try user.persist(Data(repeating: 2, count: 6_000), forKey: "a")
    #expect(try user.persist(Data(repeating: 3, count: 6_000), forKey: "b") == ["a"])
    #expect(try user.keys() == ["b"])
    #expect(try user.byteCount() == 6_000)
  }

  @Test("another process's persists count: the next write here trims the store they filled")
  func foreignWritesCount() throws {
    let (first, second) = try twoConnections()
    _ = try user(first).changeLimits(byteLimit: 500_000, ageLimit: nil, ttl: nil)
    let value = Data(repeating: 1, count: 200_000)
    #expect(try user(first).persist(Data("1".utf8), forKey: "a") == [])
    #expect(try user(second).persist(value, forKey: "b") == [])
    #expect(try user(second).persist(value, forKey: "c") == [])
    // 400,001 bytes are stored; this persist makes 600,001, and the oldest entries go.
    #expect(try user(first).persist(value, forKey: "d") == ["a", "b"])
    #expect(try user(second).byteCount() == 400_000)
  }

  @Test("a store whose bytes were bounded by the database's size is trimmed as soon as it is over")
  func boundedThenOver() throws {
    let workspace = try Workspace(path: ":memory:")
    let user = PersistenceController(identifier: "user", workspace: workspace, tracer: Tracer())
    _ = try user.changeLimits(byteLimit: 1_000_000, ageLimit: nil, ttl: nil)
    let value = Data(repeating: 7, count: 300_000)
    // The first writes fit in a database smaller than the limit; the third makes the bound pass
    // it, and a count finds 900,000 bytes; the fourth is over.
    #expect(try user.persist(value, forKey: "a") == [])
    #expect(try user.persist(value, forKey: "b") == [])
    #expect(try user.persist(value, forKey: "c") == [])
    #expect(try user.byteCount() == 900_000)
    #expect(try user.persist(value, forKey: "d") == ["a"])
    #expect(try user.keys() == ["b", "c", "d"])
    #expect(try workspace.integrityCheck() == ["ok"])
  }

  /// A workspace written at schema `version`, filled by `fill`, then opened by this archsh, and
  /// its store `user`.
  private func opened(
    from version: String, filledBy fill: (Database) throws -> Void
  ) throws -> (Workspace, PersistenceController) {
    let path = try temporaryPath()
    do {
      let queue = try DatabaseQueue(path: path)
      try WorkspaceSchema.migrator.migrate(queue, upTo: version)
      try queue.write(fill)
    }
    let workspace = try Workspace(path: path)
    return (
      workspace, PersistenceController(identifier: "user", workspace: workspace, tracer: Tracer())
    )
  }

  @Test("a workspace of schema v12 keeps the reads it logged a row each when the log is batched")
  func fromSchemaV12() throws {
    let (workspace, user) = try opened(from: "v12-totals-per-connection") { db in
      try db.execute(
        sql: """
          INSERT INTO entry (store, key, value, bytes, created_at, accessed_at, access_count)
          VALUES ('user', 'a', x'61', 1, 1.5, 1.5, 2), ('user', 'b', x'62', 1, 2.0, 2.0, 0);
          INSERT INTO entry_touch (store, key, created_at, accessed_at, reads)
          VALUES ('user', 'a', 1.5, 7.0, 3), ('user', 'a', 1.5, 5.0, 1),
            ('user', 'b', 1.0, 9.0, 4);
          """)
    }
    #expect(try workspace.info().schemaVersion == "v13-touch-log-batches")
    // a's four reads of its value count; b's were of a value stored before its own.
    let entries = try user.entries()
    #expect(entries.map { "\($0.key):\($0.accessCount)" } == ["a:6", "b:0"])
    #expect(entries.map(\.accessed.timeIntervalSince1970) == [7.0, 2.0])
    let tables = try workspace.read { db in
      try String.fetchAll(
        db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'entry_touch%' ORDER BY name")
    }
    #expect(tables == ["entry_touch_log"])
  }

  @Test("a workspace of schema v11 keeps its entries when the totals leave the store table")
  func fromSchemaV11() throws {
    let (workspace, user) = try opened(from: "v11-entry-touch-log") { db in
      try db.execute(
        sql: """
          INSERT INTO entry (store, key, value, bytes, created_at, accessed_at)
          VALUES ('user', 'k', x'616263', 3, 1.0, 1.0)
          """)
      #expect(
        try Int.fetchOne(db, sql: "SELECT total_bytes FROM store WHERE name = 'user'") == 3)
    }
    #expect(try workspace.info().schemaVersion == "v13-touch-log-batches")
    #expect(try user.retrieve(forKey: "k") == Data("abc".utf8))
    #expect(try user.byteCount() == 3)
    let columns = try workspace.read { db in try db.columns(in: "store").map(\.name) }
    #expect(columns == ["name", "byte_limit", "age_limit", "ttl"])
    let leftovers = try workspace.read { db in
      try String.fetchAll(
        db,
        sql: """
          SELECT name FROM sqlite_master WHERE type IN ('trigger', 'index')
          AND tbl_name IN ('store', 'entry') AND sql IS NOT NULL
          """)
    }
    #expect(leftovers == [])
  }

  @Test("a file that is not a database is refused and left untouched")
  func notADatabase() throws {
    let path = try temporaryPath("notes.txt")
    let contents = Data(String(repeating: "not a database\n", count: 100).utf8)
    try contents.write(to: URL(fileURLWithPath: path))
    #expect(throws: WorkspaceError.self) { try Workspace(path: path) }
    do {
      _ = try Workspace(path: path)
    } catch {
      #expect(
        error.description
          == "'\(path)' is not an archsh workspace: file is not a database (SQLite error 26); the file was left untouched"
      )
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents)
  }

  @Test("a file migrated by a newer archsh is refused with the unknown version")
  func newerSchema() throws {
    let path = try temporaryPath()
    do {
      let workspace = try Workspace(path: path)
      try workspace.write("test") { db in
        try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v9-from-the-future')")
      }
    }
    #expect(
      throws: WorkspaceError.newerSchema(
        path: path, unknown: ["v9-from-the-future"], known: Workspace.schemaVersion)
    ) { try Workspace(path: path) }
  }

  @Test("a read-only file: reads work, writes fail saying why")
  func readOnly() throws {
    let path = try temporaryPath()
    do {
      let workspace = try Workspace(path: path)
      try PersistenceController(identifier: "user", workspace: workspace, tracer: Tracer()).persist(
        Data("v".utf8), forKey: "k")
    }
    chmod(path, 0o444)
    let workspace = try Workspace(path: path)
    let controller = PersistenceController(
      identifier: "user", workspace: workspace, tracer: Tracer())
    #expect(workspace.isReadOnly)
    #expect(try controller.retrieve(forKey: "k") == Data("v".utf8))
    #expect(throws: WorkspaceError.readOnly(path: path, operation: "persisting a key")) {
      try controller.persist(Data("w".utf8), forKey: "k2")
    }
  }

  @Test("an atomic transaction commits everything or nothing")
  func atomic() throws {
    let workspace = try Workspace(path: ":memory:")
    let controller = PersistenceController(
      identifier: "user", workspace: workspace, tracer: Tracer())
    try workspace.beginAtomic()
    try controller.persist(Data("1".utf8), forKey: "a")
    try controller.persist(Data("2".utf8), forKey: "b")
    try workspace.endAtomic(commit: false)
    #expect(try controller.keys() == [])
    try workspace.beginAtomic()
    try controller.persist(Data("1".utf8), forKey: "a")
    try workspace.endAtomic(commit: true)
    #expect(try controller.keys() == ["a"])
  }
}

/// The reads waiting in the `entry_touch_log`, and one entry's stored access count.
private func logged(_ workspace: Workspace, key: String) throws -> (rows: Int, count: Int) {
  try workspace.read { db in
    (
      try Int.fetchOne(db, sql: "SELECT coalesce(sum(reads), 0) FROM entry_touch_log") ?? -1,
      try Int.fetchOne(db, sql: "SELECT access_count FROM entry WHERE key = ?", arguments: [key])
        ?? -1
    )
  }
}

@Suite("access times, logged and folded in")
struct AccessLogTests {
  @Test("the log keeps each touch's key, exact times and reads; a log cut short ends cleanly")
  func touchLogRoundTrip() throws {
    var touches = Workspace.Touches()
    let keys = ["", "k", "ключ é", "🔑", String(repeating: "long", count: 50)]
    // A time that text with 17 digits would not give back by every parser, and negative zero.
    let times = [1_764_128_472.123_456_7, 0.1 + 0.2, -0.0, 1e300, Double.leastNonzeroMagnitude]
    for (key, time) in zip(keys, times) {
      touches.record(store: "s", key: key, created: time, time: time.nextUp)
    }
    touches.record(store: "other", key: "k", created: 1, time: 2)
    let batches = touches.encodedByStore()
    #expect(batches.map(\.store) == ["s", "other"])
    #expect(batches.map(\.reads) == [5, 1])
    var decoded: [String] = []
    batches[0].log.withUnsafeBytes { log in
      Workspace.TouchLog.decode(log) { key, created, time, reads in
        decoded.append("\(key)|\(created.bitPattern)|\(time.bitPattern)|\(reads)")
      }
    }
    #expect(
      decoded
        == zip(keys, times).map { "\($0)|\($1.bitPattern)|\($1.nextUp.bitPattern)|1" })
    // Every cut of the log gives the whole touches before the cut, in order, never a made-up one.
    for cut in 0..<batches[0].log.count {
      var cutDecoded: [String] = []
      Array(batches[0].log.prefix(cut)).withUnsafeBytes { log in
        Workspace.TouchLog.decode(log) { key, created, time, reads in
          cutDecoded.append("\(key)|\(created.bitPattern)|\(time.bitPattern)|\(reads)")
        }
      }
      #expect(cutDecoded.count < keys.count)
      #expect(cutDecoded == Array(decoded.prefix(cutDecoded.count)), "cut at \(cut)")
    }
  }

  @Test("two spellings of one key are two entries, and their reads are counted apart")
  func spellingsApart() throws {
    let (controller, workspace, _) = try makeController()
    let precomposed = "caf\u{E9}"
    let combining = "cafe\u{301}"
    // The clock stands still: both values are stored at the same time.
    try controller.persist(text("1"), forKey: precomposed)
    try controller.persist(text("2"), forKey: combining)
    for key in [precomposed, precomposed, combining] { _ = try controller.retrieve(forKey: key) }
    try workspace.flushPendingTouches()
    // The log's size is its last rowid: the reads logged so far.
    let size = try workspace.read { db in
      try Int.fetchOne(db, sql: "SELECT max(rowid) FROM entry_touch_log")
    }
    #expect(size == 3)
    let counts = try controller.entries().map { ($0.key.unicodeScalars.count, $0.accessCount) }
    #expect(counts.sorted { $0.0 < $1.0 }.map(\.1) == [2, 1])
  }

  @Test("reads that wait long are combined in memory, a touch for each value read")
  func waitingReadsCombined() {
    var touches = Workspace.Touches()
    let total = Workspace.Touches.combinedAbove + 1
    for read in 0..<total {
      touches.record(store: "s", key: "k\(read % 3)", created: 1, time: Double(read))
    }
    #expect(touches.count == total)
    #expect(touches.touches.map(\.key) == ["k0", "k1", "k2"])
    #expect(touches.touches.map(\.reads).reduce(0, +) == total)
    #expect(touches.touches.map(\.time).max() == Double(total - 1))
    let batches = touches.encodedByStore()
    #expect(batches.map(\.reads) == [total])
    var reads = 0
    batches[0].log.withUnsafeBytes { log in
      Workspace.TouchLog.decode(log) { _, _, _, count in reads += count }
    }
    #expect(reads == total)
  }

  @Test("reads go to the log with the next write; listing the entries folds them in")
  func foldedOnListing() throws {
    let (controller, workspace, clock) = try makeController()
    try controller.persist(text("1"), forKey: "a")
    for _ in 0..<3 { _ = try controller.retrieve(forKey: "a") }
    clock.advance(5)
    try controller.persist(text("2"), forKey: "b")
    #expect(try logged(workspace, key: "a") == (3, 0))
    let entries = try controller.entries()
    #expect(entries.map { "\($0.key):\($0.accessCount)" } == ["a:3", "b:0"])
    #expect(try logged(workspace, key: "a") == (0, 3))
  }

  @Test("many keys' reads are logged in one row for their store, exactly, and folded in")
  func manyKeysLogged() throws {
    let (controller, workspace, clock) = try makeController()
    // An empty key, multi-byte ones, and one longer than 127 bytes, whose length takes two
    // bytes in the log, among them.
    let keys =
      (0..<70).map { "k\($0)" } + ["", "ключ é", "🔑", String(repeating: "long", count: 50)]
    for key in keys { try controller.persist(text(key), forKey: key) }
    for (number, key) in keys.enumerated() {
      for _ in 0...(number % 3) { _ = try controller.retrieve(forKey: key) }
    }
    clock.advance(5)
    try controller.persist(text("x"), forKey: "x")
    let (rows, reads) = try workspace.read { db in
      (
        try Int.fetchOne(db, sql: "SELECT count(*) FROM entry_touch_log") ?? -1,
        try Int.fetchOne(db, sql: "SELECT sum(reads) FROM entry_touch_log") ?? -1
      )
    }
    #expect(rows == 1)
    #expect(reads == keys.indices.map { $0 % 3 + 1 }.reduce(0, +))
    let counts = Dictionary(
      uniqueKeysWithValues: try controller.entries().map { ($0.key, $0.accessCount) })
    for (number, key) in keys.enumerated() { #expect(counts[key] == number % 3 + 1, "\(key)") }
  }

  @Test("reads of a value stored again, or of a key removed and stored again, count for nothing")
  func oldValuesReadsDropped() throws {
    let (controller, _, clock) = try makeController()
    try controller.persist(text("1"), forKey: "a")
    try controller.persist(text("1"), forKey: "b")
    _ = try controller.retrieve(forKey: "a")
    _ = try controller.retrieve(forKey: "b")
    clock.advance(1)
    try controller.persist(text("2"), forKey: "a")
    try controller.remove(forKeys: ["b"])
    try controller.persist(text("3"), forKey: "b")
    _ = try controller.retrieve(forKey: "b")
    #expect(try state(controller) == ["a:1:0", "b:1:1"])
  }

  @Test("least-recently-used trimming sees the reads still in the log")
  func trimSeesLoggedReads() throws {
    let (controller, workspace, clock) = try makeController()
    for key in ["a", "b", "c"] {
      try controller.persist(text("12345"), forKey: key)
      clock.advance(1)
    }
    _ = try controller.retrieve(forKey: "a")
    clock.advance(1)
    try controller.persist(text("x"), forKey: "d")
    #expect(try logged(workspace, key: "a").rows == 1)
    #expect(try controller.trim(.leastRecentlyUsed(toBytes: 6)) == ["b", "c"])
    #expect(try controller.keys() == ["a", "d"])
  }

  @Test("listing the entries while another process writes neither waits nor misses logged reads")
  func listingWhileLocked() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "archsh-log-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("ws.sqlite").path
    let (controller, workspace, _) = try makeController(workspace: try Workspace(path: path))
    try controller.persist(text("1"), forKey: "a")
    for _ in 0..<2 { _ = try controller.retrieve(forKey: "a") }
    try controller.persist(text("2"), forKey: "b")
    let other = try Workspace(path: path)
    try other.beginAtomic()
    let start = Date()
    #expect(try state(controller) == ["a:1:2", "b:1:0"])
    #expect(Date().timeIntervalSince(start) < 1)
    #expect(try logged(workspace, key: "a") == (2, 0))
    try other.endAtomic(commit: true)
    #expect(try state(controller) == ["a:1:2", "b:1:0"])
    #expect(try logged(workspace, key: "a") == (0, 2))
  }

  @Test("a log that outgrows twice the entries is folded in by the write that grew it")
  func foldedWhenLarge() throws {
    let workspace = try Workspace(path: ":memory:")
    workspace.touchLogFloor = 2
    let (controller, _, _) = try makeController(workspace: workspace)
    try controller.persist(text("1"), forKey: "a")
    for round in 1...3 {
      _ = try controller.retrieve(forKey: "a")
      try controller.persist(text("1"), forKey: "other-\(round)")
    }
    // Four entries allow eight reads: the log keeps its three.
    #expect(try logged(workspace, key: "a") == (3, 0))
    workspace.touchLogFloor = 0
    for round in 4...9 {
      _ = try controller.retrieve(forKey: "a")
      try workspace.write("a write") { _ in }
      _ = round
    }
    let (rows, count) = try logged(workspace, key: "a")
    #expect(rows < 9 && count > 0 && rows + count == 9)
  }
}

@Suite("the workspace's migrations, listed in version order")
struct MigrationListTests {
  @Test(
    "every migration declared in Domain is listed, numbered from 1 without a gap, the newest last")
  func numbered() throws {
    let identifiers = WorkspaceSchema.migrations.map(\.identifier)
    let number = { (identifier: String) in
      Int(identifier.dropFirst().prefix { $0.isNumber }) ?? 0
    }
    #expect(identifiers.map(number) == Array(1...identifiers.count))
    #expect(Set(identifiers).count == identifiers.count)
    #expect(identifiers.first == "v1-stores-and-entries")
    #expect(WorkspaceSchema.schemaVersion == identifiers.last)
    // A migration declared next to its feature but missing from the list fails here.
    let domain = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Sources/Domain").standardized
    var declared: Set<String> = []
    let files = try #require(FileManager.default.enumerator(atPath: domain.path))
    for case let file as String in files where file.hasSuffix(".swift") {
      let text = try String(contentsOfFile: domain.path + "/" + file, encoding: .utf8)
      for match in text.matches(of: /Migration\(identifier: "(v[0-9]+-[a-z0-9-]+)"/) {
        declared.insert(String(match.1))
      }
    }
    #expect(declared.count > 10)
    #expect(
      declared == Set(identifiers), "declared but not listed: \(declared.subtracting(identifiers))")
  }
}

@Suite("values kept by store, the last store held apart")
struct ByStoreTests {
  @Test("values survive switching stores, nil removes one, and removeAll forgets them all")
  func switching() {
    var kept = ByStore<Int>()
    #expect(kept["a"] == nil)
    kept["a"] = 1
    kept["b"] = 2
    #expect(kept["a"] == 1)
    kept["a"] = 3
    #expect(kept["b"] == 2)
    #expect(kept["a"] == 3)
    kept["b"] = nil
    #expect(kept["c"] == nil)
    #expect(kept["b"] == nil)
    #expect(kept["a"] == 3)
    kept.removeAll()
    #expect(kept["a"] == nil)
    kept["b"] = 4
    #expect(kept["a"] == nil)
    #expect(kept["b"] == 4)
    // Two spellings of one name are two stores, as they are two rows for SQLite.
    let precomposed = "caf\u{E9}"
    let combining = "cafe\u{301}"
    #expect(precomposed == combining)
    kept[precomposed] = 5
    #expect(kept[combining] == nil)
    kept[combining] = 6
    #expect(kept[precomposed] == 5)
    #expect(kept[combining] == 6)
  }
}
