import Domain
import Foundation
import Plumbing

/// Value and model objects as output: a record of the type and identity, a table of the mapped
/// fields, and the mapping's warnings.
///
/// Shared by `model map`, `client get` and `user me`.
enum ModelRendering {
  /// A mapped object, with the field mappers of its type.
  static func output(_ mapped: MappedObject, type: ModelType) -> Output {
    let object = mapped.object
    var head = [
      Field("type", .string(object.type)),
      Field("kind", .string(object.hasIdentity ? "model object" : "value object")),
    ]
    if let model = object as? ModelObject {
      head.append(Field("uuid", .string(model.uuid)))
      head.append(Field("paging_id", model.pagingId.map { .string($0) } ?? .null))
      head.append(Field("identity", .string("\(model.type) \(model.uuid)")))
    } else {
      head.append(Field("identity", .string("none: equal by dictionary")))
    }
    let rows: [[Value]] = type.mappers.map { mapper in
      [
        .string(mapper.modelKey), .string(mapper.apiKeyPath), .string(mapper.kind.rawValue),
        .bool(mapper.required), value(object[mapper.modelKey] ?? .null),
      ]
    }
    var parts: [Output] = [
      .record(head),
      .table(
        Table(columns: ["model_key", "api_key_path", "kind", "required", "value"], rows: rows)),
    ]
    if !mapped.warnings.isEmpty {
      parts.append(.text(mapped.warnings.map { "warning: \($0)" }.joined(separator: "\n")))
    }
    // JSON carries the object itself: its identity, every mapped field, and the warnings.
    var whole = head.filter { $0.key != "identity" }
    whole.append(Field("fields", .object(object.dictionary.map { Field($0.key, value($0.value)) })))
    whole.append(Field("warnings", .list(mapped.warnings.map { .string($0.description) })))
    return .view(text: TextRenderer(useColor: false).render(.sequence(parts)), data: .object(whole))
  }

  /// A mapped value as an output value: nested objects with their type first.
  static func value(_ mapped: ModelValue) -> Value {
    switch mapped {
    case .null: return .null
    case .json(let json): return JSONRenderer.value(fromJSON: json)
    case .object(let object): return value(of: object)
    case .array(let objects): return .list(objects.map(value(of:)))
    }
  }

  /// An object as an output value: its type, identity, then its fields.
  static func value(of object: ValueObject) -> Value {
    var fields = [Field("type", .string(object.type))]
    if let model = object as? ModelObject { fields.append(Field("uuid", .string(model.uuid))) }
    fields += object.dictionary.map { Field($0.key, value($0.value)) }
    return .object(fields)
  }
}
