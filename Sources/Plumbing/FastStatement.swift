import Foundation
import GRDB
import GRDBSQLite

/// Statements kept in numbered places, for the few that run on every line.
///
/// Finding one in GRDB's cache hashes its SQL text; a place is an array index. Used on the
/// database's queue only.
///
/// They may outlive the connection: GRDB closes a connection it deallocates with
/// `sqlite3_close_v2`, which waits for the last statement to be finalized.
public final class StatementSlots {
  /// Each place's statement, with its SQL.
  var statements: [(sql: String, statement: Statement)?]
  /// The text bound to the first parameter of each kept statement (`FastStatement.bindKept`).
  var firstParameters: [String?]

  /// `count` empty places.
  public init(count: Int) {
    statements = Array(repeating: nil, count: count)
    firstParameters = Array(repeating: nil, count: count)
  }
}

/// SQLite's C API on one of GRDB's cached statements, for the statements that run on every line.
///
/// Binding and stepping the prepared statement directly skips GRDB's `Row` and cursor layer,
/// which is most of what a one-key lookup costs (docs/performance.md measures it). The statement
/// stays GRDB's: it is prepared, cached and finalized by GRDB.
public struct FastStatement {
  @usableFromInline let handle: OpaquePointer
  @usableFromInline let connection: OpaquePointer?
  /// The place the statement is kept in, if it is.
  private let slot: (index: Int, in: StatementSlots)?

  /// Prepares (once) and resets the cached statement for `sql`.
  public init(_ db: Database, _ sql: String) throws {
    self.init(db, try db.cachedStatement(sql: sql), slot: nil)
  }

  /// The statement for `sql`, kept in `slots` at `index`; a place found holding other SQL is
  /// refilled.
  public init(_ db: Database, _ sql: String, slot index: Int, in slots: StatementSlots) throws {
    if let kept = slots.statements[index], kept.sql == sql {
      // Every use of a slot binds all of its statement's parameters: none is cleared first.
      self.init(db, kept.statement, slot: (index, slots), clearingBindings: false)
    } else {
      let statement = try db.cachedStatement(sql: sql)
      slots.statements[index] = (sql, statement)
      slots.firstParameters[index] = nil
      self.init(db, statement, slot: (index, slots))
    }
  }

  private init(
    _ db: Database, _ statement: Statement, slot: (index: Int, in: StatementSlots)?,
    clearingBindings: Bool = true
  ) {
    handle = statement.sqliteStatement
    connection = db.sqliteConnection
    self.slot = slot
    sqlite3_reset(handle)
    if clearingBindings { sqlite3_clear_bindings(handle) }
  }

  /// Binds `text` to the first parameter, unless a kept statement has it bound there already.
  ///
  /// A store's name is the same on every line of a script, and binding text copies it. A kept
  /// statement's SQL is used nowhere else, so nothing else binds or clears its parameters.
  public func bindKept(_ text: String) throws {
    guard let (index, slots) = slot else { return try bind(1, text) }
    if slots.firstParameters[index] == text { return }
    slots.firstParameters[index] = nil
    try bind(1, text)
    slots.firstParameters[index] = text
  }

