import Foundation
import GRDB
import GRDBSQLite

extension Workspace {
  /// Reads not yet written: for each store and key, the last access time and how many reads.
  ///
  /// Two sets combine by `merge`, the one place where times take their maximum and counts add up.
  struct Touches {
    /// One key's reads: the value they read (its `created_at`), the last time, and how many.
    struct Touch {
      var created: Double
      var time: Double
      var count: Int

      /// The same value and time with no reads: where a key's first touch is added.
      var emptied: Touch { Touch(created: created, time: time, count: 0) }
    }

    /// The reads of each key, by store.
    private(set) var byKey: [String: [String: Touch]] = [:]
    /// How many reads in all.
    private(set) var count = 0

    /// Adds one read at `time` of `key` in `store`, whose value was stored at `created`.
    mutating func record(store: String, key: String, created: Double, time: Double) {
      add(store: store, key: key, touch: Touch(created: created, time: time, count: 1))
    }

    /// Adds every read of `other`.
    mutating func merge(_ other: Touches) {
      // The usual case, taking the pending reads into an empty set, is a copy, not a rehash.
      if count == 0 {
        self = other
        return
      }
      for (store, keys) in other.byKey {
        for (key, touch) in keys { add(store: store, key: key, touch: touch) }
      }
    }

    /// Returns the reads and leaves the set empty.
    mutating func take() -> Touches {
      let taken = self
      self = Touches()
      return taken
    }

    /// Adds `touch`'s reads of `key` in `store`: of the same value, the later time and the sum
    /// of the counts are kept; reads of a value stored again since count for the newer one only.
    private mutating func add(store: String, key: String, touch: Touch) {
      // Changed in place through the subscripts' modify accessors: one hash of each name.
      // A store's first read of a batch makes room for the whole batch: no rehashing as it fills.
      if Self.combine(
        &byKey[store, default: Dictionary(minimumCapacity: Workspace.touchBatch)][
          key, default: touch.emptied], with: touch)
      {
        self.count += touch.count
      }
    }

    /// Adds `touch` to `kept`; false when it was dropped, being a read of an older value.
    private static func combine(_ kept: inout Touch, with touch: Touch) -> Bool {
      if touch.created > kept.created {
        kept = touch
      } else if touch.created == kept.created {
        kept = Touch(
          created: kept.created, time: max(kept.time, touch.time), count: kept.count + touch.count)
      } else {
        return false
      }
      return true
    }
  }

  // MARK: - Access times, written behind

  /// Remembers that a read touched `key`, whose value was stored at `created`; the access time
  /// and count are written with the next write, every `touchBatch` reads, and when the session
  /// ends.
  ///
  /// Like PINDiskCache, which updates access dates asynchronously, a read then costs a SELECT
  /// instead of a write transaction. A crash loses at most the last reads' access times, never
  /// data. A read-only workspace records nothing.
  func recordTouch(store: String, key: String, created: Double, time: Double) {
    guard !isReadOnly else { return }
    stateLock.withLock {
      pendingTouches.record(store: store, key: key, created: created, time: time)
    }
  }

  /// How many reads are waiting to be written.
  var pendingTouchTotal: Int { stateLock.withLock { pendingTouches.count } }

  /// Writes the remembered access times now, waiting for the write lock like any write.
  public func flushPendingTouches() throws {
    guard pendingTouchTotal > 0 else { return }
    try write("recording access times") { _ in }
  }

