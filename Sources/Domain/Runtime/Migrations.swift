import GRDB

/// One named schema change of the workspace.
///
/// Each feature declares its own next to its storage code; `WorkspaceSchema.migrations` lists
/// them all, in version order.
struct Migration: Sendable {
  /// The name recorded in the workspace once applied.
  ///
  /// The last one is the schema version; it never changes once released.
  let identifier: String
  /// `.immediate` for a change that touches no foreign key: the migrator then skips checking every
  /// row of the workspace afterwards.
  var foreignKeyChecks: DatabaseMigrator.ForeignKeyChecks = .deferred
  /// Applies the change, inside the migrator's transaction.
  let migrate: @Sendable (Database) throws -> Void
}

/// The workspace's schema: every feature's migrations, each declared next to its storage code.
enum WorkspaceSchema {
  /// Every migration, in the order they are applied.
  ///
  /// A new migration takes the next number; none is renamed, renumbered or removed, since
  /// workspaces record the identifiers they have applied. A test checks that the numbers run
  /// from 1 without a gap.
  static let migrations: [Migration] = [
    PersistenceController.storesMigration,  // v1
    PersistenceController.productCacheMigration,  // v2
    DataSourceDocument.migration,  // v3
    AppStateStore.migration,  // v4
    LogBook.migration,  // v5
    EmbeddedAPIState.migration,  // v6
    RepositoryStore.migration,  // v7
    EmbeddedAPIState.addressMigration,  // v8
    RepositoryStore.textPagingMigration,  // v9
    DataSourceDocument.emptyStateMigration,  // v10
    PersistenceController.touchLogMigration,  // v11
    PersistenceController.totalsPerConnectionMigration,  // v12
    PersistenceController.touchLogBatchesMigration,  // v13
    LearnerProgress.migration,  // v14
  ]

  /// A migrator with every migration registered, in order.
  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    for migration in migrations {
      migrator.registerMigration(
        migration.identifier, foreignKeyChecks: migration.foreignKeyChecks,
        migrate: migration.migrate)
    }
    return migrator
  }

  /// The newest schema version this archsh knows: the last migration's identifier.
  static var schemaVersion: String { migrations.last?.identifier ?? "" }
}
