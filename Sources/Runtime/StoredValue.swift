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
    guard hasColumn(column) else { throw mismatch(column, table, found: "nothing", Value.self) }
    let value: DatabaseValue = self[column]
    if let decoded = Value.fromDatabaseValue(value) { return decoded }
    throw mismatch(column, table, found: Self.shown(value), Value.self)
  }

  private func mismatch<Value>(
    _ column: String, _ table: String, found: String, _ type: Value.Type
  ) -> StoredValueError {
    var name: String?
    if count > 0, columnNames.first != column {
      let first: DatabaseValue = self[0]
      if case .string(let text) = first.storage { name = Self.cut(TerminalText.escaped(text)) }
    }
    return StoredValueError(
      table: table, column: column, row: name, found: found, expected: Self.expected(type))
  }

  /// A stored value as an error shows it: escaped, and cut to 40 characters.
  private static func shown(_ value: DatabaseValue) -> String {
    switch value.storage {
    case .null: return "NULL"
    case .int64(let number): return "\(number)"
    case .double(let number): return "\(number)"
    case .string(let text): return "\"\(cut(TerminalText.escaped(text)))\""
    case .blob(let bytes): return "a blob of \(bytes.count) bytes"
    }
  }

  private static func cut(_ text: String) -> String {
    text.count <= 40 ? text : "\(text.prefix(40))… (\(text.count) characters)"
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
