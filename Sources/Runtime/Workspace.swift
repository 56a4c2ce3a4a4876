import Foundation
import GRDB
import GRDBSQLite
import Plumbing
import Synchronization

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
  /// The file holds triggers or views that archsh did not create: it is refused for writing,
  /// which would run them with archsh's data.
  case foreignSchema(path: String, objects: [String], operation: String)
  /// The file could not be created or opened.
  case cannotOpen(path: String, detail: String)
  /// Another connection holds the write lock for longer than the busy timeout.
  case busy(path: String, operation: String)
  /// Ctrl-C (or SIGTERM) stopped a statement; its transaction was rolled back.
  case interrupted(operation: String)
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
    case .foreignSchema(let path, let objects, let operation):
      return "the workspace '\(path)' holds SQL that archsh did not write ("
        + objects.joined(separator: ", ") + "), so \(operation) is refused: writing would run it; "
        + "reads still work (drop it with sqlite3 if you made it, or use another workspace)"
    case .cannotOpen(let path, let detail):
      return "cannot open the workspace '\(path)': \(detail)"
    case .busy(let path, let operation):
      return
        "the workspace '\(path)' is busy: another archsh process has held its write lock for 5 s (an --atomic run holds it until it ends), so \(operation) gave up"
    case .interrupted(let operation):
      return "\(operation) was interrupted: nothing it was writing was kept"
    case .database(let message):
      return message
    }
  }
}

/// The SQLite database that holds everything a session builds: one file per workspace.
///
/// It runs in WAL mode with `synchronous=NORMAL` and a busy timeout of 5 s, so several archsh
/// processes can share it. Every schema change is a named migration, in the schema it is opened
/// with (archsh's is `WorkspaceSchema.archsh`, in Domain). SQL lives in the workspace
/// (transactions, access times, `db info`) and in each feature's storage type, always with bound
/// parameters: `EntryStorage` (the stores' entries), `DataSourceBlocks` (the data sources),
/// `LogStore` (the log) and `LearnerProgress`, here, and `AppStateStore` and `RepositoryStore` in
/// Domain, on GRDB. Each declares its migrations next to its SQL.
///
/// Each operation is its own transaction, unless an atomic transaction (`--atomic`) is open: then
/// every operation joins it, and `endAtomic(commit:)` commits or rolls back the lot.
///
/// The write-behind access times are in AccessTimeBuffer.swift, `db info` and the integrity check
/// in WorkspaceInfo.swift.
public final class Workspace: @unchecked Sendable {
  // @unchecked: the caches and counts below stay on `queue`; the rest is in `shared`.
  /// The path given, or `:memory:`.
  public let path: String
  /// Whether the file could not be opened for writing, or is refused for it (`foreignSchema`).
  public let isReadOnly: Bool
  /// The triggers and views in the file that archsh did not create (`trigger 'name'`), which
  /// keep it from being written: a trigger would run with archsh's data (a copy of its
  /// credentials, say), and a view with archsh's reads.
  public let foreignSchema: [String]

  package let queue: DatabaseQueue
  /// What async forms reach from other threads: the write-behind touches, the age trims and the
  /// atomic flag.
  package struct SharedState {
    package var atomicDepth = 0
    /// Access times and counts of reads not yet written (see `recordTouch`).
    package var pendingTouches = Touches()
    /// The touches taken by the last `flushTouches`, kept until its transaction commits.
    package var flushingTouches = Touches()
    /// When each store last had its expired entries removed, by this process.
    package var lastAgeTrim = ByStore<Double>()
  }

  package let shared = Mutex(SharedState())

  /// The places for the statements that run on every line.
  package enum HotStatement: Int, CaseIterable {
    case begin, commit, storeLimits, persist, fetchOne
  }

  /// The statements kept by `HotStatement`; used on the queue.
  package let hotStatements = StatementSlots(count: HotStatement.allCases.count)

  /// Each store's limits as they were last read.
  ///
  /// Emptied with the store bounds (another connection's commit, a rollback), and by every write
  /// to the `store` table (`storesChanged`): creating, dropping, changing limits.
  package var limitsCache = ByStore<StoreLimits>()