  /// Writes the remembered access times if no other process holds the write lock: a read never
  /// waits or fails for them; `compacting` also folds the log into the entries.
  ///
  /// What cannot be written now stays for the next attempt.
  func flushTouchesIfFree(compacting: Bool = false) {
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
  func foldTouchesIfFree() {
    guard !isReadOnly else { return }
    if stateLock.withLock({ atomicDepth }) > 0 {
      _ = try? write("recording access times") { db in try Self.compactTouches(db) }
      return
    }
    flushTouchesIfFree(compacting: true)
  }

  /// Writes the pending touches in a transaction of their own, and with `compacting` folds the
  /// log into the entries; if it fails, the touches are kept.
  func writeTouchesAlone(_ db: Database, compacting: Bool = false) throws {
    do {
      try transaction(db, writing: true) {
        try flushTouches(db)
        if compacting { try Self.compactTouches(db) }
      }
      touchesCommitted()
    } catch {
      restoreTouches()
      throw error
    }
  }

  /// Puts the flushed touches back with the pending ones, after their transaction rolled back.
  func restoreTouches() {
    stateLock.withLock {
      let flushed = flushingTouches.take()
      pendingTouches.merge(flushed)
    }
  }

  /// Forgets the flushed touches once their transaction has committed.
  func touchesCommitted() {
    stateLock.withLock { flushingTouches = Touches() }
  }

  /// Writes the pending touches in the open transaction, at the end of the `entry_touch` log.
  ///
  /// They are kept aside until the transaction commits (`touchesCommitted`) or rolls back
  /// (`restoreTouches`).
  ///
  /// Appending costs a few pages per batch; updating each entry in place cost a page per key
  /// read, because keys read together lie anywhere in the entries' B-tree: a third of a script
  /// of 100,000 'store retrieve' lines (Benchmarks/store.sh, P4). The log is folded into the
  /// entries (`compactTouches`) when access times are needed, and once it holds more rows than
  /// twice the entries, so that it never grows without bound.
  func flushTouches(_ db: Database) throws {
    let touches = stateLock.withLock {
      let taken = pendingTouches.take()
      flushingTouches.merge(taken)
      return taken
    }
    guard touches.count > 0 else { return }
    // The keys of one statement, end to end: bound where they are, not copied by SQLite.
    var keyBytes: [UInt8] = []
    for (store, keys) in touches.byKey {
      var rows = keys.makeIterator()
      // Rows go `touchRowsPerInsert` to a statement, the store's name bound once: a statement
      // step costs about as much as the row it inserts (callgrind).
      let full = try FastStatement(db, Self.touchInsert(rows: Self.touchRowsPerInsert))
      for _ in 0..<(keys.count / Self.touchRowsPerInsert) {
        try full.bind(1, store)
        try Self.insert(&rows, count: Self.touchRowsPerInsert, with: full, keyBytes: &keyBytes)
      }
      let single = try FastStatement(db, Self.touchInsert(rows: 1))
      for _ in 0..<(keys.count % Self.touchRowsPerInsert) {
        try single.bind(1, store)
        try Self.insert(&rows, count: 1, with: single, keyBytes: &keyBytes)
      }
    }
    let size = try FastStatement(db, "SELECT coalesce(max(rowid), 0) FROM entry_touch")
    guard try size.step() else { return }
    let logged = size.int(0)
    size.finish()
    // Only a log past its floor pays for the entry estimate.
    guard logged > touchLogFloor else { return }
    if logged > 2 * (try estimatedEntries(db)) { try Self.compactTouches(db) }
  }

  /// How many touches one INSERT statement appends.
  static let touchRowsPerInsert = 32

  /// The INSERT of `rows` touches of one store: `?1` is the store, then four parameters a row.
  static func touchInsert(rows: Int) -> String {
    rows == touchRowsPerInsert ? touchInsertFull : touchInsertSQL(rows: rows)
  }

  private static let touchInsertFull = touchInsertSQL(rows: touchRowsPerInsert)

  private static func touchInsertSQL(rows: Int) -> String {
    let values = (0..<rows).map { row in
      let first = 2 + 4 * row
      return "(?1, ?\(first), ?\(first + 1), ?\(first + 2), ?\(first + 3))"
    }
    return "INSERT INTO entry_touch (store, key, created_at, accessed_at, reads) VALUES "
      + values.joined(separator: ", ")
  }

  /// Inserts the next `count` touches of `rows` with `statement`, a `touchInsert` of `count`
  /// rows whose store is bound; nothing when `rows` has fewer left.
  ///
  /// The keys are bound in place from `keyBytes`, which holds them end to end until the step is
  /// done: binding each as a copy cost about 650 instructions a key (callgrind).
  private static func insert(
    _ rows: inout Dictionary<String, Touches.Touch>.Iterator, count: Int,
    with statement: FastStatement, keyBytes: inout [UInt8]
  ) throws {
    keyBytes.removeAll(keepingCapacity: true)
    var lengths: [Int] = []
    lengths.reserveCapacity(count)
    for row in 0..<count {
      guard let (key, touch) = rows.next() else { break }
      let first = Int32(2 + 4 * row)
      keyBytes.append(contentsOf: key.utf8)
      lengths.append(key.utf8.count)
      statement.bind(first + 1, touch.created)
      statement.bind(first + 2, touch.time)
      statement.bind(first + 3, touch.count)
    }
    guard lengths.count == count else { return }
    try keyBytes.withUnsafeBufferPointer { buffer in
      var start = 0
      for (row, length) in lengths.enumerated() {
        try statement.bindInPlace(
          Int32(2 + 4 * row), buffer.baseAddress.map { $0 + start }, count: length)
        start += length
      }
      try statement.step()
      statement.finish()
    }
  }

  /// Folds the `entry_touch` log into the entries, in the open transaction: each entry takes the
  /// latest access time and the sum of the reads logged for its current value (a read of a value
  /// since stored again, or of a key since removed, is dropped), and the log is emptied.
  static func compactTouches(_ db: Database) throws {
    try FastStatement(
      db,
      """
      UPDATE entry SET accessed_at = max(entry.accessed_at, logged.accessed_at),
        access_count = entry.access_count + logged.reads
      FROM (
        SELECT store, key, created_at, max(accessed_at) AS accessed_at, sum(reads) AS reads
        FROM entry_touch GROUP BY store, key, created_at
      ) AS logged
      WHERE entry.store = logged.store AND entry.key = logged.key
        AND entry.created_at = logged.created_at
      """
    ).step()
    try FastStatement(db, "DELETE FROM entry_touch").step()
  }
}
