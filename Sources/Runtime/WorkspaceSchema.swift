import GRDB

/// One named schema change of the workspace.
///
/// Each feature declares its own next to its storage code; the schema a workspace is opened with
/// lists them all, in version order.
public struct Migration: Sendable {
  /// The name recorded in the workspace once applied.
  ///
  /// The last one is the schema version; it never changes once released.
  public let identifier: String
  /// `.immediate` for a change that touches no foreign key: the migrator then skips checking every
  /// row of the workspace afterwards.
  public var foreignKeyChecks: DatabaseMigrator.ForeignKeyChecks
  /// Applies the change, inside the migrator's transaction.
  public let migrate: @Sendable (Database) throws -> Void

  /// A migration named `identifier` that runs `migrate`.
  public init(
    identifier: String, foreignKeyChecks: DatabaseMigrator.ForeignKeyChecks = .deferred,
    migrate: @escaping @Sendable (Database) throws -> Void
  ) {
    self.identifier = identifier
    self.foreignKeyChecks = foreignKeyChecks
    self.migrate = migrate
  }
}

/// What a workspace is opened with: every feature's migrations, in the order they are applied,
/// and the triggers archsh itself made (a workspace with any other trigger or view is another
/// program's, and opened read-only).
public struct WorkspaceSchema: Sendable {
  /// Every migration, in the order they are applied.
  public let migrations: [Migration]
  /// The whole text of each trigger archsh made itself.
  public let ownTriggers: [String]

  /// A schema of `migrations`, in order, with `ownTriggers`.
  public init(migrations: [Migration], ownTriggers: [String]) {
    self.migrations = migrations
    self.ownTriggers = ownTriggers
  }

  /// A migrator with every migration registered, in order.
  public var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    for migration in migrations {
      migrator.registerMigration(
        migration.identifier, foreignKeyChecks: migration.foreignKeyChecks,
        migrate: migration.migrate)
    }
    return migrator
  }

  /// The newest schema version: the last migration's identifier.
  public var version: String { migrations.last?.identifier ?? "" }
}

/// A store's limits.
public struct StoreLimits: Equatable, Sendable {
  /// The most bytes the store holds; a write beyond it trims the least recently accessed.
  public var byteLimit: Int
  /// Seconds an entry lives after its creation; 0 means no limit.
  public var ageLimit: Double
  /// Whether an expired entry reads as missing.
  public var ttl: Bool

  /// PINCache's defaults: 50 MB, 30 days, no TTL.
  public static let `default` = StoreLimits(
    byteLimit: 50 * 1024 * 1024, ageLimit: 30 * 24 * 3600, ttl: false)

  /// Creates limits.
  public init(byteLimit: Int, ageLimit: Double, ttl: Bool) {
    self.byteLimit = byteLimit
    self.ageLimit = ageLimit
    self.ttl = ttl
  }
}