  /// Forgets the cached limits, after a write to the `store` table.
  package func storesChanged() {
    limitsCache.removeAll()
  }

  /// For each store, a number of bytes it cannot exceed (StoreTotals.swift).
  ///
  /// This and the next two are read and set only on the queue.
  package var storeBounds = ByStore<Int>()
  /// About how many entries the workspace holds, once counted (`estimatedEntries`).
  package var entryEstimate: Int?
  /// SQLite's data version when this connection last looked or committed.
  package var seenDataVersion: UInt32 = 0
  /// How many times a transaction of this connection found that another connection had committed
  /// since this one last looked (`foreignCommits`).
  package var foreignCommitCount: UInt64 = 0

  /// A count that grows whenever this connection finds that another connection (another archsh
  /// process) has committed since it last looked.
  ///
  /// What a session holds in memory (a data source, the running app) remembers the count it was
  /// last in step at; inside a write transaction, a different count means the workspace may hold
  /// something newer, which is read again before it is changed. Read it on the queue: inside
  /// `write` or `read`, or through `lookForForeignCommits()`.
  public var foreignCommits: UInt64 { foreignCommitCount }

  /// Records the data version the workspace has once it is open and migrated: commits after it
  /// are other connections' until this one writes.
  private func noteDataVersionAtOpen() {
    queue.inDatabase { db in seenDataVersion = dataVersion(db) }
  }

  /// Looks whether another connection has committed, and returns `foreignCommits` then.
  ///
  /// A read transaction of its own, whose one statement reads one page.
  public func lookForForeignCommits() throws -> UInt64 {
    try readStatement { db in
      // Inside an atomic run this connection holds the write lock: nobody else commits.
      guard !db.isInsideTransaction else { return foreignCommitCount }
      try db.inTransaction(.deferred) {
        _ = try Int.fetchOne(db, sql: "SELECT 1 FROM sqlite_schema LIMIT 1")
        noteForeignCommits(db)
        return .commit
      }
      return foreignCommitCount
    }
  }

  /// Whether a write to `store` at `time` should remove expired entries: the first time, then at
  /// most once a minute.
  package func claimAgeTrim(store: String, at time: Double) -> Bool {
    shared.withLock { shared in
      if let last = shared.lastAgeTrim[store], time - last < 60 { return false }
      shared.lastAgeTrim[store] = time
      return true
    }
  }

  /// How many reads are remembered before their access times are written in one transaction.
  package static let touchBatch = 1000
  /// The reads in the `entry_touch_log` below which it is never folded for its size alone (tests
  /// lower it before the first read).
  package var touchLogFloor = 10_000

  /// What the workspace was opened with: every feature's migrations, in order (their
  /// identifiers are the schema versions `db info` shows), and the triggers archsh made itself.
  public let schema: WorkspaceSchema

  /// How many SQLite virtual-machine instructions run between two looks at `interruptCheck`.
  ///
  /// About a millisecond of work. Every 1,000 made a repository fetch with 1,000,000 elements held
  /// four times slower (docs/performance.md).
  package static let progressInterval: Int32 = 100_000

  /// Sets what says that the user asked to stop (Ctrl-C, SIGTERM, SIGHUP).
  ///
  /// A statement running when it says so fails with `WorkspaceError.interrupted`, and its
  /// transaction is rolled back. The shell sets it with its session's interrupt check.
  public static func setInterruptCheck(_ check: @escaping @Sendable () -> Bool) {
    workspaceInterruptCheck.withLock { $0 = check }
  }

