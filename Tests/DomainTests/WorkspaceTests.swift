import Foundation
import GRDB
import TestSupport
import Testing

@testable import Domain
@testable import Runtime

/// The reads waiting in the `entry_touch_log`, and one entry's stored access count.
func logged(_ workspace: Workspace, key: String) throws -> (rows: Int, count: Int) {
  try workspace.read { db in
    (
      try Int.fetchOne(db, sql: "SELECT coalesce(sum(reads), 0) FROM entry_touch_log") ?? -1,
      try Int.fetchOne(db, sql: "SELECT access_count FROM entry WHERE key = ?", arguments: [key])
        ?? -1
    )
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
      try WorkspaceSchema.archsh.migrator.migrate(queue, upTo: version)
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
    #expect(try workspace.info().schemaVersion == "v14-learner-progress")
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
    #expect(try workspace.info().schemaVersion == "v14-learner-progress")
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

@Suite("values read back from a workspace changed outside archsh")
struct StoredValueTests {
  @Test("a GRDB decoding error is told by its type and column, without the row's values")
  func decodingDetailHidesValues() throws {
    let queue = try DatabaseQueue()
    let error = try queue.read { db -> RowDecodingError? in
      let row = try #require(
        try Row.fetchOne(db, sql: "SELECT 'Bearer secret-token' AS name, 'other' AS next"))
      do {
        _ = try row.decode(Int.self, forColumn: "name")
        return nil
      } catch let error as RowDecodingError {
        return error
      }
    }
    let detail = Workspace.decodingDetail(try #require(error))
    #expect(detail == "column 'name' holds no Int where archsh wrote one")
  }

  @Test("a name from the file is quoted with its own quotes doubled, and shown escaped and cut")
  func namesFromTheFile() throws {
    #expect(Workspace.identifier(#"x" WHERE 1 --"#) == #""x"" WHERE 1 --""#)
    let queue = try DatabaseQueue()
    try queue.write { db in
      try db.execute(sql: "CREATE TABLE \(Workspace.identifier(#"a"b"#)) (n INTEGER)")
      try db.execute(sql: #"INSERT INTO "a""b" VALUES ('text')"#)
      #expect(
        try Workspace.valueTypeProblems(db) == [
          #"a"b.n: 1 row holds text, where archsh keeps an integer"#
        ])
    }
    // A character with many combining marks is one character, and many scalars: the cut counts
    // scalars.
    let long = "a" + String(repeating: "\u{301}", count: 10_000)
    #expect(StoredValueError.shownName(long).unicodeScalars.count < 70)
    #expect(StoredValueError.shownName("\u{1B}[31m") == "\\e[31m")
  }

  @Test("a block that decodes to more rows than archsh writes to one is refused as it is read")
  func blockRowLimit() throws {
    // Empty rows: a kind byte and a length of 0, five bytes each.
    let row: [UInt8] = [0, 0, 0, 0, 0]
    var rows: [String] = []
    let full = Data(Array(repeating: row, count: DataSourceBlocks.blockLimit).joined())
    try RowCoding.decode(full, into: &rows) { _, text in text }
    #expect(rows.count == DataSourceBlocks.blockLimit)
    rows = []
    let over = Data(Array(repeating: row, count: DataSourceBlocks.blockLimit + 1).joined())
    #expect(throws: CorruptBlock.self) {
      try RowCoding.decode(over, into: &rows) { _, text in text }
    }
  }

  @Test("a count outside 0 to 2^53 is refused before arithmetic can overflow on it")
  func counts() throws {
    let queue = try DatabaseQueue()
    try queue.read { db in
      for (value, accepted) in [("0", true), ("9007199254740992", true), ("-1", false)] {
        let row = try #require(try Row.fetchOne(db, sql: "SELECT 'k' AS key, \(value) AS bytes"))
        #expect(((try? row.storedCount("bytes", of: "entry")) != nil) == accepted, "\(value)")
      }
      let row = try #require(
        try Row.fetchOne(db, sql: "SELECT 'k' AS key, 9223372036854775807 AS bytes"))
      #expect(throws: StoredValueError.self) { try row.storedCount("bytes", of: "entry") }
    }
  }
}
