import Foundation
import GRDB
import Plumbing
import Runtime

/// Where presenters get media items: catalog products.
public protocol MediaLibrary: AnyObject {
  /// The media items the Discover screen lists.
  func mediaItems() throws -> [Product]
  /// One media item.
  func mediaItem(id: Int) throws -> Product
}

/// The signed-in user's session, kept in the `user` store (the guide keeps it in the keychain).
///
/// The session id is a secret: it is stored, never shown or traced.
public final class SessionStore {
  private let store: PersistenceController
  private let makeSessionID: () -> String
  static let idKey = "sessionID"
  static let emailKey = "sessionEmail"

  /// Creates a session store over the `user` store; `makeSessionID` makes the id of a new login.
  public init(
    store: PersistenceController,
    makeSessionID: @escaping () -> String = { "sess-" + UUID().uuidString.lowercased() }
  ) {
    self.store = store
    self.makeSessionID = makeSessionID
  }

  /// The stored session's email, `""` when a session id was stored without one, or nil without a
  /// session.
  public func signedInEmail() throws(NavigationError) -> String? {
    let found = try present(store, [Self.idKey, Self.emailKey])
    guard found.contains(where: { $0.key == Self.idKey }) else { return nil }
    return found.first { $0.key == Self.emailKey }.map { String(decoding: $0.value, as: UTF8.self) }
      ?? ""
  }

  /// Stores a new session for `email`.
  public func logIn(email: String) throws(NavigationError) {
    try store(id: makeSessionID(), email: email)
  }

  /// Stores a given session id, as `app start --session ID` does.
  public func store(id: String, email: String?) throws(NavigationError) {
    try storage {
      _ = try store.persist(Data(id.utf8), forKey: Self.idKey)
      if let email { _ = try store.persist(Data(email.utf8), forKey: Self.emailKey) }
    }
    if email == nil { _ = try removePresent([Self.emailKey]) }
  }

  /// Removes the session; returns whether there was one.
  @discardableResult
  public func logOut() throws(NavigationError) -> Bool {
    try removePresent([Self.idKey, Self.emailKey]) > 0
  }

  private func removePresent(_ keys: [String]) throws(NavigationError) -> Int {
    let found = try present(store, keys).map(\.key)
    if !found.isEmpty { try storage { try store.remove(forKeys: found) } }
    return found.count
  }
}

/// The ids of the favourite media items, kept in the `bookmarks` store under `favourites`.
public final class FavouritesStore {
  private let store: PersistenceController
  private let decoder: JSONDecoder
  private let encoder: JSONEncoder
  static let key = "favourites"

  /// Creates a favourites store over the `bookmarks` store, writing the ids with `encoder` and
  /// reading them with `decoder`.
  public init(store: PersistenceController, decoder: JSONDecoder, encoder: JSONEncoder) {
    self.store = store
    self.decoder = decoder
    self.encoder = encoder
  }

  /// The favourite ids, in the order they were added.
  public func ids() throws(NavigationError) -> [Int] {
    let found = try present(store, [Self.key])
    guard let data = found.first?.value else { return [] }
    return (try? decoder.decode([Int].self, from: data)) ?? []
  }

  /// Adds `id` if absent, removes it if present; returns whether it is a favourite now.
  @discardableResult
  public func toggle(_ id: Int) throws(NavigationError) -> Bool {
    var ids = try ids()
    let isFavourite: Bool
    if let index = ids.firstIndex(of: id) {
      ids.remove(at: index)
      isFavourite = false
    } else {
      ids.append(id)
      isFavourite = true
    }
    let data = (try? encoder.encode(ids)) ?? Data("[]".utf8)
    try storage { _ = try store.persist(data, forKey: Self.key) }
    return isFavourite
  }
}

/// What coordinators inject into the presenters they build (the guide's coordinator "encapsulates
/// dependencies").
public final class AppDependencies {
  /// Where presenters and coordinators record what they do.
  public let log: NavigationLog
  /// The catalog's media items.
  public let mediaLibrary: MediaLibrary
  /// The signed-in session.
  public let sessionStore: SessionStore
  /// The favourite media items.
  public let favourites: FavouritesStore
  /// Builds the login flow's coordinator and controllers.
  unowned let entry: EntryFactory
  /// Builds the main flow's coordinators and controllers.
  unowned let main: MainFactory
  /// Builds the root's alert.
  unowned let root: ApplicationFactory

