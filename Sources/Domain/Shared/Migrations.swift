import Runtime

extension WorkspaceSchema {
  /// archsh's schema: every feature's migrations, each declared next to its storage code, and the
  /// triggers the first migration made.
  ///
  /// A new migration takes the next number; none is renamed, renumbered or removed, since
  /// workspaces record the identifiers they have applied. A test checks that the numbers run
  /// from 1 without a gap.
  public static let archsh = WorkspaceSchema(
    migrations: [
      EntryStorage.storesMigration(seedStores: PersistenceController.Identifier.seedStores),  // v1
      EntryStorage.productCacheMigration(
        store: PersistenceController.Identifier.productCache.rawValue),  // v2
      DataSourceBlocks.migration,  // v3
      AppStateStore.migration,  // v4
      LogStore.migration,  // v5
      EmbeddedAPIState.migration,  // v6
      RepositoryStore.migration,  // v7
      EmbeddedAPIState.addressMigration,  // v8
      RepositoryStore.textPagingMigration,  // v9
      DataSourceBlocks.emptyStateMigration,  // v10
      EntryStorage.touchLogMigration,  // v11
      EntryStorage.totalsPerConnectionMigration,  // v12
      EntryStorage.touchLogBatchesMigration,  // v13
      LearnerProgress.migration,  // v14
    ],
    ownTriggers: EntryStorage.ownTriggers)
}

extension Workspace {
  /// Opens the workspace at `path` (`:memory:` for one in memory) with archsh's schema, creating
  /// it with mode 0600.
  public convenience init(path: String) throws(WorkspaceError) {
    try self.init(path: path, schema: .archsh)
  }

  /// The newest schema version this archsh knows.
  public static var schemaVersion: String { WorkspaceSchema.archsh.version }
}
