import Foundation
import GRDB

/// The embedded demo API's own state, kept in the workspace beside the app's (table
/// `embedded_api`): the tokens it has granted, so that a credential the `user` store keeps still
/// opens the API in the next session, as it would against a server that outlives the app.
///
/// The file has mode 0600, like everything in the workspace; the `user` store holds the same
/// tokens on the app's side.
public final class EmbeddedAPIState: @unchecked Sendable {
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
  /// The `embedded_api` table: one row.
  static let migration = Migration(identifier: "v6-embedded-api") { db in
    try db.execute(
      sql: """
        CREATE TABLE embedded_api (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          tokens BLOB NOT NULL
        );
        """)
  }
}