  init(
    log: NavigationLog, mediaLibrary: MediaLibrary, sessionStore: SessionStore,
    favourites: FavouritesStore, entry: EntryFactory, main: MainFactory, root: ApplicationFactory
  ) {
    self.log = log
    self.mediaLibrary = mediaLibrary
    self.sessionStore = sessionStore
    self.favourites = favourites
    self.entry = entry
    self.main = main
    self.root = root
  }
}

/// The app's state as saved in the workspace: the root flow, the selected tab, the alert, and each
/// coordinator's stack, by coordinator name.
public struct AppSnapshot: Codable, Equatable, Sendable {
  /// `login` or `main`.
  public var flow: String
  /// The tab bar's selected tab, in the main flow.
  public var selectedTab: Tab?
  /// The presented alert, such as `Alert(network)`.
  public var alert: String?
  /// Each coordinator's stack, as screen descriptions.
  public var stacks: [String: [String]]

  /// Creates a snapshot.
  public init(flow: String, selectedTab: Tab?, alert: String?, stacks: [String: [String]]) {
    self.flow = flow
    self.selectedTab = selectedTab
    self.alert = alert
    self.stacks = stacks
  }
}

extension AppSnapshot {
  /// The snapshot as JSON: what JSONFactory's encoder (sorted keys, slashes as they are) writes,
  /// written directly.
  public var jsonText: String {
    var text = "{"
    if let alert { text += "\"alert\":" + Self.quoted(alert) + "," }
    text += "\"flow\":" + Self.quoted(flow)
    if let selectedTab { text += ",\"selectedTab\":" + Self.quoted(selectedTab.rawValue) }
    text += ",\"stacks\":{"
    for (index, key) in stacks.keys.sorted().enumerated() {
      if index > 0 { text += "," }
      text += Self.quoted(key) + ":["
      text += (stacks[key] ?? []).map(Self.quoted).joined(separator: ",") + "]"
    }
    return text + "}}"
  }

  /// A JSON string, escaped as JSONEncoder escapes it (`withoutEscapingSlashes`, as JSONFactory's
  /// encoder is made).
  static func quoted(_ value: String) -> String {
    var text = ""
    JSONSerializer.quote(value, into: &text)
    return text
  }
}

/// Saves the app's state in the workspace (table `app_state`, one row) and reads it back.
public final class AppStateStore {
  private let workspace: Workspace
  private let decoder: JSONDecoder
  private let encoder: JSONEncoder
  /// The saved state's text as this process last read or wrote it (nil: none, or not read yet).
  private var lastText: String?
  /// The workspace's `foreignCommits` when `lastText` was last known to be what is saved.
  private var seenForeignCommits: UInt64?

  /// What another archsh process did to the saved state since this one last read or wrote it.
  public enum Change {
    /// Nothing: what this process holds is what is saved.
    case none
    /// It saved another state.
    case replaced(AppSnapshot)
    /// It cleared the state (`app reset`).
    case cleared
  }

  /// Creates a store over the workspace; the state is written with `encoder` (keys sorted) and
  /// read with `decoder`.
  public init(workspace: Workspace, decoder: JSONDecoder, encoder: JSONEncoder) {
    self.workspace = workspace
    self.decoder = decoder
    self.encoder = encoder
  }

  /// The saved state, or nil when there is none.
  public func load() throws(NavigationError) -> AppSnapshot? {
    guard let json = try loadText() else { return nil }
    return try decode(json)
  }

  private func loadText() throws(NavigationError) -> String? {
    let json = try storage {
      try workspace.read { db in
        try String.fetchOne(db, sql: "SELECT snapshot FROM app_state WHERE id = 1")
      }
    }
    lastText = json
    seenForeignCommits = workspace.foreignCommits
    return json
  }