  /// Opens the workspace at `path` (`:memory:` for one in memory), creating it with mode 0600.
  public init(path: String, schema: WorkspaceSchema) throws(WorkspaceError) {
    self.path = path
    self.schema = schema
    var configuration = Configuration()
    configuration.busyMode = .timeout(5)
    configuration.label = "archsh.workspace"
    // --atomic keeps one transaction open across many accesses, on purpose.
    configuration.allowsUnsafeTransactions = true
    configuration.prepareDatabase { db in
      // Ctrl-C, SIGTERM and SIGHUP stop any statement, however long it runs.
      if let connection = db.sqliteConnection {
        sqlite3_progress_handler(connection, Self.progressInterval, workspaceProgress, nil)
      }
      // Functions in the schema (a view's, an index's, a default's) must be innocuous: a file
      // someone else made cannot call what archsh's connection could.
      try db.execute(sql: "PRAGMA trusted_schema = OFF")
      try db.execute(sql: "PRAGMA synchronous = NORMAL")
      // SQLite's page cache holds 2 MB by default: a store of 100,000 keys (10 MB) read in no
      // particular order then reads most pages from the file again, one pread each. Up to 16 MB
      // are kept instead; the memory is taken only as pages are read.
      try db.execute(sql: "PRAGMA cache_size = -16384")
    }
    if path == ":memory:" {
      isReadOnly = false
      foreignSchema = []
      do {
        queue = try DatabaseQueue(configuration: configuration)
      } catch {
        throw .cannotOpen(path: path, detail: String(describing: error))
      }
      try migrate()
      noteDataVersionAtOpen()
      return
    }
    let exists = FileManager.default.fileExists(atPath: path)
    if !exists { try Self.createPrivateFile(path) }
    let writeProtected = Self.isWriteProtected(path)
    configuration.readonly = writeProtected
    if !writeProtected { Self.repairSidecars(of: path) }
    // Opened without touching the journal mode: a file is checked before anything is written to
    // it, and switched to WAL only once it is known to be an archsh workspace.
    let opened = try Self.openQueue(path, configuration)
    try Self.checkSchema(opened, path: path, schema: schema)
    let foreign = try Self.foreignObjects(opened, path: path, schema: schema)
    foreignSchema = foreign
    isReadOnly = writeProtected || !foreign.isEmpty
    if foreign.isEmpty || writeProtected {
      queue = opened
    } else {
      // Refused for writing: opened again read-only, so that nothing can write through it.
      configuration.readonly = true
      queue = try Self.openQueue(path, configuration)
    }
    guard !isReadOnly else { return }
    try switchToWAL()
    try migrate()
    noteDataVersionAtOpen()
  }

  /// Runs `body` with the database: inside the open atomic transaction, or in a new transaction.
  ///
  /// `operation` names the command for the read-only error.
  ///
  /// With `alongsideReads`, for writes that carry no command's changes (the log book's lines), the
  /// recorded reads are written in the same transaction, and kept for the next write if it rolls
  /// back.
  public func write<T>(
    _ operation: String, alongsideReads: Bool = false, _ body: (Database) throws -> T
  ) throws -> T {
    guard !isReadOnly else { throw refusal(operation) }
    do {
      return try queue.inDatabase { db in
        if db.isInsideTransaction {
          // Inside an atomic run, each operation is a savepoint: one that fails leaves nothing
          // behind, as its own transaction would, and the run can go on after an `expect`.
          try flushTouches(db)
          try FastStatement(db, "SAVEPOINT operation").step()
          do {
            let result = try body(db)
            try FastStatement(db, "RELEASE operation").step()
            return result
          } catch {
            _ = try? FastStatement(db, "ROLLBACK TO operation").step()
            forgetStoreBounds()
            _ = try? FastStatement(db, "RELEASE operation").step()
            throw error
          }
        }
        if alongsideReads, pendingTouchTotal > 0 { return try writeTouches(db) { try body(db) } }
        // Recorded reads are written in a transaction of their own first, so that a command
        // that fails and rolls back cannot take them with it.
        if pendingTouchTotal > 0 { try writeTouchesAlone(db) }
        return try transaction(db, writing: true) { try body(db) }
      }
    } catch let error as DatabaseError {
      throw translate(error, operation: operation)
    } catch {
      throw damage(error)
    }
  }

