import Foundation
import Plumbing

extension IndexPath {
  /// A row in a section, as UIKit's `IndexPath(row:section:)` makes it.
  public init(row: Int, section: Int) { self.init(indexes: [section, row]) }

  /// The section index.
  public var section: Int { count > 0 ? self[0] : 0 }

  /// The row index.
  public var row: Int { count > 1 ? self[1] : 0 }

  /// `1-3` for section 1, row 3, as notifications print it.
  public var shortDescription: String { "\(section)-\(row)" }
}

/// A row's model object: what the seed keeps as `Any`.
///
/// From the shell, a model is text, a product from the product cache, or a JSON object whose `type`
/// field is its model type.
public enum RowModel: Sendable, Equatable {
  /// A piece of text; its model type is `Text` (the seed's `String`).
  case text(String)
  /// A product; its model type is `Product`.
  indirect case product(Product)
  /// A JSON object; its model type is its `type` field.
  indirect case object(type: String, json: String)

  /// The model type that registrations match, exactly.
  public var modelType: String {
    switch self {
    case .text: return "Text"
    case .product: return "Product"
    case .object(let type, _): return type
    }
  }

  /// A JSON object's string and number fields, for cells that show them.
  public var fields: [String: String] {
    guard case .object(_, let json) = self,
      let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
    else { return [:] }
    var fields: [String: String] = [:]
    for (key, value) in object {
      if let text = value as? String {
        fields[key] = text
      } else if let number = value as? NSNumber {
        fields[key] = number.stringValue
      }
    }
    return fields
  }

  /// Parses a JSON object into a model; its `type` field must be a non-empty string.
  ///
  /// The JSON is checked strictly (RFC 8259), so what Foundation's parser would let through, such
  /// as a trailing comma, is an error here too.
  public static func object(fromJSON json: String, decoder: JSONDecoder) throws -> RowModel {
    let data = Data(json.utf8)
    let parsed: JSONValue
    do {
      parsed = try StrictJSON.parse(data)
    } catch {
      throw DataSourceError.invalidModel("not valid JSON: \(error)")
    }
    guard let object = parsed.foundationObject() as? [String: Any] else {
      throw DataSourceError.invalidModel("not a JSON object: \(json)")
    }
    guard let type = object["type"] as? String, !type.isEmpty else {
      throw DataSourceError.invalidModel("a JSON model needs a string 'type' field: \(json)")
    }
    // A model type is a type's name, and is stored before a line break that ends it: a name with
    // a line break would come back from the workspace split in two.
    guard !type.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    else {
      throw DataSourceError.invalidModel(
        "a JSON model's 'type' is a type name, such as Game, with no line break or other control "
          + "character: \(json)")
    }
    if type == "Product" || type == "product" {
      if let product = try? decoder.decode(Product.self, from: data) {
        return .product(product)
      }
    }
    return .object(type: type, json: json)
  }
}

/// Why a data source operation failed.
public enum DataSourceError: Error, Equatable, CustomStringConvertible, SubjectError {
  /// No data source has that name.
  case unknown(String, suggestion: String?)
  /// A data source of that name exists already.
  case exists(String)
  /// A model could not be made from the input.
  case invalidModel(String)
  /// No cell data controller has that name.
  case unknownCellController(String)
  /// The stored data source could not be read.
  case corrupt(String)
  /// The empty state was tapped, but it has no button, or the list is not empty.
  case noEmptyStateButton
  /// The empty state's button was tapped while the list has rows, so it is not shown.
  case emptyStateNotShown(String, rows: Int)

  /// The input the error concerns.
  public var subject: ErrorSubject? {
    switch self {
    case .unknown(let name, _), .exists(let name): return .dataSource(name)
    case .unknownCellController(let name): return ErrorSubject(.value, name)
    case .emptyStateNotShown(let name, _): return .dataSource(name)
    case .invalidModel, .corrupt, .noEmptyStateButton: return nil
    }
  }

  /// A one-line description.
  public var description: String {
    switch self {
    case .unknown(let name, _): return "no data source named '\(name)'"
    case .exists(let name): return "a data source named '\(name)' exists already"
    case .invalidModel(let detail): return detail
    case .unknownCellController(let name):
      return
        "no cell data controller named '\(name)'; there are \(CellControllers.names.joined(separator: ", "))"
    case .corrupt(let detail): return "the stored data source is damaged: \(detail)"
    case .noEmptyStateButton: return "the empty state has no button to tap"
    case .emptyStateNotShown(let name, let rows):
      return "'\(name)' has \(rows) row\(rows == 1 ? "" : "s"), so its empty state is not shown"
    }
  }
}

/// A section's header and footer (the seed's `SectionDataModelType`).
public protocol SectionDataModelType: Sendable {
  /// The header text.
  var header: String? { get }
  /// The footer text.
  var footer: String? { get }
}

/// The default section data model.
public struct SectionDataModel: SectionDataModelType, Equatable {
  /// The header text.
  public private(set) var header: String?
  /// The footer text.
  public private(set) var footer: String?

  /// Creates section data.
  public init(header: String? = nil, footer: String? = nil) {
    self.header = header
    self.footer = footer
  }
}

/// The controller a table view uses for a section's header and footer titles.
public final class SectionDataController: Sendable {
  /// The header title.
  public let headerTitle: String?
  /// The footer title.
  public let footerTitle: String?

  /// Creates a controller with titles.
  public init(header: String?, footer: String?) {
    headerTitle = header
    footerTitle = footer
  }

  /// Creates a controller from section data.
  public convenience init(_ model: SectionDataModelType) {
    self.init(header: model.header, footer: model.footer)
  }
}

/// A section: its rows and its optional header and footer; a class, as in the seed.
///
/// It is not Sendable: the compiler keeps it where it was made, the thread that runs commands.
public final class Section {
  /// The rows' model objects.
  public var rows: [RowModel]
  /// The header and footer.
  public var sectionData: SectionDataModel?

  /// Creates a section.
  public init(sectionData: SectionDataModel? = nil, rows: [RowModel]) {
    self.sectionData = sectionData
    self.rows = rows
  }

  /// An independent copy.
  public func copy() -> Section { Section(sectionData: sectionData, rows: rows) }

  /// One section per product family, headed by the family and footed by its count (`5 items`),
  /// in the catalog's family order, then other families by name; rows keep the given order.
  public static func byFamily(_ products: [Product], counting noun: String) -> [Section] {
    let order = ["iPhones", "iPads", "Apple TVs", "Apple Watches"]
    let grouped = Dictionary(grouping: products, by: \.family)
    let families =
      order.filter { grouped[$0] != nil } + grouped.keys.filter { !order.contains($0) }.sorted()
    return families.map { family in
      let items = grouped[family] ?? []
      return Section(
        sectionData: SectionDataModel(
          header: family, footer: "\(items.count) \(noun)\(items.count == 1 ? "" : "s")"),
        rows: items.map(RowModel.product))
    }
  }
}
