import Foundation
import GRDB
import GRDBSQLite
import Plumbing

extension Workspace {
  /// Reads not yet written, in the order they happened.
  ///
  /// Recording a read appends it; the reads of one value are combined when the log is folded in
  /// (`loggedReads`), not on every read, which would hash the store's name and the key each time.
  /// Reads that cannot be written for a long time (another process holds the write lock) are
  /// combined in memory once they are many, so that they take the room of the values read, not
  /// of the reads.
  package struct Touches {
    /// Reads of `key` in `store`, whose value was stored at `created`: the last at `time`.
    package struct Touch {
      package var store: String
      package var key: String
      package var created: Double
      package var time: Double
      package var reads: Int
    }

    /// The reads, oldest first.
    private(set) var touches: [Touch] = []
    /// How many reads in all.
    private(set) var count = 0

    /// How many touches are kept before the reads of each value are combined.
    package static let combinedAbove = 64 * Workspace.touchBatch
    /// The size past which they are combined next: twice what the last combining left, so that
    /// many values read do not combine again at every read.
    private var combineAt = Touches.combinedAbove

    /// Adds one read at `time` of `key` in `store`, whose value was stored at `created`.
    package mutating func record(store: String, key: String, created: Double, time: Double) {
      if touches.isEmpty { touches.reserveCapacity(Workspace.touchBatch) }
      touches.append(Touch(store: store, key: key, created: created, time: time, reads: 1))
      count += 1
      if touches.count > combineAt { combine() }
    }

    /// Adds every read of `other`.
    package mutating func merge(_ other: Touches) {
      // The usual case, taking the pending reads into an empty set, is a move, not a copy.
      if touches.isEmpty {
        self = other
        return
      }
      touches.append(contentsOf: other.touches)
      count += other.count
      if touches.count > combineAt { combine() }
    }

    /// Returns the reads and leaves the set empty.
    package mutating func take() -> Touches {
      let taken = self
      self = Touches()
      return taken
    }

    /// Keeps one touch for each value read: the latest time and the sum of the reads.
    package mutating func combine() {
      var combined: [LoggedKey: Int] = [:]
      var kept: [Touch] = []
      for touch in touches {
        let value = LoggedKey(store: touch.store, key: touch.key, created: touch.created)
        if let index = combined[value] {
          kept[index].time = max(kept[index].time, touch.time)
          kept[index].reads += touch.reads
        } else {
          combined[value] = kept.count
          kept.append(touch)
        }
      }
      touches = kept
      combineAt = max(Self.combinedAbove, 2 * kept.count)
    }

    /// The reads of each store, encoded for the log (`TouchLog`), in the order the stores were
    /// first read.
    package func encodedByStore() -> [(store: String, reads: Int, log: [UInt8])] {
      var batches: [(store: String, reads: Int, log: [UInt8])] = []
      var current = -1
      for touch in touches {
        // A batch nearly always reads one store: the last one is compared first. Names are
        // compared by their bytes, as SQLite compares them.
        if current < 0 || !batches[current].store.hasSameBytes(as: touch.store) {
          if let found = batches.firstIndex(where: { $0.store.hasSameBytes(as: touch.store) }) {
            current = found
          } else {
            // Room for a batch of short keys; a log grows past it as any array does.
            var log: [UInt8] = []
            log.reserveCapacity(min(touches.count, Workspace.touchBatch) * 32)
            batches.append((touch.store, 0, log))
            current = batches.count - 1
          }
        }
        batches[current].reads += touch.reads
        TouchLog.append(touch, to: &batches[current].log)
      }
      return batches
    }
  }

