import Foundation
import Plumbing

/// Decoding and mapping, after BDModules' ModelFactory: the translator that turns products into
/// cell view models, and the parsers that turn files and JSON into models.
public final class ModelFactory: Factory {
  /// The root that created it.
  public unowned let root: ApplicationFactory

  init(root: ApplicationFactory) { self.root = root }

  static let productTranslatorComponent =
    ComponentDeclaration<ProductToProductCellViewModelTranslator>(
      "productTranslator", of: ModelFactory.self, .prototype, from: .lickability,
      "turns a product into its cell view model (Lickability's Translator)"
    ) { $0.model.productTranslator() }

  static let acknowParserComponent = ComponentDeclaration<AcknowParser>(
    "acknowParser", of: ModelFactory.self, .prototype, from: .lickability,
    "reads a CocoaPods acknowledgements plist (Lickability's Parser)", input: "a plist file"
  ) { root in
    try AcknowParser.withSamplePlist { path in try root.model.acknowParser(plistPath: path) }
  }

  static let gameParserComponent = ComponentDeclaration<GameParser>(
    "gameParser", of: ModelFactory.self, .prototype, from: .lickability,
    "turns a game's JSON into a Game model (Lickability's Parser)"
  ) { $0.model.gameParser() }

  static let components = [
    productTranslatorComponent.component, acknowParserComponent.component,
    gameParserComponent.component,
  ]

  /// A new translator.
  public func productTranslator() -> ProductToProductCellViewModelTranslator {
    core.prototype(Self.productTranslatorComponent) { ProductToProductCellViewModelTranslator() }
  }

  /// A new parser over the plist at `plistPath`, traced as the seed's `init(plistPath:)`.
  public func acknowParser(plistPath: String) throws -> AcknowParser {
    try core.prototype(Self.acknowParserComponent) {
      try root.tracer.withSpan(
        "AcknowParser", "init(plistPath:)", attributes: [("path", plistPath)]
      ) { _ in try AcknowParser(plistPath: plistPath) }
    }
  }

  /// A new game parser.
  public func gameParser() -> GameParser {
    core.prototype(Self.gameParserComponent) { GameParser() }
  }
}

extension ModelFactory {
  /// The types this factory maps, with their field mappers (BDModules' example app's).
  public var registry: ModelRegistry { .bdModules }

  /// Maps one API object by its `type`; `expected` also checks the type.
  ///
  /// Missing required fields are logged under the tag `Model` at Error, as the seed's `logError`
  /// does, and returned.
  public func object(from value: JSONValue, expected: String? = nil, at path: String = "$") throws
    -> MappedObject
  {
    if let expected, case .object(let members) = value,
      case .string(let found)? = ModelRegistry.member(members, "type"), found != expected,
      registry.type(named: found)?.name == found
    {
      throw ModelError.typeMismatch(expected: expected, found: found, path: path)
    }
    var warnings: [MappingWarning] = []
    let object = try root.tracer.withSpan("ModelFactory", "map") { span in
      let object = try registry.map(value, at: path, warnings: &warnings)
      span.setAttribute("type", object.type)
      return object
    }
    report(warnings)
    return MappedObject(object: object, warnings: warnings, json: value)
  }

  /// The default object parser: the object under `data`.
  public func objectParser(_ data: Data) throws -> MappedObject {
    try objectParser(parsed: try StrictJSON.parse(data))
  }

  /// The default object parser, on a response already parsed.
  public func objectParser(parsed response: JSONValue) throws -> MappedObject {
    guard case .object(let members) = response,
      let object = ModelRegistry.member(members, "data"), case .object = object
    else { throw ModelError.missingData(expected: "object") }
    return try self.object(from: object, at: "data")
  }

  /// The collection parser: the objects under `data`, and `info.total`, read as the original
  /// Repository reads them.
  ///
  /// Only `info.total` is required. `offset` and `count` are optional, and an `info` that
  /// disagrees with the data is accepted, as the original accepts it; `api lint` reports the
  /// disagreement as a finding.
  public func collectionParser(_ data: Data) throws -> ModelCollection {
    try collectionParser(parsed: try StrictJSON.parse(data))
  }

  /// The collection parser, on a response already parsed.
  public func collectionParser(parsed response: JSONValue) throws -> ModelCollection {
    guard case .object(let members) = response,
      case .array(let items)? = ModelRegistry.member(members, "data")
    else { throw ModelError.missingData(expected: "array") }
    guard case .object(let info)? = ModelRegistry.member(members, "info"),
      let total = Self.integer(info, "total")
    else { throw ModelError.missingInfo }
    let offset = Self.integer(info, "offset")
    let count = Self.integer(info, "count")
    var warnings: [MappingWarning] = []
    var elements: [ValueObject] = []
    elements.reserveCapacity(items.count)
    try root.tracer.withSpan("ModelFactory", "collection") { span in
      for (index, item) in items.enumerated() {
        elements.append(try registry.map(item, at: "data[\(index)]", warnings: &warnings))
      }
      span.setAttribute("count", String(items.count))
    }
    report(warnings)
    return ModelCollection(
      elements: elements, items: items, offset: offset, count: count, total: total,
      warnings: warnings)
  }

  private func report(_ warnings: [MappingWarning]) {
    guard !warnings.isEmpty, let logger = try? root.api.logger(tag: "Model") else { return }
    for warning in warnings { logger.logError(warning.description) }
  }

  static func integer(_ members: [JSONMember], _ key: String) -> Int? {
    guard case .number(let text)? = ModelRegistry.member(members, key) else { return nil }
    return Int(text)
  }
}
