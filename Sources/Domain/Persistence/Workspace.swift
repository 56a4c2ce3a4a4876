import Foundation
import GRDB
import GRDBSQLite

/// Why a workspace cannot be opened or written.
///
/// Each case reads as one line.
public enum WorkspaceError: Error, Equatable, CustomStringConvertible {
  /// The file exists but is not a SQLite database.
  case notADatabase(path: String, detail: String)
  /// The file was migrated by a newer archsh: it has migrations this one does not know.
  case newerSchema(path: String, unknown: [String], known: String)
  /// The file is a SQLite database of some other application.
  case foreignDatabase(path: String)
  /// The workspace is damaged.
  case damaged(path: String, detail: String)
  /// The file or its directory cannot be written; reads still work.
  case readOnly(path: String, operation: String)
  /// The file could not be created or opened.
  case cannotOpen(path: String, detail: String)
  /// SQLite refused an operation.
  case database(String)

  /// A one-line description.
  public var description: String {
    switch self {
    case .notADatabase(let path, let detail):
      return "'\(path)' is not an archsh workspace: \(detail); the file was left untouched"
    case .newerSchema(let path, let unknown, let known):
      let names = unknown.map { "'\($0)'" }.joined(separator: ", ")
      return
        "'\(path)' was written by a newer archsh (schema \(names); this archsh knows up to '\(known)'); the file was left untouched"
    case .foreignDatabase(let path):
      return
        "'\(path)' is a SQLite database but not an archsh workspace; the file was left untouched"
    case .damaged(let path, let detail):
      return "the workspace '\(path)' is damaged: \(detail)"
    case .readOnly(let path, let operation):
      return "the workspace '\(path)' is read-only, so \(operation) cannot write; reads still work"
    case .cannotOpen(let path, let detail):
      return "cannot open the workspace '\(path)': \(detail)"
    case .database(let message):
      return message
    }
  }
}

/// The SQLite database that holds everything a session builds: one file per workspace.
///
/// It runs in WAL mode with `synchronous=NORMAL` and a busy timeout of 5 s, so several archsh
/// processes can share it. Every schema change is a named migration. SQL lives in this folder
/// only, always with bound parameters.
///
/// Each operation is its own transaction, unless an atomic transaction (`--atomic`) is open: then
/// every operation joins it, and `endAtomic(commit:)` commits or rolls back the lot.
public final class Workspace: @unchecked Sendable {
  /// The path given, or `:memory:`.
  public let path: String
  /// Whether the file could not be opened for writing.
  public let isReadOnly: Bool

  let queue: DatabaseQueue
  /// Guards the write-behind state and the atomic flag, which async forms reach from other threads.
  private let stateLock = NSLock()
  private var atomicDepth = 0
  /// Access times and counts of reads not yet written: store, key, last time, count.
  private var pendingTouches: [String: [String: (time: Double, count: Int)]] = [:]
  private var pendingTouchCount = 0

  /// When each store last had its expired entries removed, by this process.
  private var lastAgeTrim: [String: Double] = [:]

  /// Whether a write to `store` at `time` should remove expired entries: the first time, then at
  /// most once a minute.
  func claimAgeTrim(store: String, at time: Double) -> Bool {
    stateLock.withLock {
      if let last = lastAgeTrim[store], time - last < 60 { return false }
      lastAgeTrim[store] = time
      return true
    }
  }

  /// How many reads are remembered before their access times are written in one transaction.
  static let touchBatch = 1000

