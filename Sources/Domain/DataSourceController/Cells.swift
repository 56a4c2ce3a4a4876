import Foundation

/// Turns a model into what a cell shows (the seed's `CellDataController`).
///
/// A data controller is tied to a reuse identifier, not to a cell class.
public protocol CellDataController: Sendable {
  /// The reuse identifier of the cells that show it.
  var reuseIdentifier: String { get }
  /// Makes a data controller from a model; a product is translated by `translator`, the data
  /// source's.
  ///
  /// The seed's `populate(with:)` takes the model alone. archsh passes the translator of the
  /// DataSourceController asking, so that the translator, like every object, is built by a
  /// factory and injected, never made by a cell.
  static func populate(
    with model: RowModel, translator: ProductToProductCellViewModelTranslator
  ) -> CellDataController
}

/// A cell that can show a data controller (the seed's `CellView`).
public protocol CellView {
  /// Takes what the cell shows from a data controller.
  mutating func configure(with dataController: CellDataController)
}

/// The example app's basic cell: a title.
public struct BasicCellDataController: CellDataController, Equatable {
  /// `basicCell`.
  public let reuseIdentifier = "basicCell"
  /// The title.
  public let titleText: String

  /// Creates a controller.
  public init(titleText: String) { self.titleText = titleText }

  /// Text becomes the title; a product its name; anything else `Incorrect data type`, as in the
  /// seed's README.
  public static func populate(
    with model: RowModel, translator: ProductToProductCellViewModelTranslator
  ) -> CellDataController {
    switch model {
    case .text(let text): return BasicCellDataController(titleText: text)
    case .product(let product): return BasicCellDataController(titleText: product.name)
    case .object:
      if let title = model.fields["title"] ?? model.fields["name"] {
        return BasicCellDataController(titleText: title)
      }
      return BasicCellDataController(titleText: "Incorrect data type")
    }
  }
}

/// The example app's detail cell: a title and a detail on the right.
public struct DetailCellDataController: CellDataController, Equatable {
  /// `detailCell`.
  public let reuseIdentifier = "detailCell"
  /// The title.
  public let titleText: String
  /// The detail.
  public let detailText: String

  /// Creates a controller.
  public init(titleText: String, detailText: String) {
    self.titleText = titleText
    self.detailText = detailText
  }

  /// A product shows its name and price; an object its `title` (or `name`) and `detail` (or
  /// `subtitle`); text is `Incorrect data type`.
  public static func populate(
    with model: RowModel, translator: ProductToProductCellViewModelTranslator
  ) -> CellDataController {
    switch model {
    case .product(let product):
      return DetailCellDataController(
        titleText: product.name,
        detailText: translator.translate(product: product).formattedPrice)
    case .object:
      let fields = model.fields
      guard let title = fields["title"] ?? fields["name"] else { break }
      return DetailCellDataController(
        titleText: title, detailText: fields["detail"] ?? fields["subtitle"] ?? "")
    case .text: break
    }
    return DetailCellDataController(titleText: "Incorrect data type", detailText: "")
  }
}

/// The example app's full product cell: name, family, price and details.
public struct FullProductDetailsCellDataController: CellDataController, Equatable {
  /// `fullProductDetailsCell`.
  public let reuseIdentifier = "fullProductDetailsCell"
  /// The product's view model, from the Translator.
  public let viewModel: ProductCellViewModel?

  /// A product shows everything; anything else is `Incorrect data type`.
  public static func populate(
    with model: RowModel, translator: ProductToProductCellViewModelTranslator
  ) -> CellDataController {
    guard case .product(let product) = model else {
      return FullProductDetailsCellDataController(viewModel: nil)
    }
    return FullProductDetailsCellDataController(
      viewModel: translator.translate(product: product))
  }
}

/// What an unregistered model shows: `Error: missing model or data controller at [s, r]`.
public struct ErrorCellDataController: CellDataController, Equatable {
  /// `errorCell`.
  public let reuseIdentifier = "errorCell"
  /// Where the model is.
  public let indexPath: IndexPath

  /// The seed's message.
  public var message: String {
    "Error: missing model or data controller at [\(indexPath.section), \(indexPath.row)]"
  }

  /// An error cell has no model to be made from.
  public static func populate(
    with model: RowModel, translator: ProductToProductCellViewModelTranslator
  ) -> CellDataController {
    ErrorCellDataController(indexPath: IndexPath(row: 0, section: 0))
  }
}

/// The cell data controllers the shell can register, by name.
public enum CellControllers {
  /// The names, as `ds register` takes them.
  public static let names = ["BasicCell", "DetailCell", "FullProductDetailsCell"]

  /// The type for a name.
  public static func type(named name: String) -> CellDataController.Type? {
    switch name {
    case "BasicCell": return BasicCellDataController.self
    case "DetailCell": return DetailCellDataController.self
    case "FullProductDetailsCell": return FullProductDetailsCellDataController.self
    default: return nil
    }
  }

  /// The name of a type.
  public static func name(of type: CellDataController.Type) -> String {
    switch type {
    case is BasicCellDataController.Type: return "BasicCell"
    case is DetailCellDataController.Type: return "DetailCell"
    case is FullProductDetailsCellDataController.Type: return "FullProductDetailsCell"
    default: return String(describing: type)
    }
  }

  /// A JSON model whose type names a cell data controller is itself one, and is used directly:
  /// `{"type":"DetailCell","title":"Total","detail":"$3"}`.
  public static func direct(
    _ model: RowModel, translator: ProductToProductCellViewModelTranslator
  ) -> CellDataController? {
    guard case .object(let type, _) = model, let controllerType = Self.type(named: type) else {
      return nil
    }
    return controllerType.populate(with: model, translator: translator)
  }
}

/// A cell drawn as text: the lines its data controller gives it, and its reuse identifier.
public struct TextCellView: CellView, Equatable {
  /// The reuse identifier of the last configuration.
  public private(set) var reuseIdentifier = ""
  /// The text on the left of each line.
  public private(set) var lines: [String] = []
  /// The text on the right of the first line.
  public private(set) var accessory = ""
  /// Whether this is the error cell.
  public private(set) var isError = false

  /// Creates an empty cell.
  public init() {}

  /// Takes the lines from a data controller, as a UITableViewCell subclass would take its labels.
  public mutating func configure(with dataController: CellDataController) {
    reuseIdentifier = dataController.reuseIdentifier
    accessory = ""
    isError = false
    switch dataController {
    case let basic as BasicCellDataController:
      lines = [basic.titleText]
    case let detail as DetailCellDataController:
      lines = [detail.titleText]
      accessory = detail.detailText
    case let full as FullProductDetailsCellDataController:
      if let model = full.viewModel {
        lines = [model.title, model.subtitle]
        accessory = model.formattedPrice + (model.badge.map { " · \($0)" } ?? "")
      } else {
        lines = ["Incorrect data type"]
      }
    case let error as ErrorCellDataController:
      lines = [error.message]
      isError = true
    default:
      lines = [String(describing: dataController)]
    }
  }
}
