import Foundation
import Plumbing

/// Writes JSON values as text, after BDModules' `JSONSerializer`: compact for storage, or
/// pretty-printed (two spaces) for people; members keep their order.
public struct JSONSerializer: Sendable {
  /// Whether to indent.
  public var pretty: Bool

  /// Creates a serializer.
  public init(pretty: Bool = false) { self.pretty = pretty }

  /// The value as JSON text.
  public func string(_ value: JSONValue) -> String {
    var text = ""
    write(value, into: &text, depth: 0)
    return text
  }

  /// A mapped object as JSON: its type, uuid and paging id, then its model keys.
  public func string(_ object: ValueObject) -> String {
    string(Self.json(object))
  }

  /// A mapped object as a JSON value.
  public static func json(_ object: ValueObject) -> JSONValue {
    var members = [JSONMember(key: "type", value: .string(object.type))]
    if let model = object as? ModelObject {
      members.append(JSONMember(key: "uuid", value: .string(model.uuid)))
      members.append(
        JSONMember(key: "pagingId", value: model.pagingId.map { .string($0) } ?? .null))
    }
    for (key, value) in object.dictionary {
      let json: JSONValue
      switch value {
      case .null: json = .null
      case .json(let raw): json = raw
      case .object(let nested): json = Self.json(nested)
      case .array(let nested): json = .array(nested.map(Self.json))
      }
      members.append(JSONMember(key: key, value: json))
    }
    return .object(members)
  }

  private func write(_ value: JSONValue, into text: inout String, depth: Int) {
    switch value {
    case .null: text += "null"
    case .bool(let flag): text += flag ? "true" : "false"
    case .number(let literal): text += literal
    case .string(let string): Self.quote(string, into: &text)
    case .array(let elements):
      guard !elements.isEmpty else {
        text += "[]"
        return
      }
      text += "["
      for (index, element) in elements.enumerated() {
        if index > 0 { text += "," }
        newline(into: &text, depth: depth + 1)
        write(element, into: &text, depth: depth + 1)
      }
      newline(into: &text, depth: depth)
      text += "]"
    case .object(let members):
      guard !members.isEmpty else {
        text += "{}"
        return
      }
      text += "{"
      for (index, member) in members.enumerated() {
        if index > 0 { text += "," }
        newline(into: &text, depth: depth + 1)
        Self.quote(member.key, into: &text)
        text += pretty ? ": " : ":"
        write(member.value, into: &text, depth: depth + 1)
      }
      newline(into: &text, depth: depth)
      text += "}"
    }
  }

  private func newline(into text: inout String, depth: Int) {
    guard pretty else { return }
    text += "\n" + String(repeating: "  ", count: depth)
  }

  /// Appends `string` as a JSON string literal: quotes, backslashes and control characters
  /// escaped as JSONEncoder escapes them (with `withoutEscapingSlashes`), everything else as it is.
  public static func quote(_ string: String, into text: inout String) {
    text += "\""
    // Most strings need no escape: they are appended whole.
    let needsEscape = string.utf8.contains {
      $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\")
    }
    if !needsEscape {
      text += string
      text += "\""
      return
    }
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": text += "\\\""
      case "\\": text += "\\\\"
      case "\n": text += "\\n"
      case "\r": text += "\\r"
      case "\t": text += "\\t"
      case "\u{08}": text += "\\b"
      case "\u{0C}": text += "\\f"
      case let control where control.value < 0x20:
        text += String(format: "\\u%04x", control.value)
      default: text.unicodeScalars.append(scalar)
      }
    }
    text += "\""
  }
}
