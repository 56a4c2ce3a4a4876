import Domain

/// A structured value inside an output, rendered as text for people and as JSON for programs.
///
/// Only `excerpt`, which holds a value, is indirect: a whole `indirect enum` puts every case in a
/// box of its own on the heap, and a command's output holds many values.
public enum Value: Equatable, Sendable {
  /// Text.
  case string(String)
  /// A whole number; right-aligned in tables.
  case int(Int)
  /// A fractional number.
  case double(Double)
  /// A yes/no value.
  case bool(Bool)
  /// No value; `-` in text, `null` in JSON.
  case null
  /// A list of values.
  case list([Value])
  /// Named values in a stable order.
  case object([Field])
  /// A value cut down for people: text shows `shown`, JSON carries `whole`.
  ///
  /// A table cell can hold the first line of a licence, or a hex preview of binary data; a program
  /// that asks for `--json` gets everything.
  indirect case excerpt(shown: String, whole: Value)
}

/// A named value in a record or object; the order of fields is the order of JSON keys.
public struct Field: Equatable, Sendable {
  /// The name, in snake_case so that it can serve as a JSON key.
  public var key: String
  /// The value.
  public var value: Value

  /// Creates a field.
  public init(_ key: String, _ value: Value) {
    self.key = key
    self.value = value
  }
}

/// A table: named columns and rows of values.
public struct Table: Equatable, Sendable {
  /// Column names, in snake_case; they are the JSON keys of each row.
  public var columns: [String]
  /// Rows, each with one value per column.
  public var rows: [[Value]]

  /// Creates a table.
  public init(columns: [String], rows: [[Value]]) {
    self.columns = columns
    self.rows = rows
  }
}

/// A node in a tree: a label and its children, drawn with box-drawing characters.
public struct TreeNode: Equatable, Sendable {
  /// The node's text.
  public var label: String
  /// Extra text shown dimmed after the label, such as a duration.
  public var detail: String?
  /// The nodes under this one.
  public var children: [TreeNode]
  /// The node's data for programs, such as a coordinator's name, type and screen; JSON prints
  /// these instead of the label when there are any.
  public var fields: [Field]

  /// Creates a node.
  public init(
    _ label: String, detail: String? = nil, children: [TreeNode] = [], fields: [Field] = []
  ) {
    self.label = label
    self.detail = detail
    self.children = children
    self.fields = fields
  }
}

/// What a command returns.
///
/// Commands never print; a renderer turns this into text or JSON. No case is boxed but a tree's
/// (see `Value`).
public enum Output: Equatable, Sendable {
  /// Nothing to show.
  case empty
  /// Free text, printed as it is.
  case text(String)
  /// A view drawn for people, and the whole data behind it for programs: text prints `text`, JSON
  /// prints `data`. A preview of binary data, or a table view's drawing, are such views.
  case view(text: String, data: Value)
  /// Named values, shown as `key: value` lines.
  case record([Field])
  /// Rows under column headers.
  case table(Table)
  /// A tree, such as a coordinator tree or a trace.
  indirect case tree(TreeNode)
  /// Things that happened, such as delegate notifications, shown as `~ event` lines; in JSON,
  /// each is its fields, or its line when it has none.
  case events([EventLine])
  /// A diagram in a text format such as Mermaid.
  case diagram(format: String, text: String)
  /// Several outputs, shown one after another.
  case sequence([Output])
}

extension Output {
  /// A sentence for people, and its fields for programs: text prints the sentence, JSON the
  /// fields.
  static func sentence(_ text: String, _ fields: [Field]) -> Output {
    .view(text: text, data: .object(fields))
  }
}

/// One thing that happened: the line people read, and the fields programs read.
public struct EventLine: Equatable, Sendable {
  /// The line, such as `LoginFlowCoordinator starts with Login`.
  public var text: String
  /// Its fields, such as the component, the action and the subject; empty for a plain line.
  public var fields: [Field]

  /// A line with fields.
  public init(_ text: String, fields: [Field] = []) {
    self.text = text
    self.fields = fields
  }
}

extension Output {
  /// Plain event lines, with no fields.
  static func events(_ lines: [String]) -> Output { .events(lines.map { EventLine($0) }) }

  /// The app's navigation steps: each its component, action and subject.
  static func events(_ records: [NavigationRecord]) -> Output {
    .events(
      records.map { record in
        EventLine(
          record.description,
          fields: [
            Field("component", .string(record.component)),
            Field("action", .string(record.action)),
            Field("subject", record.subject.map(Value.string) ?? .null),
            Field("text", .string(record.text)),
          ])
      })
  }
}

/// `count noun`, with the noun's plural when the count is not one.
func plural(_ count: Int, _ noun: String) -> String {
  "\(count) \(noun)\(count == 1 ? "" : "s")"
}

extension Value {
  /// A duration: people read it as `7.18 ms` or `2.51 s`, JSON carries the milliseconds as a
  /// number, under a key that names the unit (`milliseconds`).
  static func milliseconds(_ milliseconds: Double) -> Value {
    let nanoseconds = UInt64(max(0, milliseconds * 1_000_000))
    return .excerpt(
      shown: TraceRendering.formatDuration(nanoseconds),
      whole: .double((milliseconds * 1000).rounded() / 1000))
  }

  /// An amount of money: people read it formatted (`$1,199.00`), JSON carries the number in the
  /// currency's units (`1199`); the currency goes in a field of its own (`currency`).
  static func amount(cents: Int, formatted: String) -> Value {
    .excerpt(shown: formatted, whole: .double(Double(cents) / 100))
  }
}
