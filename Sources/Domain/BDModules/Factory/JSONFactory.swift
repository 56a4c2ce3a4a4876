import Foundation

/// JSON encoding and decoding, after BDModules' JSONFactory: one place that says how archsh
/// writes and reads its models, and the only place that makes a coder.
///
/// BDModules' JSONFactory keeps one JSONSerializer as a lazy var; archsh makes its coders per
/// request (they are cheap, and a Foundation coder's options are mutable), so each object that
/// encodes or decodes is given its own when it is built.
public final class JSONFactory: Factory {
  /// The root that created it.
  public unowned let root: ApplicationFactory

  init(root: ApplicationFactory) { self.root = root }

  static let decoderComponent = ComponentDeclaration<JSONDecoder>(
    "jsonDecoder", of: JSONFactory.self, .prototype, from: .archsh, "decodes models from their JSON"
  ) { $0.json.decoder() }

  static let encoderComponent = ComponentDeclaration<JSONEncoder>(
    "jsonEncoder", of: JSONFactory.self, .prototype, from: .archsh,
    "encodes models as JSON, keys sorted, slashes unescaped"
  ) { $0.json.encoder() }

  static let serializerComponent = ComponentDeclaration<JSONSerializer>(
    "jsonSerializer", of: JSONFactory.self, .prototype, from: .bdModules,
    "writes JSON values and models, members in order; pretty for people (BDModules)"
  ) { $0.json.serializer() }

  static let components = [
    decoderComponent.component, encoderComponent.component, serializerComponent.component,
  ]

  /// A new serializer: pretty-printed for people, or compact for storage.
  public func serializer(pretty: Bool = true) -> JSONSerializer {
    core.prototype(Self.serializerComponent) { JSONSerializer(pretty: pretty) }
  }

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
