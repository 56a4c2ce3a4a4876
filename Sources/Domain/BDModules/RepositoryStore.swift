import Foundation
import GRDB
import Plumbing
import Runtime
import Synchronization

/// How a repository pages, after BDModules' `Repository`.
public struct RepositoryDefinition: Sendable, Equatable {
  /// The seed's orderings.
  public enum Ordering: String, Sendable, CaseIterable {
    /// No order asked of the API.
    case none = "None"
    /// Oldest first.
    case ascending = "Ascending"
    /// Newest first.
    case descending = "Descending"
  }
  /// The seed's paging modes.
  public enum PagingMode: String, Sendable, CaseIterable {
    /// By offset: `offset = elements.count`.
    case standard = "Standard"
    /// By cursor: `since_id` ascending, `max_id` descending.
    case realtime = "Realtime"
  }

  /// The repository's name in the workspace.
  public var name: String
  /// The collection's path, such as `/users/me/locations`.
  public var path: String
  /// Extra query parameters sent with every fetch.
  public var options: [String: String]
  /// The order asked of the API.
  public var ordering: Ordering
  /// Standard (offset) or Realtime (since_id / max_id).
  public var paging: PagingMode
  /// The page size.
  public var limit: Int

  /// Creates a definition.
  public init(
    name: String, path: String, options: [String: String] = [:], ordering: Ordering,
    paging: PagingMode, limit: Int
  ) {
    self.name = name
    self.path = path
    self.options = options
    self.ordering = ordering
    self.paging = paging
    self.limit = limit
  }
}

/// The seed's `FetchState`.
public enum FetchState: String, Sendable, Equatable {
  /// Never fetched, or reset.
  case notFetched = "NotFetched"
  /// A fetch is in flight.
  case fetching = "Fetching"
  /// The last fetch succeeded.
  case fetched = "Fetched"
  /// The last fetch failed; the elements stay.
  case error = "Error"
}

/// A repository's state as stored.
public struct RepositoryRecord: Sendable, Equatable {
  /// How it pages.
  public var definition: RepositoryDefinition
  /// Its fetch state (Fetching only while a fetch runs in this process).
  public var fetchState: FetchState
  /// The collection's total, once a fetch succeeded.
  public var total: Int?
  /// How many elements it holds.
  public var count: Int
  /// The paging id of its first element.
  public var firstPagingId: String?
  /// The paging id of its last element.
  public var lastPagingId: String?
  /// The last fetch's error, if it failed.
  public var lastError: String?

  /// The seed's `atEnd`: the total is the count.
  ///
  /// archsh says false until a fetch has succeeded; the seed's is true after a first fetch that
  /// failed, with nothing fetched.
  public var atEnd: Bool { total.map { $0 == count } ?? false }
}

/// Why a repository operation failed.
public enum RepositoryError: Error, Equatable, CustomStringConvertible, SubjectError {
  /// No repository has the name.
  case unknown(String, suggestion: String?)
  /// A repository already has the name.
  case exists(String)
  /// Realtime paging needs an order.
  case realtimeNeedsOrder
  /// The fetch was cancelled before its page arrived; the pages stored before it are kept.
  case cancelled(String, elements: Int)

  /// A one-line description.
  public var description: String {
    switch self {
    case .unknown(let name, let suggestion):
      return "no repository is named '\(name)'"
        + (suggestion.map { " (did you mean '\($0)'?)" } ?? "")
    case .exists(let name): return "a repository named '\(name)' already exists"
    case .realtimeNeedsOrder:
      return
        "Realtime paging pages by since_id or max_id, so it needs an order: Ascending or Descending"
    case .cancelled(let name, let elements):
      return
        "the fetch of '\(name)' was cancelled; the \(elements) element\(elements == 1 ? "" : "s") stored before it are kept"
    }
  }

  /// The input the error concerns: the repository's name.
  public var subject: ErrorSubject? {
    switch self {
    case .unknown(let name, _), .exists(let name), .cancelled(let name, _):
      return ErrorSubject(.value, name)
    case .realtimeNeedsOrder: return nil
    }
  }
}