  /// A value of the wrong type, read from a file changed outside archsh, as the damage it is;
  /// any other error as it is.
  private func damage(_ error: Error) -> Error {
    switch error {
    case let error as StoredValueError:
      return WorkspaceError.damaged(path: path, detail: error.description)
    case let error as RowDecodingError:
      // GRDB's text names the row's values and the statement's arguments, which may be secrets:
      // only the type and the column are shown.
      return WorkspaceError.damaged(path: path, detail: Self.decodingDetail(error))
    default:
      return error
    }
  }

  /// What a GRDB decoding error says, without the row's values.
  ///
  /// `column 'name' holds no String where archsh wrote one`: GRDB gives the type and the column
  /// only in its text, which is read for them; without them, the line says less.
  static func decodingDetail(_ error: RowDecodingError) -> String {
    let text = String(describing: error)
    func after(_ marker: String, upTo end: Character) -> String? {
      guard let start = text.range(of: marker)?.upperBound else { return nil }
      return StoredValueError.shownName(String(text[start...].prefix { $0 != end }))
    }
    let place = after("column: \"", upTo: "\"").map { "column '\($0)'" } ?? "a column"
    guard let type = after("could not decode ", upTo: " ") else {
      return "\(place) holds a value of another type than archsh wrote there"
    }
    return "\(place) holds no \(type) where archsh wrote one"
  }

  /// Runs `body` with the database for reading only.
  ///
  /// Reads remember their access times; every `touchBatch` of them are written afterwards.
  public func read<T>(_ body: (Database) throws -> T) throws -> T {
    try readStatement { db in
      guard !db.isInsideTransaction else { return try body(db) }
      // One read transaction for every statement of the read: SQLite takes its WAL read locks
      // (fcntl calls) once, not once a statement.
      return try transaction(db, writing: false) { try body(db) }
    }
  }

  /// Runs `body` in a transaction of its own, committed when it returns and rolled back when it
  /// throws: `BEGIN IMMEDIATE` when `writing`, `BEGIN DEFERRED` otherwise.
  ///
  /// BEGIN and COMMIT are kept statements: GRDB's inTransaction prepares both anew each time. A
  /// writing transaction notes other connections' commits when it begins and its own when it
  /// commits (StoreTotals).
  package func transaction<T>(_ db: Database, writing: Bool, _ body: () throws -> T) throws -> T {
    if writing {
      try FastStatement(db, "BEGIN IMMEDIATE", slot: .begin, in: self).step()
      noteForeignCommits(db)
    } else {
      try FastStatement(db, "BEGIN DEFERRED").step()
    }
    do {
      let result = try body()
      try FastStatement(db, "COMMIT", slot: .commit, in: self).step()
      if writing { noteOwnCommit(db) }
      return result
    } catch {
      if db.isInsideTransaction { _ = try? FastStatement(db, "ROLLBACK").step() }
      forgetStoreBounds()
      throw error
    }
  }

  /// Runs `body`, which runs one statement, without a transaction of its own: SQLite runs a
  /// single statement in a read transaction anyway, so the BEGIN and COMMIT that `read` adds
  /// would be two more statements for nothing.
  package func readStatement<T>(_ body: (Database) throws -> T) throws -> T {
    let result: T
    do {
      result = try queue.inDatabase(body)
    } catch let error as DatabaseError {
      throw translate(error, operation: "reading")
    } catch {
      throw damage(error)
    }
    if pendingTouchTotal >= Self.touchBatch { flushTouchesIfFree() }
    return result
  }

  /// Why `operation` cannot write: the file is read-only, or holds SQL archsh did not write.
  package func refusal(_ operation: String) -> WorkspaceError {
    foreignSchema.isEmpty
      ? .readOnly(path: path, operation: operation)
      : .foreignSchema(path: path, objects: foreignSchema, operation: operation)
  }

  // MARK: - Atomic transactions

  /// Starts the transaction that makes a whole script atomic.
  public func beginAtomic() throws {
    guard !isReadOnly else { throw refusal("an atomic run") }
    try queue.inDatabase { db in
      try db.beginTransaction(.immediate)
      noteForeignCommits(db)
    }
    shared.withLock { $0.atomicDepth = 1 }
  }