  /// The migrations, in order.
  ///
  /// Their identifiers are the schema versions `db info` shows.
  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1-stores-and-entries") { db in
      try db.execute(
        sql: """
          CREATE TABLE store (
            name TEXT NOT NULL PRIMARY KEY,
            byte_limit INTEGER NOT NULL,
            age_limit REAL NOT NULL,
            ttl INTEGER NOT NULL DEFAULT 0,
            total_bytes INTEGER NOT NULL DEFAULT 0,
            entry_count INTEGER NOT NULL DEFAULT 0
          ) WITHOUT ROWID;
          CREATE TABLE entry (
            store TEXT NOT NULL REFERENCES store(name) ON DELETE CASCADE,
            key TEXT NOT NULL,
            value BLOB NOT NULL,
            bytes INTEGER NOT NULL,
            created_at REAL NOT NULL,
            accessed_at REAL NOT NULL,
            access_count INTEGER NOT NULL DEFAULT 0,
            age_limit REAL,
            PRIMARY KEY (store, key)
          ) WITHOUT ROWID;
          -- Least-recently-used trimming walks this index. Trims by creation date are rare
          -- and scan the store instead, which keeps every write one index lighter.
          CREATE INDEX entry_by_access ON entry(store, accessed_at);
          -- The store row keeps its totals, so limits are checked without scanning entries.
          CREATE TRIGGER entry_inserted AFTER INSERT ON entry BEGIN
            UPDATE store SET total_bytes = total_bytes + NEW.bytes, entry_count = entry_count + 1
            WHERE name = NEW.store;
          END;
          CREATE TRIGGER entry_updated AFTER UPDATE OF bytes ON entry BEGIN
            UPDATE store SET total_bytes = total_bytes - OLD.bytes + NEW.bytes WHERE name = NEW.store;
          END;
          CREATE TRIGGER entry_deleted AFTER DELETE ON entry BEGIN
            UPDATE store SET total_bytes = total_bytes - OLD.bytes, entry_count = entry_count - 1
            WHERE name = OLD.store;
          END;
          """)
      let defaults = PersistenceController.Limits.default
      for name in PersistenceController.Identifier.seedStores {
        try db.execute(
          sql: "INSERT INTO store (name, byte_limit, age_limit, ttl) VALUES (?, ?, ?, 0)",
          arguments: [name, defaults.byteLimit, defaults.ageLimit])
      }
    }
    // ProductUpdater persists into `.productCache`, which the seed's own enum lacks. A user may
    // have created a store of that name already; it is kept as it is.
    migrator.registerMigration("v2-product-cache") { db in
      let defaults = PersistenceController.Limits.default
      try db.execute(
        sql: "INSERT OR IGNORE INTO store (name, byte_limit, age_limit, ttl) VALUES (?, ?, ?, 0)",
        arguments: [
          PersistenceController.Identifier.productCache.rawValue, defaults.byteLimit,
          defaults.ageLimit,
        ])
    }
    // Data sources: sections ordered by position, rows in blocks ordered by position, so that
    // a row mutation rewrites one block and nothing renumbers every row.
    migrator.registerMigration("v3-data-sources") { db in
      try db.execute(
        sql: """
          CREATE TABLE data_source (
            name TEXT NOT NULL PRIMARY KEY,
            registrations TEXT NOT NULL DEFAULT '{}',
            background TEXT
          ) WITHOUT ROWID;
          CREATE TABLE ds_section (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL REFERENCES data_source(name) ON DELETE CASCADE,
            ord REAL NOT NULL,
            has_data INTEGER NOT NULL DEFAULT 0,
            header TEXT,
            footer TEXT
          );
          CREATE INDEX ds_section_by_order ON ds_section(source, ord);
          CREATE TABLE ds_block (
            id INTEGER PRIMARY KEY,
            section INTEGER NOT NULL REFERENCES ds_section(id) ON DELETE CASCADE,
            ord REAL NOT NULL,
            count INTEGER NOT NULL,
            rows BLOB NOT NULL
          );
          CREATE INDEX ds_block_by_order ON ds_block(section, ord);
          """)
    }
    // The coordinators' state: one row holding the root flow, the selected tab, the alert and
    // every stack, restored on the next start.
    migrator.registerMigration("v4-app-state") { db in
      try db.execute(
        sql: """
          CREATE TABLE app_state (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            snapshot TEXT NOT NULL,
            saved_at REAL NOT NULL
          );
          """)
    }
    return migrator
  }

  /// The newest schema version this archsh knows.
  public static var schemaVersion: String { migrator.migrations.last ?? "" }

  /// Opens the workspace at `path` (`:memory:` for one in memory), creating it with mode 0600.
  public init(path: String) throws(WorkspaceError) {
    self.path = path
    var configuration = Configuration()
    configuration.busyMode = .timeout(5)
    configuration.label = "archsh.workspace"
    // --atomic keeps one transaction open across many accesses, on purpose.
    configuration.allowsUnsafeTransactions = true
    configuration.prepareDatabase { db in
      try db.execute(sql: "PRAGMA synchronous = NORMAL")
    }
    if path == ":memory:" {
      isReadOnly = false
      do {
        queue = try DatabaseQueue(configuration: configuration)
      } catch {
        throw .cannotOpen(path: path, detail: String(describing: error))
      }
      try migrate()
      return
    }
    let exists = FileManager.default.fileExists(atPath: path)
    if !exists { try Self.createPrivateFile(path) }
    isReadOnly = Self.isWriteProtected(path)
    configuration.readonly = isReadOnly
    // Opened without touching the journal mode: a file is checked before anything is written to
    // it, and switched to WAL only once it is known to be an archsh workspace.
    do {
      queue = try DatabaseQueue(path: path, configuration: configuration)
    } catch let error as DatabaseError where Self.isNotADatabase(error) {
      throw .notADatabase(path: path, detail: Self.sqliteMessage(error))
    } catch {
      throw .cannotOpen(path: path, detail: String(describing: error))
    }
    try checkSchema()
    guard !isReadOnly else { return }
    try switchToWAL()
    try migrate()
  }

  /// Runs `body` with the database: inside the open atomic transaction, or in a new transaction.
  ///
  /// `operation` names the command for the read-only error.
  public func write<T>(_ operation: String, _ body: (Database) throws -> T) throws -> T {
    guard !isReadOnly else { throw WorkspaceError.readOnly(path: path, operation: operation) }
    do {
      return try queue.inDatabase { db in
        if db.isInsideTransaction {
          try flushTouches(db)
          return try body(db)
        }
        // Recorded reads are written in a transaction of their own first, so that a command
        // that fails and rolls back cannot take them with it.
        if pendingTouchTotal > 0 { try writeTouchesAlone(db) }
        // BEGIN and COMMIT as cached statements: GRDB's inTransaction prepares both anew each
        // time, which cost a third of a one-line persist (measured with callgrind).
        try FastStatement(db, "BEGIN IMMEDIATE").step()
        do {
          let result = try body(db)
          try FastStatement(db, "COMMIT").step()
          return result
        } catch {
          if db.isInsideTransaction { _ = try? FastStatement(db, "ROLLBACK").step() }
          throw error
        }
      }
    } catch let error as DatabaseError {
      throw translate(error, operation: operation)
    }
  }

  /// Runs `body` with the database for reading only.
  ///
  /// Reads remember their access times; every `touchBatch` of them are written afterwards.
  public func read<T>(_ body: (Database) throws -> T) throws -> T {
    let result: T
    do {
      result = try queue.inDatabase { db in try body(db) }
    } catch let error as DatabaseError {
      throw translate(error, operation: "reading")
    }
    if pendingTouchTotal >= Self.touchBatch { flushTouchesIfFree() }
    return result
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
    stateLock.withLock {
      let previous = pendingTouches[store, default: [:]][key]
      pendingTouches[store, default: [:]][key] = (
        max(time, previous?.time ?? time), (previous?.count ?? 0) + 1
      )
      pendingTouchCount += 1
    }
  }

  /// How many reads are waiting to be written.
  private var pendingTouchTotal: Int { stateLock.withLock { pendingTouchCount } }

  /// Writes the remembered access times now, waiting for the write lock like any write.
  public func flushPendingTouches() throws {
    guard pendingTouchTotal > 0 else { return }
    try write("recording access times") { _ in }
  }

  /// Writes the remembered access times if no other process holds the write lock: a read never waits or fails for them.
  ///
  /// What cannot be written now stays for the next attempt.
  private func flushTouchesIfFree() {
    _ = try? queue.inDatabase { db in
      guard !db.isInsideTransaction, let connection = db.sqliteConnection else { return }
      sqlite3_busy_timeout(connection, 0)
      defer { sqlite3_busy_timeout(connection, 5000) }
      try writeTouchesAlone(db)
    }
  }

  /// Writes the pending touches in a transaction of their own; if it fails, they are kept.
  private func writeTouchesAlone(_ db: Database) throws {
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

  /// The touches taken by the last `flushTouches`, kept until its transaction commits.
  private var flushingTouches: [String: [String: (time: Double, count: Int)]] = [:]
  private var flushingCount = 0

  private func restoreTouches() {
    stateLock.withLock {
      for (store, keys) in flushingTouches {
        for (key, touch) in keys {
          let current = pendingTouches[store, default: [:]][key]
          pendingTouches[store, default: [:]][key] = (
            max(touch.time, current?.time ?? touch.time), touch.count + (current?.count ?? 0)
          )
        }
      }
      pendingTouchCount += flushingCount
      flushingTouches = [:]
      flushingCount = 0
    }
  }

  /// Forgets the flushed touches once their transaction has committed.
  private func touchesCommitted() {
    stateLock.withLock {
      flushingTouches = [:]
      flushingCount = 0
    }
  }

  /// Writes the pending touches in the open transaction.
  ///
  /// They are kept aside until the transaction commits (`touchesCommitted`) or rolls back
  /// (`restoreTouches`).
  private func flushTouches(_ db: Database) throws {
    let (touches, count) = stateLock.withLock {
      let taken = (pendingTouches, pendingTouchCount)
      pendingTouches = [:]
      pendingTouchCount = 0
      for (store, keys) in taken.0 {
        for (key, touch) in keys {
          let kept = flushingTouches[store, default: [:]][key]
          flushingTouches[store, default: [:]][key] = (
            max(touch.time, kept?.time ?? touch.time), touch.count + (kept?.count ?? 0)
          )
        }
      }
      flushingCount += taken.1
      return taken
    }
    guard count > 0 else { return }
    for (store, keys) in touches {
      for (key, touch) in keys {
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

  /// Starts the transaction that makes a whole script atomic.
  public func beginAtomic() throws {
    guard !isReadOnly else { throw WorkspaceError.readOnly(path: path, operation: "an atomic run") }
    try queue.inDatabase { db in try db.beginTransaction(.immediate) }
    stateLock.withLock { atomicDepth = 1 }
  }

  /// Ends the atomic transaction: commits when `commit`, rolls back otherwise.
  public func endAtomic(commit: Bool) throws {
    guard stateLock.withLock({ atomicDepth }) > 0 else { return }
    stateLock.withLock { atomicDepth = 0 }
    try queue.inDatabase { db in
      guard db.isInsideTransaction else { return }
      if commit {
        try flushTouches(db)
        try db.commit()
        touchesCommitted()
      } else {
        try db.rollback()
        restoreTouches()
      }
    }
  }

  /// Whether an atomic transaction is open.
  public var isAtomic: Bool { stateLock.withLock { atomicDepth > 0 } }

  // MARK: - Information

  /// What `db info` shows.
  public struct Info: Sendable {
    /// The path, or `:memory:`.
    public var path: String
    /// The size of the database file in bytes (0 in memory).
    public var fileBytes: Int
    /// The last applied migration.
    public var schemaVersion: String
    /// `wal`, `memory` or `delete`.
    public var journalMode: String
    /// Each store with its number of entries, by name.
    public var entriesPerStore: [(store: String, entries: Int)]
  }

  /// The workspace's path, size, schema version, journal mode and entries per store.
  public func info() throws -> Info {
    try read { db in
      let journal = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?"
      let applied = try Self.migrator.appliedMigrations(db).last ?? "none"
      let stores = try Row.fetchAll(db, sql: "SELECT name, entry_count FROM store ORDER BY name")
        .map { (store: $0["name"] as String, entries: $0["entry_count"] as Int) }
      let size = path == ":memory:" ? 0 : Self.fileSize(path)
      return Info(
        path: path, fileBytes: size, schemaVersion: applied, journalMode: journal,
        entriesPerStore: stores)
    }
  }

  /// Runs `PRAGMA integrity_check`, then checks that each store's entry count and byte total (kept by triggers) match its entries.
  ///
  /// Returns `["ok"]` when all is sound.
  public func integrityCheck() throws -> [String] {
    try read { db in
      let lines = try String.fetchAll(db, sql: "PRAGMA integrity_check")
      guard lines == ["ok"] else { return lines }
      let mismatches = try Row.fetchAll(
        db,
        sql: """
          SELECT s.name, s.entry_count, s.total_bytes, count(e.key) AS row_count, coalesce(sum(e.bytes), 0) AS byte_sum
          FROM store s LEFT JOIN entry e ON e.store = s.name
          GROUP BY s.name HAVING s.entry_count != row_count OR s.total_bytes != byte_sum
          """)
      guard !mismatches.isEmpty else { return ["ok"] }
      return mismatches.map { row in
        let name: String = row[0]
        return
          "store '\(name)' counts \(row[1] as Int) entries and \(row[2] as Int) bytes, but holds \(row[3] as Int) and \(row[4] as Int)"
      }
    }
  }

  // MARK: - Private

  /// Puts the file in WAL mode, once it is known to be a workspace.
  ///
  /// Changing the journal mode needs a moment of exclusive access, and SQLite does not wait for
  /// it through the busy handler: when several processes open a new workspace at once, the
  /// losers see "database is locked". They look again and retry for up to 5 s.
  private func switchToWAL() throws(WorkspaceError) {
    var failure = "the journal mode stays as it was"
    for _ in 0..<100 {
      guard let reason = attemptWAL() else { return }
      failure = reason
      usleep(50_000)
    }
    throw .cannotOpen(path: path, detail: "cannot switch to WAL: " + failure)
  }

  /// One attempt: nil when the file is in WAL mode, otherwise why not.
  private func attemptWAL() -> String? {
    do {
      let mode: String? = try queue.inDatabase { db in
        let current = try String.fetchOne(db, sql: "PRAGMA journal_mode")
        if current == "wal" { return current }
        return try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
      }
      return mode == "wal" ? nil : "the journal mode is " + (mode ?? "unknown")
    } catch {
      return String(describing: error)
    }
  }

  private func migrate() throws(WorkspaceError) {
    var attempt = 0
    while true {
      do {
        try Self.migrator.migrate(queue)
        return
      } catch {
        // Two processes that open a new workspace at once both try to migrate it; the loser
        // fails and finds the work done when it looks again.
        attempt += 1
        let done = (try? queue.read { db in try Self.migrator.hasCompletedMigrations(db) }) ?? false
        if done { return }
        if attempt >= 3 {
          if let error = error as? DatabaseError, Self.isNotADatabase(error) {
            throw .notADatabase(path: path, detail: Self.sqliteMessage(error))
          }
          throw .cannotOpen(path: path, detail: String(describing: error))
        }
        usleep(50_000)
      }
    }
  }

  private func checkSchema() throws(WorkspaceError) {
    do {
      try queue.inDatabase { db in
        // Reading the schema is what reveals a file that is not a database.
        let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
        guard try db.tableExists("grdb_migrations") else {
          // Another application's database: archsh neither converts nor adds to it.
          if tables > 0 { throw WorkspaceError.foreignDatabase(path: path) }
          return
        }
        let known = Set(Self.migrator.migrations)
        let unknown = try Self.migrator.appliedIdentifiers(db).subtracting(known).sorted()
        if !unknown.isEmpty {
          throw WorkspaceError.newerSchema(path: path, unknown: unknown, known: Self.schemaVersion)
        }
      }
    } catch let error as WorkspaceError {
      throw error
    } catch let error as DatabaseError where Self.isNotADatabase(error) {
      throw .notADatabase(path: path, detail: Self.sqliteMessage(error))
    } catch {
      throw .cannotOpen(path: path, detail: String(describing: error))
    }
  }

  private func translate(_ error: DatabaseError, operation: String) -> Error {
    if error.resultCode == .SQLITE_READONLY {
      return WorkspaceError.readOnly(path: path, operation: operation)
    }
    if error.resultCode == .SQLITE_CORRUPT {
      return WorkspaceError.damaged(path: path, detail: Self.sqliteMessage(error))
    }
    if error.resultCode == .SQLITE_NOTADB {
      return WorkspaceError.notADatabase(path: path, detail: Self.sqliteMessage(error))
    }
    return WorkspaceError.database(
      "SQLite error \(error.resultCode.rawValue): \(error.message ?? "unknown") - while \(operation)"
    )
  }

  private static func isNotADatabase(_ error: DatabaseError) -> Bool {
    error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT
  }

  private static func sqliteMessage(_ error: DatabaseError) -> String {
    "\(error.message ?? "unreadable") (SQLite error \(error.resultCode.rawValue))"
  }

  private static func createPrivateFile(_ path: String) throws(WorkspaceError) {
    let directory = (path as NSString).deletingLastPathComponent
    if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
      do {
        try FileManager.default.createDirectory(
          atPath: directory, withIntermediateDirectories: true,
          attributes: [.posixPermissions: 0o700])
      } catch {
        throw .cannotOpen(path: path, detail: "cannot create the directory '\(directory)'")
      }
    }
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    if descriptor < 0 {
      if errno == EEXIST { return }
      throw .cannotOpen(path: path, detail: String(cString: strerror(errno)))
    }
    close(descriptor)
  }

  /// Whether the file cannot, or should not, be written: no write access, or no write bit at all.
  ///
  /// The second rule makes a 0444 file read-only for root too, as editors treat it.
  private static func isWriteProtected(_ path: String) -> Bool {
    if access(path, W_OK) != 0 { return true }
    var status = stat()
    guard stat(path, &status) == 0 else { return false }
    return status.st_mode & 0o222 == 0
  }

  private static func fileSize(_ path: String) -> Int {
    var total = 0
    for suffix in ["", "-wal"] {
      var status = stat()
      if stat(path + suffix, &status) == 0 { total += Int(status.st_size) }
    }
    return total
  }
}
