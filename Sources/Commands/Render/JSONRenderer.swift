import Domain
import Foundation
import Plumbing

/// Renders outputs as JSON: one compact document per command, with keys in a stable order.
///
/// - text: `{"message": "..."}`
/// - record: an object with the record's keys
/// - table: an array of objects keyed by column
/// - tree: the node's fields and `children`, or `{"label": ..., "detail": ..., "children": [...]}`
///   for a node that has none
/// - events: `{"events": [...]}`, each event its fields, or its line when it has none
/// - diagram: `{"format": ..., "diagram": ...}`
/// - several outputs: an array of their documents
public struct JSONRenderer: Sendable {
  /// Creates a renderer.
  public init() {}

  /// The JSON document for `output`, or an empty string for `.empty`.
  public func render(_ output: Output) -> String {
    guard let value = value(of: output) else { return "" }
    var text = ""
    Self.write(value, into: &text)
    return text
  }

  /// The JSON value for `output`, or nil for `.empty`.
  public func value(of output: Output) -> Value? {
    switch output {
    case .empty:
      return nil
    case .text(let text):
      return .object([Field("message", .string(text))])
    case .view(_, let data):
      return data
    case .record(let fields):
      return .object(fields)
    case .table(let table):
      return .list(
        table.rows.map { row in
          .object(zip(table.columns, row).map { Field($0, $1) })
        })
    case .tree(let node):
      return tree(node)
    case .events(let events):
      return .object([
        Field(
          "events",
          .list(events.map { $0.fields.isEmpty ? Value.string($0.text) : .object($0.fields) }))
      ])
    case .diagram(let format, let text):
      return .object([Field("format", .string(format)), Field("diagram", .string(text))])
    case .sequence(let outputs):
      return .list(outputs.compactMap(value(of:)))
    }
  }

  private func tree(_ node: TreeNode) -> Value {
    if !node.fields.isEmpty {
      return .object(node.fields + [Field("children", .list(node.children.map(tree)))])
    }
    var fields = [Field("label", .string(node.label))]
    if let detail = node.detail { fields.append(Field("detail", .string(detail))) }
    fields.append(Field("children", .list(node.children.map(tree))))
    return .object(fields)
  }

  /// A parsed JSON value as an output value: integers that fit stay integers, other numbers become
  /// doubles (or their text, when they do not fit a double).
  public static func value(fromJSON json: JSONValue) -> Value {
    switch json {
    case .null: return .null
    case .bool(let flag): return .bool(flag)
    case .number(let text):
      if let integer = Int(text) { return .int(integer) }
      if let double = Double(text), double.isFinite { return .double(double) }
      return .string(text)
    case .string(let text): return .string(text)
    case .array(let elements): return .list(elements.map { value(fromJSON: $0) })
    case .object(let members):
      return .object(members.map { Field($0.key, value(fromJSON: $0.value)) })
    }
  }

  /// Whether `data` (JSON that parsed) is already what `write` would write of its value.
  ///
  /// It is when it has no whitespace outside strings, no escape, and only integers of at most 18
  /// digits, `-0` aside. Such text can be shown as it came.
  static func isWrittenForm(_ data: Data) -> Bool {
    data.withUnsafeBytes { bytes in
      var inString = false
      var digits = 0
      var previous: UInt8 = 0
      for byte in bytes {
        if inString {
          if byte == UInt8(ascii: "\\") { return false }
          if byte == UInt8(ascii: "\"") { inString = false }
          continue
        }
        switch byte {
        case UInt8(ascii: "\""):
          inString = true
          digits = 0
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
          if previous == UInt8(ascii: "-"), byte == UInt8(ascii: "0") { return false }
          digits += 1
          if digits > 18 { return false }
        case UInt8(ascii: "."), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"),
          UInt8(ascii: "\n"):
          return false
        case UInt8(ascii: "e") where digits > 0, UInt8(ascii: "E") where digits > 0:
          // An exponent; the e of `true` and `false` follows a letter.
          return false
        default:
          digits = 0
        }
        previous = byte
      }
      return true
    }
  }

  /// Appends the JSON text of `value` to `text`.
  public static func write(_ value: Value, into text: inout String) {
    switch value {
    case .string(let string):
      writeString(string, into: &text)
    case .int(let number):
      text += String(number)
    case .double(let number):
      text += number.isFinite ? TextRenderer.formatDouble(number) : "null"
    case .bool(let flag):
      text += flag ? "true" : "false"
    case .null:
      text += "null"
    case .excerpt(_, let whole):
      write(whole, into: &text)
    case .list(let values):
      text += "["
      for (index, element) in values.enumerated() {
        if index > 0 { text += "," }
        write(element, into: &text)
      }
      text += "]"
    case .object(let fields):
      text += "{"
      for (index, field) in fields.enumerated() {
        if index > 0 { text += "," }
        writeString(field.key, into: &text)
        text += ":"
        write(field.value, into: &text)
      }
      text += "}"
    }
  }

  private static func writeString(_ string: String, into text: inout String) {
    JSONSerializer.quote(string, into: &text)
  }

}
