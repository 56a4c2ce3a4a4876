import GRDB
import GRDBSQLite
import Plumbing

/// Each store's entry count and byte total, and the bound on its bytes that a write checks the
/// byte limit against.
///
/// The totals are not stored. Kept in the store's row by triggers (up to migration v12), they made
/// every persist write a page of the store table besides the entry's; with the access-time index
/// that least-recently-used trims walked, a one-key persist wrote three pages where a plain
/// key-value table writes two.
///
/// - A command that shows totals counts them (`storeTotals`, `allStoreTotals`).
/// - A persist needs less: whether the store may now be over its limit. This connection keeps,
///   per store, a number of bytes that the store cannot exceed (`storeBounds`), and counts only
///   when that number is over the limit (`mayHoldMore`).
/// - Only a persist adds bytes to a store, and it adds its value's length to the bound. Removals,
///   trims and moves only take bytes away, so the bound stays one through them.
/// - The bounds are forgotten when another connection has committed (`noteForeignCommits`) and
///   when a transaction rolls back (`forgetStoreBounds`): the entries may hold more than before.
extension Workspace {
  /// A store's entry count and the bytes its values take.
  public struct StoreTotals: Equatable, Sendable {
    /// The bytes its values take.
    public var bytes: Int
    /// How many entries it holds.
    public var entries: Int

    /// Totals of `bytes` in `entries` entries.
    public init(bytes: Int, entries: Int) {
      self.bytes = bytes
      self.entries = entries
    }
  }

  /// Forgets the bounds when another connection has committed since this one last looked; call
  /// it inside a transaction that has begun reading the database.
  ///
  /// SQLite's data version (`SQLITE_FCNTL_DATA_VERSION`) changes when the connection sees
  /// another's commit, and at its own commits, which `noteOwnCommit` records.
  package func noteForeignCommits(_ db: Database) {
    let version = dataVersion(db)
    if version != seenDataVersion {
      forgetStoreBounds()
      seenDataVersion = version
      foreignCommitCount += 1
    }
  }

  /// Records the data version after this connection committed, in a transaction that called
  /// `noteForeignCommits` after it began: the change since is this connection's own.
  package func noteOwnCommit(_ db: Database) {
    seenDataVersion = dataVersion(db)
  }

  /// Forgets every bound, and the stores' limits: after a rollback, a store may hold what a trim
  /// had taken away; after another connection's commit, anything may have changed.
  package func forgetStoreBounds() {
    storeBounds.removeAll()
    limitsCache.removeAll()
    entryEstimate = nil
  }

  /// The pager's data version, without a statement: a PRAGMA is prepared again at every step.
  package func dataVersion(_ db: Database) -> UInt32 {
    var version: UInt32 = 0
    _ = sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_DATA_VERSION, &version)
    return version
  }

  /// The counted totals of `store`.
  package func storeTotals(_ db: Database, store: String) throws -> StoreTotals {
    let count = try FastStatement(
      db, "SELECT coalesce(sum(bytes), 0), count(*) FROM entry WHERE store = ?")
    try count.bind(1, store)
    try count.step()
    defer { count.finish() }
    return StoreTotals(bytes: count.int(0), entries: count.int(1))
  }

  /// The counted totals of every store, by name; a store without entries counts zero.
  package func allStoreTotals(_ db: Database) throws -> [String: StoreTotals] {
    var totals: [String: StoreTotals] = [:]
    for name in try String.fetchAll(db, sql: "SELECT name FROM store") {
      totals[name] = StoreTotals(bytes: 0, entries: 0)
    }
    let rows = try Row.fetchCursor(
      db, sql: "SELECT store, coalesce(sum(bytes), 0), count(*) FROM entry GROUP BY store")
    while let row = try rows.next() {
      // A value of another type (a file changed outside archsh) counts as nothing here;
      // listing the entries names it.
      let store: DatabaseValue = row[0]
      guard case .string(let name) = store.storage else { continue }
      totals[name] = StoreTotals(
        bytes: Int.fromDatabaseValue(row[1]) ?? 0, entries: Int.fromDatabaseValue(row[2]) ?? 0)
    }
    return totals
  }

  /// Whether `store` may hold more than `limit` bytes, after a persist of `added` bytes in this
  /// write transaction: false at once while its bound is within the limit, otherwise counted.
  package func mayHoldMore(_ db: Database, store: String, than limit: Int, added: Int) throws
    -> Bool
  {
    if let known = storeBounds[store] {
      let bound = known + added
      storeBounds[store] = bound
      if bound <= limit { return false }
    } else {
      // The size of the database, in this transaction with its own pages, bounds what any store
      // holds: values cannot take more bytes than the pages they are in.
      let size = try pragma(db, "PRAGMA page_count") * pragma(db, "PRAGMA page_size")
      storeBounds[store] = size
      if size <= limit { return false }
    }
    let bytes = try storeTotals(db, store: store).bytes
    storeBounds[store] = bytes
    return bytes > limit
  }

  /// Records that `store` holds exactly `bytes` bytes, as a trim that counted them leaves it.
  package func noteCounted(store: String, bytes: Int) {
    storeBounds[store] = bytes
  }

  /// About how many entries the workspace holds, for deciding when to fold the access log: counted
  /// once, then raised by one at each persist; removals are not taken off.
  package func estimatedEntries(_ db: Database) throws -> Int {
    if let entryEstimate { return entryEstimate }
    let count = try FastStatement(db, "SELECT count(*) FROM entry")
    try count.step()
    defer { count.finish() }
    entryEstimate = count.int(0)
    return count.int(0)
  }

  /// Raises the entry estimate by one, for a persist.
  package func notePersisted() {
    if let estimate = entryEstimate { entryEstimate = estimate + 1 }
  }

  /// The number a PRAGMA statement returns.
  private func pragma(_ db: Database, _ sql: String) throws -> Int {
    let statement = try FastStatement(db, sql)
    guard try statement.step() else { return 0 }
    defer { statement.finish() }
    return statement.int(0)
  }
}