  private func decode(_ json: String) throws(NavigationError) -> AppSnapshot {
    do {
      return try decoder.decode(AppSnapshot.self, from: Data(json.utf8))
    } catch {
      // Where in the saved JSON, and what: a file changed outside archsh, or by a newer one.
      var place = "app_state.snapshot"
      var what = "it is not the JSON archsh saves"
      if let error = error as? DecodingError,
        case .decoding(let path, let detail) = NetworkController.describe(error)
      {
        if !path.isEmpty { place += " at '\(TerminalText.escaped(path))'" }
        if case .dataCorrupted = error { what = "it is not valid JSON" } else { what = detail }
      }
      throw .unreadableState(place: place, problem: what)
    }
  }

  /// Runs `body` holding the workspace's write lock, so that no other archsh process changes the
  /// saved state between this one's reading it and saving what `body` made of it.
  ///
  /// `body` is told what another process did to the state since this one last read or wrote it,
  /// so that it can start from what is saved. Inside an `--atomic` run the lock is held already.
  public func exclusively<T>(_ operation: String, _ body: (Change) throws -> T) throws -> T {
    try workspace.exclusively(operation) {
      var change = Change.none
      if seenForeignCommits != workspace.foreignCommits {
        let known = lastText
        let saved = try loadText()
        if saved != known {
          change =
            try saved.map { json throws(NavigationError) in .replaced(try decode(json)) }
            ?? .cleared
        }
      }
      return try body(change)
    }
  }

  /// What another archsh process did to the saved state since this one last read or wrote it,
  /// looked for without the write lock: a command that only reads shows what is committed.
  public func changeElsewhere() throws -> Change {
    guard seenForeignCommits != (try workspace.lookForForeignCommits()) else { return .none }
    let known = lastText
    let saved = try loadText()
    guard saved != known else { return .none }
    return try saved.map { json throws(NavigationError) in .replaced(try decode(json)) } ?? .cleared
  }

  /// Saves `snapshot`, replacing what was saved.
  ///
  /// This runs after every event. The snapshot is written as `jsonText` (the text JSONEncoder
  /// makes of it with sorted keys), by a cached statement.
  public func save(_ snapshot: AppSnapshot) throws(NavigationError) {
    let json = snapshot.jsonText
    try storage {
      try workspace.write("saving the app state") { db in
        try db.cachedStatement(
          sql: """
            INSERT INTO app_state (id, snapshot, saved_at) VALUES (1, ?, ?)
            ON CONFLICT (id) DO UPDATE SET snapshot = excluded.snapshot, saved_at = excluded.saved_at
            """
        ).execute(arguments: [json, Date().timeIntervalSince1970])
        seenForeignCommits = workspace.foreignCommits
      }
    }
    lastText = json
  }

  /// Deletes the saved state; returns whether there was one.
  @discardableResult
  public func clear() throws(NavigationError) -> Bool {
    let cleared = try storage {
      try workspace.write("clearing the app state") { db in
        try db.execute(sql: "DELETE FROM app_state")
        seenForeignCommits = workspace.foreignCommits
        return db.changesCount > 0
      }
    }
    lastText = nil
    return cleared
  }
}

/// The entries of `keys` that are present, none being an empty answer rather than an error.
func present(_ store: PersistenceController, _ keys: [String]) throws(NavigationError)
  -> [(key: String, value: Data)]
{
  do {
    return try store.retrieveObjects(forKeys: keys)
  } catch PersistenceController.Error.objectNotFound {
    return []
  } catch {
    throw .storage(String(describing: error))
  }
}

/// Runs `body`, turning storage errors into `NavigationError.storage`.
func storage<T>(_ body: () throws -> T) throws(NavigationError) -> T {
  do {
    return try body()
  } catch let error as NavigationError {
    throw error
  } catch {
    throw .storage(String(describing: error))
  }
}

extension AppStateStore {
  /// The `app_state` table.
  ///
  /// The coordinators' state: one row holding the root flow, the selected tab, the alert and
  /// every stack, restored on the next start.
  static let migration = Migration(identifier: "v4-app-state") { db in
    try db.execute(
      sql: """
        CREATE TABLE app_state (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          snapshot TEXT NOT NULL,
          saved_at REAL NOT NULL
        );
        """)
  }
}