/// Repositories and their elements in the workspace (`repositories`, `repository_elements`), so
/// that a repository survives a restart with its cursors.
///
/// Elements are appended in one transaction per page; a duplicate (same type and uuid) is
/// ignored by a unique index, so de-duplication costs one index probe per element, whatever the
/// repository holds. The seed rebuilds an ordered set of every element on each page instead.
public final class RepositoryStore: Sendable {
  private let workspace: Workspace
  private let decoder: JSONDecoder
  private let encoder: JSONEncoder
  private let makeDataSourceController: @Sendable ([Section]) -> DataSourceController
  /// The repositories with a fetch in flight.
  private let inFlight = Mutex<Set<String>>([])

  /// Opens the repositories of `workspace`; a repository's options are written with `encoder`
  /// (keys sorted) and read with `decoder`, and `makeDataSourceController` makes the lists that
  /// show its elements (DataSourceFactory's).
  init(
    workspace: Workspace, decoder: JSONDecoder, encoder: JSONEncoder,
    makeDataSourceController: @escaping @Sendable ([Section]) -> DataSourceController
  ) {
    self.workspace = workspace
    self.decoder = decoder
    self.encoder = encoder
    self.makeDataSourceController = makeDataSourceController
  }

  /// Creates a repository.
  public func create(_ definition: RepositoryDefinition) throws {
    if definition.paging == .realtime, definition.ordering == .none {
      throw RepositoryError.realtimeNeedsOrder
    }
    let options = String(
      decoding: (try? encoder.encode(definition.options)) ?? Data("{}".utf8), as: UTF8.self)
    try workspace.write("creating a repository") { db in
      let exists = try Bool.fetchOne(
        db, sql: "SELECT 1 FROM repositories WHERE name = ?", arguments: [definition.name])
      if exists == true { throw RepositoryError.exists(definition.name) }
      try db.execute(
        sql: """
          INSERT INTO repositories (name, path, options, ordering, paging, page_limit,
            fetch_state, element_count)
          VALUES (?, ?, ?, ?, ?, ?, ?, 0)
          """,
        arguments: [
          definition.name, definition.path, options, definition.ordering.rawValue,
          definition.paging.rawValue, definition.limit, FetchState.notFetched.rawValue,
        ])
    }
  }

  /// The repository named `name`.
  public func record(_ name: String) throws -> RepositoryRecord {
    let found = try workspace.read { db in
      try Row.fetchOne(db, sql: "SELECT * FROM repositories WHERE name = ?", arguments: [name])
        .map { try self.record($0) }
    }
    guard var record = found else {
      let names = (try? list().map(\.definition.name)) ?? []
      throw RepositoryError.unknown(name, suggestion: Suggestion.nearest(to: name, among: names))
    }
    if inFlight.withLock({ $0.contains(name) }) { record.fetchState = .fetching }
    return record
  }

  /// Every repository, by name.
  public func list() throws -> [RepositoryRecord] {
    try workspace.read { db in
      try Row.fetchAll(db, sql: "SELECT * FROM repositories ORDER BY name").map {
        try self.record($0)
      }
    }
  }

  /// Marks a fetch as in flight; false when one already is (the seed's `fetch` returns false).
  public func begin(_ name: String) -> Bool {
    inFlight.withLock { $0.insert(name).inserted }
  }

  /// Ends a fetch.
  public func end(_ name: String) {
    _ = inFlight.withLock { $0.remove(name) }
  }

  /// Appends a page's model objects in order, skipping duplicates; returns how many were new.
  func append(_ name: String, elements: [(object: ModelObject, json: String)], total: Int) throws
    -> Int
  {
    try workspace.write("storing a repository's page") { db in
      guard
        let count = try Int.fetchOne(
          db, sql: "SELECT element_count FROM repositories WHERE name = ?", arguments: [name])
      else { throw RepositoryError.unknown(name, suggestion: nil) }
      let insert = try db.cachedStatement(
        sql: """
          INSERT OR IGNORE INTO repository_elements
            (repository, position, type, uuid, paging_id, object)
          VALUES (?, ?, ?, ?, ?, ?)
          """)
      var added = 0
      for element in elements {
        try insert.execute(arguments: [
          name, count + added, element.object.type, element.object.uuid,
          element.object.pagingId, element.json,
        ])
        if db.changesCount > 0 { added += 1 }
      }
      // As the original: the cursor is the paging id of the page's last element, kept as the
      // string it came as; nothing here orders by it.
      let last = elements.last?.object.pagingId
      try db.execute(
        sql: """
          UPDATE repositories SET element_count = element_count + ?, total = ?, fetch_state = ?,
            last_error = NULL, last_paging_id = COALESCE(?, last_paging_id),
            first_paging_id = COALESCE(first_paging_id, ?)
          WHERE name = ?
          """,
        arguments: [
          added, total, FetchState.fetched.rawValue, last, elements.first?.object.pagingId, name,
        ])
      return added
    }
  }

