import GRDB

/// One named schema change of the workspace.
///
/// Each feature declares its own next to its storage code; `WorkspaceSchema.migrations` lists
/// them all, in order.
struct Migration: Sendable {
  /// The name recorded in the workspace once applied.
  ///
  /// The last one is the schema version; it never changes once released.
  let identifier: String
  /// Applies the change, inside the migrator's transaction.
  let migrate: @Sendable (Database) throws -> Void
}

/// The workspace's schema: every feature's migrations, registered in one list.
enum WorkspaceSchema {
  /// Every migration, in the order they are applied.
  ///
  /// A new migration goes at the end; none is renamed, reordered or removed, since workspaces
  /// record the identifiers they have applied.
  static let migrations: [Migration] =
    PersistenceController.migrations + [
      DataSourceDocument.migration,
      AppStateStore.migration,
      LogBook.migration,
      EmbeddedAPIState.migration,
      RepositoryStore.migration,
      EmbeddedAPIState.addressMigration,
      RepositoryStore.textPagingMigration,
      DataSourceDocument.emptyStateMigration,
    ]

  /// A migrator with every migration registered, in order.
  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    for migration in migrations {
      migrator.registerMigration(migration.identifier, migrate: migration.migrate)
    }
    return migrator
  }

  /// The newest schema version this archsh knows: the last migration's identifier.
  static var schemaVersion: String { migrations.last?.identifier ?? "" }
}