  @usableFromInline static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  /// Binds text with its UTF-8 length, so a NUL inside it is kept like any other character.
  @inlinable public func bind(_ index: Int32, _ text: String) throws {
    var text = text
    let code = text.withUTF8 { buffer in
      // An empty buffer may have no address; SQLite reads a NULL pointer as NULL, not as ''.
      guard let base = buffer.baseAddress else {
        return sqlite3_bind_text(handle, index, "", 0, Self.transient)
      }
      return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
        sqlite3_bind_text64(
          handle, index, $0, UInt64(buffer.count), Self.transient, UInt8(SQLITE_UTF8))
      }
    }
    try check(code)
  }

  /// Binds the `count` bytes at `bytes` as text without copying them: they must stay where they
  /// are until the statement has been stepped and reset.
  @inlinable
  public func bindInPlace(_ index: Int32, _ bytes: UnsafePointer<UInt8>?, count: Int) throws {
    guard let bytes, count > 0 else {
      return try check(sqlite3_bind_text(handle, index, "", 0, Self.transient))
    }
    let code = bytes.withMemoryRebound(to: CChar.self, capacity: count) {
      sqlite3_bind_text64(handle, index, $0, UInt64(count), nil, UInt8(SQLITE_UTF8))
    }
    try check(code)
  }

  /// Runs `body`, which steps the statement, with `text` bound at `index` where it lies.
  ///
  /// The text is not copied. The statement is reset and the parameter unbound when `body`
  /// returns, so that it never holds a pointer to memory that is gone.
  @discardableResult
  @inlinable
  public func bindingInPlace<T>(text: String, at index: Int32, _ body: () throws -> T) throws
    -> T
  {
    var text = text
    return try text.withUTF8 { characters in
      defer {
        sqlite3_reset(handle)
        sqlite3_bind_null(handle, index)
      }
      try bindInPlace(index, characters.baseAddress, count: characters.count)
      return try body()
    }
  }

  /// Runs `body` with `blob` bound at `index` where it lies, as `bindingInPlace(text:)` binds
  /// text.
  @discardableResult
  @inlinable
  public func bindingInPlace<T>(blob: Data, at index: Int32, _ body: () throws -> T) throws
    -> T
  {
    try blob.withUnsafeBytes { bytes in
      defer {
        sqlite3_reset(handle)
        sqlite3_bind_null(handle, index)
      }
      try bindBlob(index, bytes, destructor: nil)
      return try body()
    }
  }

  /// Binds an integer.
  @inlinable public func bind(_ index: Int32, _ value: Int) {
    sqlite3_bind_int64(handle, index, Int64(value))
  }

  /// Binds a double.
  @inlinable public func bind(_ index: Int32, _ value: Double) {
    sqlite3_bind_double(handle, index, value)
  }

  /// Binds a double, or NULL.
  @inlinable public func bind(_ index: Int32, _ value: Double?) {
    if let value {
      sqlite3_bind_double(handle, index, value)
    } else {
      sqlite3_bind_null(handle, index)
    }
  }

  /// Binds a copy of `bytes` as a blob.
  @inlinable public func bind(_ index: Int32, _ bytes: some ContiguousBytes) throws {
    try bytes.withUnsafeBytes { try bindBlob(index, $0, destructor: Self.transient) }
  }

  /// Binds `bytes` as a blob.
  ///
  /// With `transient` SQLite copies them; with nil they are bound where they lie. Empty bytes
  /// have no address: they are bound as a zero-length blob, not as NULL.
  @usableFromInline func bindBlob(
    _ index: Int32, _ bytes: UnsafeRawBufferPointer, destructor: sqlite3_destructor_type?
  ) throws {
    guard let base = bytes.baseAddress else {
      return try check(sqlite3_bind_zeroblob(handle, index, 0))
    }
    try check(sqlite3_bind_blob64(handle, index, base, UInt64(bytes.count), destructor))
  }

  /// The largest value SQLite stores on this connection, in bytes.
  public var maximumLength: Int {
    guard let connection else { return Int(Int32.max) }
    return Int(sqlite3_limit(connection, SQLITE_LIMIT_LENGTH, -1))
  }

  @usableFromInline func check(_ code: Int32) throws {
    guard code != SQLITE_OK else { return }
    let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "unknown error"
    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
  }

  /// Steps once: true when a row is available, false when the statement is done.
  @discardableResult
  @inlinable public func step() throws -> Bool {
    let code = sqlite3_step(handle)
    switch code {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default:
      let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "unknown error"
      sqlite3_reset(handle)
      throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
    }
  }

  /// The integer in `column` of the current row.
  @inlinable public func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
  /// The double in `column` of the current row.
  @inlinable public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
  /// Whether `column` of the current row is NULL.
  @inlinable public func isNull(_ column: Int32) -> Bool {
    sqlite3_column_type(handle, column) == SQLITE_NULL
  }
  /// A copy of the blob in `column` of the current row.
  @inlinable public func data(_ column: Int32) -> Data {
    let count = Int(sqlite3_column_bytes(handle, column))
    guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return Data() }
    return Data(bytes: bytes, count: count)
  }

  /// The text in `column` of the current row.
  @inlinable public func text(_ column: Int32) -> String {
    guard let bytes = sqlite3_column_text(handle, column) else { return "" }
    let count = Int(sqlite3_column_bytes(handle, column))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
  }

  /// Calls `body` with the blob in `column`, where SQLite holds it: valid until the next step.
  @inlinable public func withBlob<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T)
    rethrows -> T
  {
    let count = Int(sqlite3_column_bytes(handle, column))
    return try body(
      UnsafeRawBufferPointer(start: sqlite3_column_blob(handle, column), count: count))
  }

  /// Finishes the statement so that it holds no read lock.
  public func finish() { sqlite3_reset(handle) }
}
