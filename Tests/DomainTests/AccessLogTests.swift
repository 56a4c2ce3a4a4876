import Foundation
import GRDB
import TestSupport
import Testing

@testable import Domain
@testable import Runtime

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
    // A read that waited for the writer would wait for ever: the writer ends below.
    #expect(try state(controller) == ["a:1:2", "b:1:0"])
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