  /// Records a failed fetch; the elements stay.
  func fail(_ name: String, error: String) throws {
    try workspace.write("recording a repository's error") { db in
      try db.execute(
        sql: "UPDATE repositories SET fetch_state = ?, last_error = ? WHERE name = ?",
        arguments: [FetchState.error.rawValue, error, name])
    }
  }

  /// Forgets the elements and the cursors; the definition stays.
  public func reset(_ name: String) throws {
    _ = try record(name)
    try workspace.write("resetting a repository") { db in
      try db.execute(
        sql: "DELETE FROM repository_elements WHERE repository = ?", arguments: [name])
      try db.execute(
        sql: """
          UPDATE repositories SET element_count = 0, total = NULL, fetch_state = ?,
            first_paging_id = NULL, last_paging_id = NULL, last_error = NULL WHERE name = ?
          """, arguments: [FetchState.notFetched.rawValue, name])
    }
  }

  /// Deletes the repository and its elements.
  public func drop(_ name: String) throws {
    _ = try record(name)
    try workspace.write("dropping a repository") { db in
      try db.execute(
        sql: "DELETE FROM repository_elements WHERE repository = ?", arguments: [name])
      try db.execute(sql: "DELETE FROM repositories WHERE name = ?", arguments: [name])
    }
  }

