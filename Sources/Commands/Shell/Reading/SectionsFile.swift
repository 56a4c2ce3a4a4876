import Domain
import Foundation

/// A sections file for `ds new --sections` and `ds sections`: a JSON array of sections, each with
/// an optional header and footer and rows that are text or JSON model objects.
enum SectionsFile {
  /// Sections from a JSON file: `[{"header":..,"footer":..,"rows":[text or object, ...]}]`; a
  /// relative path starts where `paths` say, and product rows are decoded with `decoder`.
  static func read(_ word: Word, paths: RelativePaths, decoder: JSONDecoder) throws -> [Section] {
    let given = word.text.hasPrefix("@") ? String(word.text.dropFirst()) : word.text
    let data = try ValueInput.contents(of: given, at: word, paths: paths)
    let path = paths.shown(given)
    let json = try ValueInput.check(data, file: path, at: word)
    guard let array = json.foundationObject() as? [[String: Any]] else {
      throw ShellError(
        "'\(path)' is not a JSON array of sections",
        hint: #"for example [{"header":"Fruit","rows":["Apple","Pear"]}]"#, at: word.offset)
    }
    return try array.enumerated().map { index, object in
      let header = object["header"] as? String
      let footer = object["footer"] as? String
      let rows = try ((object["rows"] as? [Any]) ?? []).map { item -> RowModel in
        if let text = item as? String { return .text(text) }
        guard JSONSerialization.isValidJSONObject(item),
          let json = try? JSONSerialization.data(withJSONObject: item, options: [.sortedKeys])
        else {
          throw ShellError(
            "section \(index) has a row that is neither text nor an object", at: word.offset)
        }
        do {
          return try RowModel.object(
            fromJSON: String(decoding: json, as: UTF8.self), decoder: decoder)
        } catch {
          throw ShellError("section \(index): \(error)", at: word.offset)
        }
      }
      let data =
        header == nil && footer == nil ? nil : SectionDataModel(header: header, footer: footer)
      return Section(sectionData: data, rows: rows)
    }
  }
}