  /// How reads are kept in a row of the `entry_touch_log` table: for each value read, its
  /// creation time and the time of its last read, each as the 8 bytes of a double,
  /// little-endian; then how many reads, and the key's length in UTF-8 bytes, each as an unsigned
  /// LEB128 number; then the key.
  ///
  /// The times are kept as their bits, not as text: a read counts for an entry only if its
  /// creation time is exactly the entry's `created_at`, and text would have to be parsed back by
  /// SQLite, which may round the last bit.
  package enum TouchLog {
    /// The bytes of a touch before its numbers.
    package static let fixedBytes = 16

    /// Appends one touch to `log`.
    package static func append(_ touch: Touches.Touch, to log: inout [UInt8]) {
      appendBits(touch.created.bitPattern, to: &log)
      appendBits(touch.time.bitPattern, to: &log)
      appendNumber(UInt(touch.reads), to: &log)
      appendNumber(UInt(touch.key.utf8.count), to: &log)
      log.append(contentsOf: touch.key.utf8)
    }

    private static func appendBits(_ bits: UInt64, to log: inout [UInt8]) {
      withUnsafeBytes(of: bits.littleEndian) { log.append(contentsOf: $0) }
    }

    private static func appendNumber(_ number: UInt, to log: inout [UInt8]) {
      var number = number
      while number >= 0x80 {
        log.append(UInt8(truncatingIfNeeded: number) | 0x80)
        number >>= 7
      }
      log.append(UInt8(number))
    }

    /// Calls `each` with every touch in `log`, in order; a log cut short ends at the last whole
    /// touch (only access times are lost, never an entry).
    package static func decode(
      _ log: UnsafeRawBufferPointer,
      _ each: (_ key: String, _ created: Double, _ time: Double, _ reads: Int) -> Void
    ) {
      var offset = 0
      while log.count - offset > fixedBytes {
        let created = Double(
          bitPattern: UInt64(
            littleEndian: log.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
        let time = Double(
          bitPattern: UInt64(
            littleEndian: log.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
        offset += fixedBytes
        guard let reads = number(in: log, at: &offset), let length = number(in: log, at: &offset),
          length <= log.count - offset
        else { return }
        let key = String(
          decoding: UnsafeRawBufferPointer(rebasing: log[offset..<(offset + length)]), as: UTF8.self
        )
        offset += length
        each(key, created, time, reads)
      }
    }

    /// The LEB128 number at `offset`, which moves past it; nil when the log ends inside it or it
    /// does not fit an Int.
    private static func number(in log: UnsafeRawBufferPointer, at offset: inout Int) -> Int? {
      var number = 0
      var shift = 0
      while offset < log.count, shift < 63 {
        let byte = log[offset]
        offset += 1
        number |= Int(byte & 0x7f) << shift
        if byte < 0x80 { return number }
        shift += 7
      }
      return nil
    }
  }

  /// A key whose reads are logged: its store, and the creation time of the value they read.
  ///
  /// Names are equal when their bytes are, as SQLite compares them: Swift's `==` would take a
  /// key written with a combining accent for the same key precomposed.
  package struct LoggedKey: Hashable {
    package var store: String
    package var key: String
    package var created: Double

    package init(store: String, key: String, created: Double) {
      self.store = store
      self.key = key
      self.created = created
    }

    package static func == (left: LoggedKey, right: LoggedKey) -> Bool {
      left.created == right.created && left.store.hasSameBytes(as: right.store)
        && left.key.hasSameBytes(as: right.key)
    }

    package func hash(into hasher: inout Hasher) {
      hasher.combine(created)
      store.hashBytes(into: &hasher)
      key.hashBytes(into: &hasher)
    }
  }

  /// The reads logged of one value: the latest time and how many.
  package struct LoggedReads {
    package var time: Double
    package var reads: Int
  }

  /// The reads in the `entry_touch_log`, combined by store, key and value, for `store` or for
  /// every store.
  package static func loggedReads(_ db: Database, store: String? = nil) throws -> [LoggedKey:
    LoggedReads]
  {
    let select: FastStatement
    if let store {
      select = try FastStatement(db, "SELECT store, touches FROM entry_touch_log WHERE store = ?")
      try select.bind(1, store)
    } else {
      select = try FastStatement(db, "SELECT store, touches FROM entry_touch_log")
    }
    defer { select.finish() }
    var logged: [LoggedKey: LoggedReads] = [:]
    while try select.step() {
      let store = select.text(0)
      select.withBlob(1) { log in
        TouchLog.decode(log) { key, created, time, reads in
          let value = LoggedKey(store: store, key: key, created: created)
          if let kept = logged[value] {
            // A damaged log's counts cannot overflow.
            let (sum, overflow) = kept.reads.addingReportingOverflow(reads)
            logged[value] = LoggedReads(time: max(kept.time, time), reads: overflow ? .max : sum)
          } else {
            logged[value] = LoggedReads(time: time, reads: reads)
          }
        }
      }
    }
    return logged
  }

  // MARK: - Access times, written behind

  /// Remembers that a read touched `key`, whose value was stored at `created`; the access time
  /// and count are written with the next write, every `touchBatch` reads, and when the session
  /// ends.
  ///
  /// Like PINDiskCache, which updates access dates asynchronously, a read then costs a SELECT
  /// instead of a write transaction. A crash loses at most the last reads' access times, never
  /// data. A read-only workspace records nothing.
  package func recordTouch(store: String, key: String, created: Double, time: Double) {
    guard !isReadOnly else { return }
    shared.withLock {
      $0.pendingTouches.record(store: store, key: key, created: created, time: time)
    }
  }

  /// How many reads are waiting to be written.
  package var pendingTouchTotal: Int { shared.withLock { $0.pendingTouches.count } }

  /// Writes the remembered access times now, waiting for the write lock like any write.
  public func flushPendingTouches() throws {
    guard pendingTouchTotal > 0 else { return }
    try write("recording access times") { _ in }
  }

  /// Writes the remembered access times if no other process holds the write lock: a read never
  /// waits or fails for them; `compacting` also folds the log into the entries.
  ///
  /// What cannot be written now stays for the next attempt.
  package func flushTouchesIfFree(compacting: Bool = false) {
    _ = try? queue.inDatabase { db in
      guard !db.isInsideTransaction, let connection = db.sqliteConnection else { return }
      sqlite3_busy_timeout(connection, 0)
      defer { sqlite3_busy_timeout(connection, 5000) }
      try writeTouchesAlone(db, compacting: compacting)
    }
  }

  /// Writes the pending touches and folds the log into the entries, unless another process holds
  /// the write lock.
  ///
  /// A listing never waits or fails for them. Inside an atomic run, which holds the lock, they go
  /// into its transaction.
  package func foldTouchesIfFree() {
    guard !isReadOnly else { return }
    if shared.withLock({ $0.atomicDepth }) > 0 {
      _ = try? write("recording access times") { db in try Self.compactTouches(db) }
      return
    }
    flushTouchesIfFree(compacting: true)
  }

  /// Writes the pending touches in a transaction of their own, and with `compacting` folds the
  /// log into the entries; if it fails, the touches are kept.
  package func writeTouchesAlone(_ db: Database, compacting: Bool = false) throws {
    try writeTouches(db) {
      if compacting { try Self.compactTouches(db) }
    }
  }

  /// Writes the recorded reads and runs `body` in one transaction; if it rolls back, the reads
  /// are kept for the next write.
  package func writeTouches<T>(_ db: Database, with body: () throws -> T) throws -> T {
    do {
      let result = try transaction(db, writing: true) {
        try flushTouches(db)
        return try body()
      }
      touchesCommitted()
      return result
    } catch {
      restoreTouches()
      throw error
    }
  }

  /// Puts the flushed touches back with the pending ones, after their transaction rolled back.
  package func restoreTouches() {
    shared.withLock { shared in
      let flushed = shared.flushingTouches.take()
      shared.pendingTouches.merge(flushed)
    }
  }

  /// Forgets the flushed touches once their transaction has committed.
  package func touchesCommitted() {
    shared.withLock { $0.flushingTouches = Touches() }
  }

  /// Writes the pending touches in the open transaction, at the end of the `entry_touch_log`:
  /// one row for each store read, whatever the number of reads (`TouchLog`).
  ///
  /// They are kept aside until the transaction commits (`touchesCommitted`) or rolls back
  /// (`restoreTouches`).
  ///
  /// A row for the batch costs a few pages. A row for each key would add an insert to every
  /// read, and updating each entry in place would write a page per key read, because keys read
  /// together lie anywhere in the entries' B-tree. The log is folded into the entries
  /// (`compactTouches`) when access times are needed, and once it holds more reads than twice
  /// the entries, so that it never grows without bound.
  package func flushTouches(_ db: Database) throws {
    let touches = shared.withLock { shared in
      let taken = shared.pendingTouches.take()
      shared.flushingTouches.merge(taken)
      return taken
    }
    guard touches.count > 0 else { return }
    // Each row's rowid is the number of reads logged up to it, so that the log's size is its
    // last rowid, one B-tree lookup: a sum read every row, and a script that alternates reads
    // and writes logs a row a read.
    let insert = try FastStatement(
      db,
      """
      INSERT INTO entry_touch_log (rowid, store, reads, touches)
      VALUES ((SELECT coalesce(max(rowid), 0) FROM entry_touch_log) + ?2, ?1, ?2, ?3)
      """)
    for batch in touches.encodedByStore() {
      try insert.bind(1, batch.store)
      insert.bind(2, batch.reads)
      try insert.bind(3, batch.log)
      try insert.step()
      insert.finish()
    }
    let size = try FastStatement(db, "SELECT coalesce(max(rowid), 0) FROM entry_touch_log")
    guard try size.step() else { return }
    let logged = size.int(0)
    size.finish()
    // Only a log past its floor pays for the entry estimate.
    guard logged > touchLogFloor else { return }
    if logged > 2 * (try estimatedEntries(db)) { try Self.compactTouches(db) }
  }

  /// Folds the `entry_touch_log` into the entries, in the open transaction: each entry takes the
  /// latest access time and the sum of the reads logged for its current value (a read of a value
  /// since stored again, or of a key since removed, is dropped), and the log is emptied.
  package static func compactTouches(_ db: Database) throws {
    let logged = try loggedReads(db)
    if logged.isEmpty {
      // Rows that hold no whole touch are removed all the same.
      let rows = try FastStatement(db, "SELECT EXISTS (SELECT 1 FROM entry_touch_log)")
      let any = try rows.step() && rows.int(0) != 0
      rows.finish()
      if any { try FastStatement(db, "DELETE FROM entry_touch_log").step() }
      return
    }
    let update = try FastStatement(
      db,
      """
      UPDATE entry SET accessed_at = max(accessed_at, ?1), access_count = access_count + ?2
      WHERE store = ?3 AND key = ?4 AND created_at = ?5
      """)
    // In key order, as the entries lie in their B-tree.
    let ordered = logged.sorted {
      ($0.key.store, $0.key.key) < ($1.key.store, $1.key.key)
    }
    for (read, reads) in ordered {
      update.bind(1, reads.time)
      update.bind(2, reads.reads)
      try update.bind(3, read.store)
      try update.bind(4, read.key)
      update.bind(5, read.created)
      try update.step()
      update.finish()
    }
    try FastStatement(db, "DELETE FROM entry_touch_log").step()
  }
}
