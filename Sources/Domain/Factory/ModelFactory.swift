import Foundation

/// Decoding and mapping, after BDModules' ModelFactory: the translator that turns products into
/// cell view models, and the parsers that turn files and JSON into models.
public final class ModelFactory: Factory {

  static let productTranslatorComponent = FactoryComponent(
    "productTranslator", factory: "ModelFactory", type: "ProductToProductCellViewModelTranslator",
    .prototype, summary: "turns a product into its cell view model (Lickability's Translator)"
  ) { $0.model.productTranslator() }

  static let acknowParserComponent = FactoryComponent(
    "acknowParser", factory: "ModelFactory", type: "AcknowParser", .prototype,
    summary: "reads a CocoaPods acknowledgements plist (Lickability's Parser)",
    input: "a plist file", obtain: nil)

  static let gameParserComponent = FactoryComponent(
    "gameParser", factory: "ModelFactory", type: "GameParser", .prototype,
    summary: "turns a game's JSON into a Game model (Lickability's Parser)"
  ) { $0.model.gameParser() }

  static let components = [productTranslatorComponent, acknowParserComponent, gameParserComponent]

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

/// JSON encoding and decoding, after BDModules' JSONFactory: one place that says how archsh
/// writes and reads its models.
public final class JSONFactory: Factory {

  static let decoderComponent = FactoryComponent(
    "jsonDecoder", factory: "JSONFactory", type: "JSONDecoder", .prototype,
    summary: "decodes models from their JSON"
  ) { $0.json.decoder() }

  static let encoderComponent = FactoryComponent(
    "jsonEncoder", factory: "JSONFactory", type: "JSONEncoder", .prototype,
    summary: "encodes models as JSON, keys sorted, slashes unescaped"
  ) { $0.json.encoder() }

  static let components = [decoderComponent, encoderComponent]

  /// A new decoder.
  public func decoder() -> JSONDecoder {
    core.prototype(Self.decoderComponent) { JSONDecoder() }
  }

  /// A new encoder: keys sorted and slashes unescaped, as models are cached.
  public func encoder() -> JSONEncoder {
    core.prototype(Self.encoderComponent) {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      return encoder
    }
  }
}
