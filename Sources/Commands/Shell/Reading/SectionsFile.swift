import Domain
import Foundation
import Plumbing

/// A sections file for `ds new --sections` and `ds sections`: a JSON array of sections, each with
/// an optional header and footer and rows that are text or JSON model objects.
///
/// Checked as `model map` checks an object: each field has one kind, and a field that does not
/// fit is named with its place in the file (`$[1].rows[2]`).
enum SectionsFile {
  /// What one section may hold.
  static let fields = ["header", "footer", "rows"]

  /// Sections from a JSON file: `[{"header":..,"footer":..,"rows":[text or object, ...]}]`; a
  /// relative path starts where `paths` say, and product rows are decoded with `decoder`.
  static func read(_ word: Word, paths: RelativePaths, decoder: JSONDecoder) throws -> [Section] {
    let given = word.text.hasPrefix("@") ? String(word.text.dropFirst()) : word.text
    let data = try ValueInput.contents(of: given, at: word, paths: paths)
    let path = paths.shown(given)
    let json = try ValueInput.check(data, file: path, at: word)
    let example = #"for example [{"header":"Fruit","rows":["Apple","Pear"]}]"#
    func problem(_ place: String, _ what: String, hint: String = example) -> ShellError {
      ShellError("'\(path)' at \(place): \(what)", hint: hint, at: word.offset)
    }
    guard case .array(let sections) = json else {
      throw problem("$", "expected an array of sections, found \(kind(of: json))")
    }
    return try sections.enumerated().map { index, section in
      let place = "$[\(index)]"
      guard case .object(let members) = section else {
        throw problem(place, "expected a section object, found \(kind(of: section))")
      }
      var header: String?
      var footer: String?
      var rows: [RowModel] = []
      for member in members {
        let field = "\(place).\(member.key)"
        switch (member.key, member.value) {
        case ("header", .string(let text)): header = text
        case ("footer", .string(let text)): footer = text
        case ("header", .null), ("footer", .null): break
        case ("header", let value), ("footer", let value):
          throw problem(field, "expected text or null, found \(kind(of: value))")
        case ("rows", .array(let items)):
          rows = try items.enumerated().map { row, item in
            try Self.row(item, decoder: decoder) { what in problem("\(field)[\(row)]", what) }
          }
        case ("rows", let value):
          throw problem(field, "expected an array of rows, found \(kind(of: value))")
        default:
          throw problem(
            field, "unknown field",
            hint: "a section has " + fields.map { "'\($0)'" }.joined(separator: ", "))
        }
      }
      let data =
        header == nil && footer == nil ? nil : SectionDataModel(header: header, footer: footer)
      return Section(sectionData: data, rows: rows)
    }
  }

  /// One row: text, or a model object with a `type`.
  private static func row(
    _ item: JSONValue, decoder: JSONDecoder, problem: (String) -> ShellError
  ) throws -> RowModel {
    switch item {
    case .string(let text): return .text(text)
    case .object:
      do {
        let json = try JSONSerialization.data(
          withJSONObject: item.foundationObject(), options: [.sortedKeys])
        return try RowModel.object(
          fromJSON: String(decoding: json, as: UTF8.self), decoder: decoder)
      } catch {
        throw problem(String(describing: error))
      }
    default: throw problem("expected a row (text or a model object), found \(kind(of: item))")
    }
  }

  /// A JSON value's kind, as an error names it.
  private static func kind(of value: JSONValue) -> String {
    switch value {
    case .null: return "null"
    case .bool: return "a boolean"
    case .number: return "a number"
    case .string: return "text"
    case .array: return "an array"
    case .object: return "an object"
    }
  }
}
