import Foundation
import GRDB
import GRDBSQLite

extension Workspace {
  /// Reads not yet written: for each store and key, the last access time and how many reads.
  ///
  /// Two sets combine by `merge`, the one place where times take their maximum and counts add up.
  struct Touches {
    /// The last access time and the number of reads of each key, by store.
    private(set) var byKey: [String: [String: (time: Double, count: Int)]] = [:]
    /// How many reads in all.
    private(set) var count = 0

    /// Adds one read of `key` in `store` at `time`.
    mutating func record(store: String, key: String, time: Double) {
      add(store: store, key: key, time: time, count: 1)
    }

    /// Adds every read of `other`.
    mutating func merge(_ other: Touches) {
      // The usual case, taking the pending reads into an empty set, is a copy, not a rehash.
      if count == 0 {
        self = other
        return
      }
      for (store, keys) in other.byKey {
        for (key, touch) in keys {
          add(store: store, key: key, time: touch.time, count: touch.count)
        }
      }
    }

    /// Returns the reads and leaves the set empty.
    mutating func take() -> Touches {
      let taken = self
      self = Touches()
      return taken
    }

    /// Adds `count` reads of `key` in `store`, the last at `time`: the later time and the sum of
    /// the counts are kept.
    private mutating func add(store: String, key: String, time: Double, count: Int) {
      // Changed in place through the subscripts' modify accessors: one hash of each name.
      Self.combine(&byKey[store, default: [:]][key, default: (time, 0)], time: time, count: count)
      self.count += count
    }

    /// Keeps the later time and adds the counts.
    private static func combine(_ touch: inout (time: Double, count: Int), time: Double, count: Int)
    {
      touch = (max(touch.time, time), touch.count + count)
    }
  }

  // MARK: - Access times, written behind

  /// Remembers that a read touched `key`; the access time and count are written with the next
  /// write, every `touchBatch` reads, and when the session ends.
  ///
  /// Like PINDiskCache, which updates access dates asynchronously, a read then costs a SELECT
  /// instead of a write transaction. A crash loses at most the last reads' access times, never
  /// data. A read-only workspace records nothing.
  func recordTouch(store: String, key: String, time: Double) {
    guard !isReadOnly else { return }
    stateLock.withLock { pendingTouches.record(store: store, key: key, time: time) }
  }

  /// How many reads are waiting to be written.
  var pendingTouchTotal: Int { stateLock.withLock { pendingTouches.count } }

  /// Writes the remembered access times now, waiting for the write lock like any write.
  public func flushPendingTouches() throws {
    guard pendingTouchTotal > 0 else { return }
    try write("recording access times") { _ in }
  }

  /// Writes the remembered access times if no other process holds the write lock: a read never
  /// waits or fails for them.
  ///
  /// What cannot be written now stays for the next attempt.
  func flushTouchesIfFree() {
    _ = try? queue.inDatabase { db in
      guard !db.isInsideTransaction, let connection = db.sqliteConnection else { return }
      sqlite3_busy_timeout(connection, 0)
      defer { sqlite3_busy_timeout(connection, 5000) }
      try writeTouchesAlone(db)
    }
  }

  /// Writes the pending touches in a transaction of their own; if it fails, they are kept.
  func writeTouchesAlone(_ db: Database) throws {
    try FastStatement(db, "BEGIN IMMEDIATE").step()
    do {
      try flushTouches(db)
      try FastStatement(db, "COMMIT").step()
      touchesCommitted()
    } catch {
      if db.isInsideTransaction { _ = try? FastStatement(db, "ROLLBACK").step() }
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

  /// Writes the pending touches in the open transaction.
  ///
  /// They are kept aside until the transaction commits (`touchesCommitted`) or rolls back
  /// (`restoreTouches`).
  func flushTouches(_ db: Database) throws {
    let touches = stateLock.withLock {
      let taken = pendingTouches.take()
      flushingTouches.merge(taken)
      return taken
    }
    guard touches.count > 0 else { return }
    // In key order: the updates then walk the entries' pages in order, instead of jumping from
    // page to page at the dictionary's whim (and out of SQLite's page cache on a large store).
    for (store, keys) in touches.byKey {
      for (key, touch) in keys.sorted(by: { $0.key < $1.key }) {
        let update = try FastStatement(
          db,
          "UPDATE entry SET accessed_at = max(accessed_at, ?), access_count = access_count + ? WHERE store = ? AND key = ?"
        )
        update.bind(1, touch.time)
        update.bind(2, touch.count)
        try update.bind(3, store)
        try update.bind(4, key)
        try update.step()
      }
    }
  }
}