  /// Ends the atomic transaction: commits when `commit`, rolls back otherwise.
  public func endAtomic(commit: Bool) throws {
    guard shared.withLock({ $0.atomicDepth }) > 0 else { return }
    shared.withLock { $0.atomicDepth = 0 }
    try queue.inDatabase { db in
      guard db.isInsideTransaction else { return }
      if commit {
        try flushTouches(db)
        try db.commit()
        noteOwnCommit(db)
        touchesCommitted()
      } else {
        try db.rollback()
        forgetStoreBounds()
        restoreTouches()
      }
    }
  }

  /// Closes the connection, and folds the write-ahead log back into the file.
  ///
  /// A transaction left open is rolled back. The log is left empty (or removed by the last
  /// connection to close), so that the file holds everything on its own. Nothing may use the
  /// workspace afterwards.
  public func close() {
    try? queue.inDatabase { db in
      if db.isInsideTransaction { try db.rollback() }
      // The kept statements would hold the connection open past `close`, as a zombie that
      // never folds the log: it is folded here, and emptied.
      // The fold never waits: while another process holds a lock it cannot run, and waiting
      // for it kept a command that only read for seconds at exit. That process folds the log
      // when it closes.
      if !isReadOnly, path != ":memory:", let connection = db.sqliteConnection {
        sqlite3_busy_timeout(connection, 0)
        _ = try? Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
      }
    }
    try? queue.close()
  }

  /// Runs `body` holding the write lock for all of it.
  ///
  /// Its reads and writes are one transaction, committed when it returns and rolled back when it
  /// throws, so that no other process commits between what `body` reads and what it writes.
  /// Inside an atomic run, `body` just runs.
  public func exclusively<T>(_ operation: String, _ body: () throws -> T) throws -> T {
    if isAtomic { return try body() }
    guard !isReadOnly else { throw refusal(operation) }
    do {
      try beginAtomic()
    } catch let error as DatabaseError {
      throw translate(error, operation: operation)
    }
    let result: T
    do {
      result = try body()
    } catch {
      try? endAtomic(commit: false)
      throw error
    }
    do {
      try endAtomic(commit: true)
    } catch let error as DatabaseError {
      throw translate(error, operation: operation)
    }
    return result
  }

