import Foundation
import GRDB

/// The embedded demo API's own state, kept in the workspace beside the app's (table
/// `embedded_api`): the tokens it has granted, so that a credential the `user` store keeps still
/// opens the API in the next session, as it would against a server that outlives the app.
///
/// The file has mode 0600, like everything in the workspace; the `user` store holds the same
/// tokens on the app's side.
public final class EmbeddedAPIState: Sendable {
  private let workspace: Workspace

  /// Opens the state in `workspace`.
  public init(workspace: Workspace) { self.workspace = workspace }

  /// The saved tokens, or nil.
  public func loadTokens() -> Data? {
    try? workspace.read { db in
      try Data.fetchOne(db, sql: "SELECT tokens FROM embedded_api WHERE id = 1")
    }
  }

  /// Saves the tokens; a read-only workspace keeps none, and the API keeps them in memory.
  public func saveTokens(_ data: Data) {
    _ = try? workspace.write("saving the embedded API's tokens") { db in
      try db.execute(
        sql: """
          INSERT INTO embedded_api (id, tokens) VALUES (1, ?)
          ON CONFLICT (id) DO UPDATE SET tokens = excluded.tokens
          """, arguments: [data])
    }
  }
}

extension EmbeddedAPIState {
  /// The port the embedded API listened on last time, or nil.
  public func savedPort() -> Int? {
    try? workspace.read { db in
      try Int.fetchOne(db, sql: "SELECT port FROM embedded_api_address WHERE id = 1")
    }
  }

  /// Remembers the embedded API's port, so that the next session listens on the same address,
  /// and moves entries kept under URLs of an earlier address to this one.
  ///
  /// The product cache keys each product by its URL (ProductUpdater's `url.absoluteString`): an
  /// address that changed from run to run left a copy per port, and reads found the oldest. When
  /// two entries meet under one key, the newer one stays. A read-only workspace keeps nothing.
  public func adopt(port: Int) {
    _ = try? workspace.write("remembering the embedded API's address") { db in
      let saved = try Int.fetchOne(db, sql: "SELECT port FROM embedded_api_address WHERE id = 1")
      guard saved != port else { return }
      try db.execute(
        sql: """
          INSERT INTO embedded_api_address (id, port) VALUES (1, ?)
          ON CONFLICT (id) DO UPDATE SET port = excluded.port
          """, arguments: [port])
      try Self.moveKeys(db, toOrigin: "http://127.0.0.1:\(port)/")
    }
  }

  /// Re-keys every entry under `http://127.0.0.1:OTHER/…` to `origin…`, the newest copy winning.
  package static func moveKeys(_ db: Database, toOrigin origin: String) throws {
    let rows = try Row.fetchAll(
      db,
      sql: """
        SELECT key, store, created_at FROM entry
        WHERE key GLOB 'http://127.0.0.1:[0-9]*/*' AND substr(key, 1, ?) <> ?
        ORDER BY created_at
        """, arguments: [origin.utf8.count, origin])
    // Reads logged under the old keys are folded in first, or they would be lost with them.
    if !rows.isEmpty { try Workspace.compactTouches(db) }
    for row in rows {
      let store: String = try row.stored("store", of: "entry")
      let key: String = try row.stored("key", of: "entry")
      let afterHost = key.dropFirst("http://127.0.0.1:".count)
      guard let slash = afterHost.firstIndex(of: "/") else { continue }
      let moved = origin + afterHost[afterHost.index(after: slash)...]
      let existing = try Double.fetchOne(
        db, sql: "SELECT created_at FROM entry WHERE store = ? AND key = ?",
        arguments: [store, moved])
      if let existing, try existing >= row.stored("created_at", of: "entry", as: Double.self) {
        try db.execute(
          sql: "DELETE FROM entry WHERE store = ? AND key = ?", arguments: [store, key])
        continue
      }
      try db.execute(
        sql: "DELETE FROM entry WHERE store = ? AND key = ?", arguments: [store, moved])
      try db.execute(
        sql: "UPDATE entry SET key = ? WHERE store = ? AND key = ?",
        arguments: [moved, store, key])
    }
  }

  /// The `embedded_api_address` table: the port of the last run, one row.
  package static let addressMigration = Migration(identifier: "v8-embedded-api-address") { db in
    try db.execute(
      sql: """
        CREATE TABLE embedded_api_address (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          port INTEGER NOT NULL
        );
        """)
  }

  /// The `embedded_api` table: one row.
  package static let migration = Migration(identifier: "v6-embedded-api") { db in
    try db.execute(
      sql: """
        CREATE TABLE embedded_api (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          tokens BLOB NOT NULL
        );
        """)
  }
}