  /// The stored JSON of at most `count` elements from position `from`.
  public func elements(_ name: String, from: Int, count: Int) throws -> [(
    position: Int, json: String
  )] {
    _ = try record(name)
    return try workspace.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT position, object FROM repository_elements
          WHERE repository = ? AND position >= ? ORDER BY position LIMIT ?
          """, arguments: [name, from, count]
      ).map {
        try (
          position: $0.stored("position", of: "repository_elements"),
          json: $0.stored("object", of: "repository_elements")
        )
      }
    }
  }

  /// The elements `from ..< from + count` as a DataSourceController: one section whose header
  /// says which elements these are, one detail cell per element (its name, and its paging id
  /// and coordinates or type).
  public func dataSourceController(_ name: String, from: Int, count: Int) throws
    -> DataSourceController
  {
    let record = try self.record(name)
    let rows = try elements(name, from: from, count: count)
    let models: [RowModel] = rows.map { row in
      let object =
        (try? JSONSerialization.jsonObject(with: Data(row.json.utf8))) as? [String: Any] ?? [:]
      let type = object["type"] as? String ?? "Object"
      // As the example app's MapViewController shows a place: its title, then its subtitle.
      let title = object["title"] as? String ?? object["email"] as? String ?? type
      var detail = "#\(row.position)"
      if let subtitle = object["subtitle"] as? String, !subtitle.isEmpty {
        detail += " · " + subtitle
      }
      if let paging = object["paging_id"] { detail += " · paging_id \(paging)" }
      let display =
        (try? JSONSerialization.data(
          withJSONObject: ["type": type, "name": title, "detail": detail], options: [.sortedKeys]))
        .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
      return .object(type: type, json: display)
    }
    let last = from + rows.count
    let header =
      rows.isEmpty
      ? "\(name): no elements from \(from)"
      : "\(name): elements \(from)–\(last - 1) of \(record.count)"
    let controller = makeDataSourceController([
      Section(sectionData: SectionDataModel(header: header), rows: models)
    ])
    for type in Set(models.map(\.modelType)) {
      controller.register(dataController: DetailCellDataController.self, for: type)
    }
    return controller
  }

  /// A stored repository; a value of another type (a file changed outside archsh) throws.
  private func record(_ row: Row) throws -> RepositoryRecord {
    let table = "repositories"
    let text: String = try row.stored("options", of: table)
    let options = (try? decoder.decode([String: String].self, from: Data(text.utf8))) ?? [:]
    let definition = try RepositoryDefinition(
      name: row.stored("name", of: table), path: row.stored("path", of: table), options: options,
      ordering: RepositoryDefinition.Ordering(rawValue: row.stored("ordering", of: table))
        ?? .none,
      paging: RepositoryDefinition.PagingMode(rawValue: row.stored("paging", of: table))
        ?? .standard,
      limit: row.stored("page_limit", of: table))
    return try RepositoryRecord(
      definition: definition,
      fetchState: FetchState(rawValue: row.stored("fetch_state", of: table)) ?? .notFetched,
      total: row.stored("total", of: table), count: row.storedCount("element_count", of: table),
      firstPagingId: row.stored("first_paging_id", of: table),
      lastPagingId: row.stored("last_paging_id", of: table),
      lastError: row.stored("last_error", of: table))
  }
}

extension RepositoryStore {
  /// Paging ids become text: the original keeps them as strings (`"abc"` in its tests), and an
  /// INTEGER column would turn `"12"` into 12.
  static let textPagingMigration = Migration(identifier: "v9-text-paging-ids") { db in
    try db.execute(
      sql: """
        CREATE TABLE repositories_text (
          name TEXT PRIMARY KEY,
          path TEXT NOT NULL,
          options TEXT NOT NULL,
          ordering TEXT NOT NULL,
          paging TEXT NOT NULL,
          page_limit INTEGER NOT NULL,
          fetch_state TEXT NOT NULL,
          total INTEGER,
          element_count INTEGER NOT NULL,
          first_paging_id TEXT,
          last_paging_id TEXT,
          last_error TEXT
        );
        INSERT INTO repositories_text
          SELECT name, path, options, ordering, paging, page_limit, fetch_state, total,
            element_count, CAST(first_paging_id AS TEXT), CAST(last_paging_id AS TEXT), last_error
          FROM repositories;
        DROP TABLE repositories;
        ALTER TABLE repositories_text RENAME TO repositories;
        CREATE TABLE repository_elements_text (
          repository TEXT NOT NULL,
          position INTEGER NOT NULL,
          type TEXT NOT NULL,
          uuid TEXT NOT NULL,
          paging_id TEXT,
          object TEXT NOT NULL,
          PRIMARY KEY (repository, position)
        ) WITHOUT ROWID;
        INSERT INTO repository_elements_text
          SELECT repository, position, type, uuid, CAST(paging_id AS TEXT), object
          FROM repository_elements;
        DROP TABLE repository_elements;
        ALTER TABLE repository_elements_text RENAME TO repository_elements;
        CREATE UNIQUE INDEX repository_elements_identity
          ON repository_elements (repository, type, uuid);
        """)
  }

  /// The `repositories` and `repository_elements` tables.
  static let migration = Migration(identifier: "v7-repositories") { db in
    try db.execute(
      sql: """
        CREATE TABLE repositories (
          name TEXT PRIMARY KEY,
          path TEXT NOT NULL,
          options TEXT NOT NULL,
          ordering TEXT NOT NULL,
          paging TEXT NOT NULL,
          page_limit INTEGER NOT NULL,
          fetch_state TEXT NOT NULL,
          total INTEGER,
          element_count INTEGER NOT NULL,
          first_paging_id INTEGER,
          last_paging_id INTEGER,
          last_error TEXT
        );
        CREATE TABLE repository_elements (
          repository TEXT NOT NULL,
          position INTEGER NOT NULL,
          type TEXT NOT NULL,
          uuid TEXT NOT NULL,
          paging_id INTEGER,
          object TEXT NOT NULL,
          PRIMARY KEY (repository, position)
        ) WITHOUT ROWID;
        CREATE UNIQUE INDEX repository_elements_identity
          ON repository_elements (repository, type, uuid);
        """)
  }
}