  /// Whether an atomic transaction is open.
  public var isAtomic: Bool { shared.withLock { $0.atomicDepth > 0 } }

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
        try schema.migrator.migrate(queue)
        return
      } catch {
        // Two processes that open a new workspace at once both try to migrate it; the loser
        // fails and finds the work done when it looks again.
        attempt += 1
        let done =
          (try? queue.read { db in try schema.migrator.hasCompletedMigrations(db) }) ?? false
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

  private static func openQueue(
    _ path: String, _ configuration: Configuration
  ) throws(WorkspaceError) -> DatabaseQueue {
    do {
      return try DatabaseQueue(path: path, configuration: configuration)
    } catch let error as DatabaseError where Self.isNotADatabase(error) {
      throw .notADatabase(path: path, detail: Self.sqliteMessage(error))
    } catch {
      throw .cannotOpen(path: path, detail: String(describing: error))
    }
  }

  /// The triggers and views in the database that archsh did not create: `trigger 'name'`.
  ///
  /// archsh creates no view, and its only triggers are the ones v1 made and v12 dropped
  /// (`schema.ownTriggers`), recognised by their whole text.
  package static func foreignObjects(
    _ queue: DatabaseQueue, path: String, schema: WorkspaceSchema
  ) throws(WorkspaceError) -> [String] {
    func normalized(_ sql: String) -> String {
      sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
    let own = Set(schema.ownTriggers.map(normalized))
    do {
      return try queue.inDatabase { db in
        try Row.fetchAll(
          db,
          sql: "SELECT name, type, sql FROM sqlite_master WHERE type IN ('trigger', 'view') "
            + "ORDER BY type, name"
        ).compactMap { row in
          let type: String = try row.stored("type", of: "sqlite_master")
          let name: String = try row.stored("name", of: "sqlite_master")
          let sql: String? = try row.stored("sql", of: "sqlite_master")
          if type == "trigger", let sql, own.contains(normalized(sql)) { return nil }
          return "\(type) '\(TerminalText.escaped(name))'"
        }
      }
    } catch {
      throw .cannotOpen(path: path, detail: String(describing: error))
    }
  }

  private static func checkSchema(
    _ queue: DatabaseQueue, path: String, schema: WorkspaceSchema
  ) throws(WorkspaceError) {
    do {
      try queue.inDatabase { db in
        // Reading the schema is what reveals a file that is not a database.
        let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
        guard try db.tableExists("grdb_migrations") else {
          // Another application's database: archsh neither converts nor adds to it.
          if tables > 0 { throw WorkspaceError.foreignDatabase(path: path) }
          return
        }
        let known = Set(schema.migrator.migrations)
        let unknown = try schema.migrator.appliedIdentifiers(db).subtracting(known).sorted()
        if !unknown.isEmpty {
          throw WorkspaceError.newerSchema(path: path, unknown: unknown, known: schema.version)
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
    if error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
      return WorkspaceError.busy(path: path, operation: operation)
    }
    if error.resultCode == .SQLITE_INTERRUPT {
      return WorkspaceError.interrupted(operation: operation)
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
    closeDescriptor(descriptor)
  }

  /// Gives the write-ahead log and the shared-memory file the database's own mode when this user
  /// cannot write them, so that a writable open can use them.
  ///
  /// SQLite creates `-wal` and `-shm` with the database file's mode. A session that opened a
  /// 0400 workspace therefore left a 0400 `-shm`, and after `chmod 600` on the workspace every
  /// write still failed as read-only until the file was deleted by hand. Both files belong to the
  /// database (the `-shm` is rebuilt from the log), so their owner may give them the
  /// database's mode.
  package static func repairSidecars(of path: String) {
    var database = stat()
    guard stat(path, &database) == 0 else { return }
    for suffix in ["-wal", "-shm"] {
      let sidecar = path + suffix
      var status = stat()
      guard stat(sidecar, &status) == 0, access(sidecar, W_OK) != 0, status.st_uid == geteuid()
      else { continue }
      chmod(sidecar, database.st_mode & 0o777)
    }
  }

  /// Whether the file cannot, or should not, be written: no write access, or no write bit at all.
  ///
  /// The second rule makes a 0444 file read-only for root too, as editors treat it.
  private static func isWriteProtected(_ path: String) -> Bool {
    if access(path, W_OK) != 0 { return true }
    // WAL keeps two files next to the workspace (`-wal`, `-shm`): in a folder that cannot be
    // written, a writable file can only be read.
    let directory = (path as NSString).deletingLastPathComponent
    let folder = directory.isEmpty ? "." : directory
    if access(folder, W_OK) != 0 { return true }
    // Root may write anything: a file or folder that nobody may write is read-only for it too.
    var status = stat()
    if stat(folder, &status) == 0, status.st_mode & 0o222 == 0 { return true }
    guard stat(path, &status) == 0 else { return false }
    return status.st_mode & 0o222 == 0
  }
}

/// What `Workspace.setInterruptCheck` set.
private let workspaceInterruptCheck = Mutex<(@Sendable () -> Bool)?>(nil)

/// SQLite's progress handler: a non-zero result interrupts the running statement.
private func workspaceProgress(_: UnsafeMutableRawPointer?) -> Int32 {
  workspaceInterruptCheck.withLock { $0 }?() == true ? 1 : 0
}

/// Closes a file descriptor: the C library's `close`, which `Workspace.close()` hides inside the
/// type.
private func closeDescriptor(_ descriptor: Int32) {
  close(descriptor)
}

extension FastStatement {
  /// The statement for `sql`, kept in the workspace's `slot`.
  package init(_ db: Database, _ sql: String, slot: Workspace.HotStatement, in workspace: Workspace)
    throws
  {
    try self.init(db, sql, slot: slot.rawValue, in: workspace.hotStatements)
  }
}
