import GRDB

extension EntryStorage {
  /// The triggers archsh ever made, by v1, until v12 dropped them: a workspace opened before v12
  /// runs holds them, and they are archsh's own SQL, not a stranger's.
  package static let ownTriggers = [
    """
    CREATE TRIGGER entry_inserted AFTER INSERT ON entry BEGIN
      UPDATE store SET total_bytes = total_bytes + NEW.bytes, entry_count = entry_count + 1
      WHERE name = NEW.store;
    END
    """,
    """
    CREATE TRIGGER entry_updated AFTER UPDATE OF bytes ON entry BEGIN
      UPDATE store SET total_bytes = total_bytes - OLD.bytes + NEW.bytes WHERE name = NEW.store;
    END
    """,
    """
    CREATE TRIGGER entry_deleted AFTER DELETE ON entry BEGIN
      UPDATE store SET total_bytes = total_bytes - OLD.bytes, entry_count = entry_count - 1
      WHERE name = OLD.store;
    END
    """,
  ]

  /// v1: the stores' and entries' tables, and the seed's stores.
  package static func storesMigration(seedStores: [String]) -> Migration {
    Migration(identifier: "v1-stores-and-entries") { db in
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
          """)
      // The store row keeps its totals, so limits are checked without scanning entries.
      for trigger in ownTriggers { try db.execute(sql: trigger) }
      let defaults = StoreLimits.default
      for name in seedStores {
        try db.execute(
          sql: "INSERT INTO store (name, byte_limit, age_limit, ttl) VALUES (?, ?, ?, 0)",
          arguments: [name, defaults.byteLimit, defaults.ageLimit])
      }
    }
  }

  /// v2: the `.productCache` store, into which ProductUpdater persists.
  ///
  /// The seed's own enum lacks it. A user may have created a store of that name already; it is
  /// kept as it is.
  package static func productCacheMigration(store: String) -> Migration {
    Migration(identifier: "v2-product-cache") { db in
      let defaults = StoreLimits.default
      try db.execute(
        sql: "INSERT OR IGNORE INTO store (name, byte_limit, age_limit, ttl) VALUES (?, ?, ?, 0)",
        arguments: [
          store, defaults.byteLimit,
          defaults.ageLimit,
        ])
    }
  }

  /// Reads appended their access times here, a row each, until v13.
  ///
  /// No index: rows are only appended, and read all at once.
  package static let touchLogMigration = Migration(identifier: "v11-entry-touch-log") { db in
    try db.execute(
      sql: """
        CREATE TABLE entry_touch (
          store TEXT NOT NULL,
          key TEXT NOT NULL,
          created_at REAL NOT NULL,
          accessed_at REAL NOT NULL,
          reads INTEGER NOT NULL
        )
        """)
  }

  /// The store's totals are kept per connection (StoreTotals.swift) instead of by triggers,
  /// and least-recently-used trims sort the store instead of walking an index: a persist then
  /// writes the entry's page alone, where it wrote the index's and the store's as well.
  package static let totalsPerConnectionMigration = Migration(
    identifier: "v12-totals-per-connection"
  ) {
    db in
    try db.execute(
      sql: """
        DROP TRIGGER entry_inserted;
        DROP TRIGGER entry_updated;
        DROP TRIGGER entry_deleted;
        DROP INDEX entry_by_access;
        ALTER TABLE store DROP COLUMN total_bytes;
        ALTER TABLE store DROP COLUMN entry_count;
        """)
  }

  /// Reads are logged a batch of a store's reads to a row (`Workspace.TouchLog`) instead of a
  /// read to a row: the old log is folded into the entries first, as `compactTouches` did.
  package static let touchLogBatchesMigration = Migration(
    identifier: "v13-touch-log-batches", foreignKeyChecks: .immediate
  ) { db in
    try db.execute(
      sql: """
        UPDATE entry SET accessed_at = max(entry.accessed_at, logged.accessed_at),
          access_count = entry.access_count + logged.reads
        FROM (
          SELECT store, key, created_at, max(accessed_at) AS accessed_at, sum(reads) AS reads
          FROM entry_touch GROUP BY store, key, created_at
        ) AS logged
        WHERE entry.store = logged.store AND entry.key = logged.key
          AND entry.created_at = logged.created_at;
        DROP TABLE entry_touch;
        CREATE TABLE entry_touch_log (
          store TEXT NOT NULL,
          reads INTEGER NOT NULL,
          touches BLOB NOT NULL
        );
        """)
  }
}
