import CRegistry
import GRDB

/// One named schema change of the workspace.
///
/// Each feature declares its own next to its storage code and registers them there
/// (`MigrationRegistration`); `WorkspaceSchema.migrations` gathers them all, in order.
struct Migration: Sendable {
  /// The name recorded in the workspace once applied.
  ///
  /// The last one is the schema version; it never changes once released.
  let identifier: String
  /// `.immediate` for a change that touches no foreign key: the migrator then skips checking every
  /// row of the workspace afterwards, about 30 ms for 100,000 entries (callgrind).
  var foreignKeyChecks: DatabaseMigrator.ForeignKeyChecks = .deferred
  /// Applies the change, inside the migrator's transaction.
  let migrate: @Sendable (Database) throws -> Void
}

/// What a feature places in the `archsh_migrations` linker section, next to its storage code: a
/// function that adds its migrations to the list it is given.
///
/// ```swift
/// @used @section("archsh_migrations")
/// let repositoryMigrations: MigrationRegistration = { list in
///   MigrationRegistrations.add([RepositoryStore.migration], to: list)
/// }
/// ```
typealias MigrationRegistration = SectionRegistration

/// Reading the migrations' section.
enum MigrationRegistrations {
  /// Adds `migrations` to the list a registration was given.
  static func add(_ migrations: [Migration], to list: UnsafeMutableRawPointer) {
    LinkerSection.add(migrations, to: list)
  }

  /// Every migration placed in the section, ordered by the number its identifier starts with
  /// (`v7-repositories` is the seventh).
  static func all() -> [Migration] {
    let migrations = LinkerSection.collect(
      Migration.self, from: archsh_migrations_start(), to: archsh_migrations_stop())
    // A workspace without its schema would be opened as empty: none found means the linker dropped
    // the section, a defect of the build that no input can cause.
    precondition(
      !migrations.isEmpty, "no migration was registered: the archsh_migrations section is empty")
    return migrations.sorted { number($0.identifier) < number($1.identifier) }
  }

  /// The number after the `v` of an identifier; identifiers without one sort last.
  static func number(_ identifier: String) -> Int {
    Int(identifier.dropFirst().prefix { $0.isNumber }) ?? Int.max
  }
}

/// The workspace's schema: every feature's migrations, each registered next to its storage code.
enum WorkspaceSchema {
  /// Every migration, in the order they are applied.
  ///
  /// A new migration takes the next number; none is renamed, renumbered or removed, since
  /// workspaces record the identifiers they have applied. A test checks that the numbers run
  /// from 1 without a gap.
  static let migrations: [Migration] = MigrationRegistrations.all()

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
