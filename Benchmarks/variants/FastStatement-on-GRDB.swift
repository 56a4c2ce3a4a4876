import Foundation
import GRDB
import GRDBSQLite

// The raw-SQLite layer's measurement (docs/performance.md): `FastStatement`'s interface on GRDB's
// own API (StatementArguments, Statement.execute, Row.fetchCursor). Not built; to measure:
//   cp Sources/Domain/Persistence/FastStatement.swift /tmp/FastStatement.swift
//   cp Benchmarks/variants/FastStatement-on-GRDB.swift Sources/Domain/Persistence/FastStatement.swift
//   make release && cp .build-release/release/archsh /tmp/archsh-grdb
//   cp /tmp/FastStatement.swift Sources/Domain/Persistence/ && make release
//   Benchmarks/store.sh /tmp/archsh-grdb 100000 3; Benchmarks/store.sh .build-release/release/archsh 100000 3

/// A statement run through GRDB's arguments, rows and cursors.
final class FastStatement {
  enum HotStatement: Int, CaseIterable {
    case begin, commit, storeLimits, persist, fetchOne
  }

  private let statement: Statement
  private let connection: OpaquePointer?
  private var values: [Int32: DatabaseValue] = [:]
  private var cursor: RowCursor?
  private var row: Row?

  init(_ db: Database, _ sql: String) throws {
    statement = try db.cachedStatement(sql: sql)
    connection = db.sqliteConnection
  }

  init(_ db: Database, _ sql: String, slot: HotStatement, in workspace: Workspace) throws {
    statement = try db.cachedStatement(sql: sql)
    connection = db.sqliteConnection
  }

  func bindKept(_ text: String, in workspace: Workspace) throws { try bind(1, text) }

  func bind(_ index: Int32, _ text: String) throws { values[index] = text.databaseValue }

  func bindInPlace(_ index: Int32, _ bytes: UnsafePointer<UInt8>?, count: Int) throws {
    guard let bytes, count > 0 else { return try bind(index, "") }
    try bind(
      index, String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
  }

  @discardableResult
  func bindingInPlace<T>(text: String, at index: Int32, _ body: () throws -> T) throws -> T {
    defer { finish() }
    try bind(index, text)
    return try body()
  }

  @discardableResult
  func bindingInPlace<T>(blob: Data, at index: Int32, _ body: () throws -> T) throws -> T {
    defer { finish() }
    values[index] = blob.databaseValue
    return try body()
  }

  func bind(_ index: Int32, _ value: Int) { values[index] = value.databaseValue }
  func bind(_ index: Int32, _ value: Double) { values[index] = value.databaseValue }
  func bind(_ index: Int32, _ value: Double?) { values[index] = value?.databaseValue ?? .null }
  func bind(_ index: Int32, _ bytes: some ContiguousBytes) throws {
    values[index] = bytes.withUnsafeBytes { Data($0) }.databaseValue
  }

  var maximumLength: Int {
    guard let connection else { return Int(Int32.max) }
    return Int(sqlite3_limit(connection, SQLITE_LIMIT_LENGTH, -1))
  }

  @discardableResult
  func step() throws -> Bool {
    if cursor == nil {
      let count = values.keys.max() ?? 0
      let arguments = StatementArguments((0..<count).map { values[$0 + 1] ?? .null })
      if statement.isReadonly {
        cursor = try Row.fetchCursor(statement, arguments: arguments)
      } else {
        try statement.execute(arguments: arguments)
        return false
      }
    }
    row = try cursor?.next()
    return row != nil
  }

  func int(_ column: Int32) -> Int { row?[Int(column)] ?? 0 }
  func double(_ column: Int32) -> Double { row?[Int(column)] ?? 0 }
  func isNull(_ column: Int32) -> Bool { row.map { $0.hasNull(atIndex: Int(column)) } ?? true }
  func data(_ column: Int32) -> Data { row?[Int(column)] ?? Data() }
  func text(_ column: Int32) -> String { row?[Int(column)] ?? "" }
  func withBlob<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    let data: Data = row?[Int(column)] ?? Data()
    return try data.withUnsafeBytes { try body($0) }
  }
  func finish() {
    cursor = nil
    row = nil
  }
}
