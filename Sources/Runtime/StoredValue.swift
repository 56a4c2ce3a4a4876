import GRDB
import Plumbing

/// A value in the workspace that is not of the type archsh wrote there.
///
/// A NULL, text where a number belongs, a missing column: only a file changed outside archsh
/// holds one, and reading it is an error that names the table, the column and the row, never a
/// crash. The workspace reports it as `WorkspaceError.damaged`.
package struct StoredValueError: Error, Equatable, CustomStringConvertible {
  /// The table read.
  package let table: String
  /// The column that holds the value.
  package let column: String
  /// The row's first column when it names the row (a key, a name), shown escaped; else nil.
  package let row: String?
  /// The value found, shown escaped and cut: `NULL`, `"x"`, `a blob of 3 bytes`, `missing`.
  package let found: String
  /// What archsh keeps there: `text`, `an integer`, `a number`, `bytes`.
  package let expected: String

  /// A table's, a column's or a row's name as an error shows it: escaped, and cut.
  static func shownName(_ name: String) -> String { Row.cut(TerminalText.escaped(name)) }

  /// One line: `entry.created_at of 'k' holds "x", not a number`.
  package var description: String {
    let place = row.map { "\(table).\(column) of '\($0)'" } ?? "\(table).\(column)"
    return "\(place) holds \(found), not \(expected)"
  }
}

extension Row {
  /// The value of `column` as `Value`, where `table` names what was read.
  ///
  /// GRDB's subscript stops the process on a NULL or a value of another type; this throws
  /// `StoredValueError` instead. An optional `Value` reads a NULL as nil.
  package func stored<Value: DatabaseValueConvertible>(
    _ column: String, of table: String, as type: Value.Type = Value.self
  ) throws(StoredValueError) -> Value {
    let expected = Self.expected(Value.self)
    guard hasColumn(column) else { throw mismatch(column, table, found: "nothing", expected) }
    let value: DatabaseValue = self[column]
    if let decoded = Value.fromDatabaseValue(value) { return decoded }
    throw mismatch(column, table, found: Self.shown(value), expected)
  }

  /// The largest count (bytes, reads, tries, elements) archsh reads back: 2^53, far beyond any
  /// it writes, and small enough that adding counts to it cannot overflow.
  package static let countLimit = 1 << 53

  /// The count in `column`, an integer from 0 to `countLimit`: a negative or huge one (a file
  /// changed outside archsh) throws, before arithmetic on it could overflow or a prefix of a
  /// negative length stop the process.
  package func storedCount(_ column: String, of table: String) throws(StoredValueError) -> Int {
    let count: Int = try stored(column, of: table)
    guard (0...Self.countLimit).contains(count) else {
      throw mismatch(column, table, found: "\(count)", "a count from 0 to 2^53")
    }
    return count
  }

  private func mismatch(
    _ column: String, _ table: String, found: String, _ expected: String
  ) -> StoredValueError {
    var name: String?
    if count > 0, columnNames.first != column {
      let first: DatabaseValue = self[0]
      if case .string(let text) = first.storage { name = StoredValueError.shownName(text) }
    }
    return StoredValueError(
      table: table, column: column, row: name, found: found, expected: expected)
  }

  /// A stored value as an error shows it: escaped, and cut to 40 characters.
  private static func shown(_ value: DatabaseValue) -> String {
    switch value.storage {
    case .null: return "NULL"
    case .int64(let number): return "\(number)"
    case .double(let number): return "\(number)"
    case .string(let text): return "\"\(StoredValueError.shownName(text))\""
    case .blob(let bytes): return "a blob of \(bytes.count) byte\(bytes.count == 1 ? "" : "s")"
    }
  }

  /// `text` cut to 40 scalars: a character may hold any number of combining scalars.
  static func cut(_ text: String) -> String {
    let scalars = text.unicodeScalars
    guard scalars.count > 40 else { return text }
    return String(String.UnicodeScalarView(scalars.prefix(40))) + "… (\(scalars.count) scalars)"
  }

  private static func expected<Value>(_ type: Value.Type) -> String {
    let name = String(describing: type)
    let base =
      name.hasPrefix("Optional<") ? String(name.dropFirst("Optional<".count).dropLast()) : name
    switch base {
    case "String": return "text"
    case "Int", "Int64", "Int32": return "an integer"
    case "Double": return "a number"
    case "Bool": return "a boolean"
    case "Data": return "bytes"
    default: return base
    }
  }
}
