import Domain
import Foundation

/// `model`: BDModules' value and model objects, field mappers and ModelFactory.
enum ModelGroup {
  static let group = CommandGroup(
    "model", summary: "map API JSON into value and model objects (ModelFactory, APIFieldMapper)",
    discussion: """
      ModelFactory reads an object's 'type' and maps it with that type's field mappers: each \
      takes the value at apiKeyPath (dots walk into nested objects) and keeps it under modelKey, \
      as it is (Default), as a nested object (ValueObject) or as an array of them (ValueArray). \
      JSON null becomes nil, and a missing optional array []. A missing required field is \
      logged under the tag Model at Error and the object is still built, as in the seed. A \
      model object takes its uuid from 'id' (a UUID) and pagingId from 'paging_id'; two model \
      objects are the same when their type and uuid are, two value objects when their \
      dictionaries are. The seed crashes on a missing or unknown type; archsh says where.
      """,
    commands: [types, map, eq])

  /// `map TYPE`.
  static let typeArgument = Argument("TYPE", .text, "a registered type, such as Location") {
    context in ModelRegistry.bdModules.types.map(\.name).filter { $0.hasPrefix(context.prefix) }
  }
  /// `map JSON`.
  static let jsonArgument = Argument("JSON", .text, "an object, or @FILE").concerning(.value)
  /// `map --json`.
  static let jsonFlag = Flag(
    "json", "print the mapped object as JSON, pretty-printed by JSONFactory's serializer")
  /// `eq B`.
  static let otherArgument = Argument("OTHER", .text, "another object, or @FILE")

  static let types = Command(
    "types", summary: "the registered types and their field mappers", examples: ["model types"]
  ) { invocation in
    .table(
      Table(
        columns: ["type", "kind", "field_mappers"],
        rows: invocation.session.factory.model.registry.types.map { type in
          [
            .string(type.name), .string(type.isModel ? "model object" : "value object"),
            .string(type.mappers.map(describe).joined(separator: ", ")),
          ]
        }))
  }

  static let map = Command(
    "map", summary: "map an object: its fields, warnings, nested objects and identity",
    signature: Signature([typeArgument, jsonArgument, jsonFlag]),
    examples: [
      #"model map Location '{"type":"Location","id":"6955b900-0000-4000-8000-000000000001","paging_id":1,"name":"Home","latitude":51.5,"longitude":-0.1,"address":null}'"#,
      "model map Trip @trip.json", "model map Trip @trip.json --json",
    ]
  ) { invocation in
    let typeWord = try invocation[typeArgument]
    let factory = invocation.session.factory.model
    guard let type = factory.registry.type(named: typeWord.text) else {
      throw ShellError(
        "no field mappers are registered for the type '\(typeWord.text)'",
        hint: ShellError.didYouMean(typeWord.text, among: factory.registry.types.map(\.name))
          ?? "see 'model types'", at: typeWord.offset)
    }
    let word = try invocation[jsonArgument]
    let json = try ValueInput.json(word, what: "the object", paths: invocation.paths).json
    let mapped = try located(word) { try factory.object(from: json, expected: type.name) }
    if invocation[jsonFlag] {
      let object = JSONSerializer.json(mapped.object)
      return .view(
        text: invocation.session.factory.json.serializer().string(object),
        data: JSONRenderer.value(fromJSON: object))
    }
    return ModelRendering.output(mapped, type: type)
  }

  static let eq = Command(
    "eq", summary: "whether two objects are equal, and whether they are the same object",
    signature: Signature([jsonArgument, otherArgument]),
    examples: [
      #"model eq '{"type":"Profile","display_name":"Ada"}' '{"type":"Profile","display_name":"Ada"}'"#
    ]
  ) { invocation in
    let factory = invocation.session.factory.model
    var objects: [ValueObject] = []
    for word in [try invocation[jsonArgument], try invocation[otherArgument]] {
      let json = try ValueInput.json(word, what: "the object", paths: invocation.paths).json
      objects.append(try located(word) { try factory.object(from: json) }.object)
    }
    let (a, b) = (objects[0], objects[1])
    let bothModels = a.hasIdentity && b.hasIdentity
    var fields = [
      Field("equal", .bool(a == b)),
      Field(
        "rule",
        .string(
          bothModels
            ? "model objects: equal when type and uuid are"
            : "value objects: equal when dictionaries are"
        )),
      Field("same_dictionary", .bool(a.dictionaryEquals(b))),
    ]
    if let left = a as? ModelObject, let right = b as? ModelObject {
      fields.append(
        Field("same_identity", .bool(left.type == right.type && left.uuid == right.uuid)))
      fields.append(Field("same_hash", .bool(left.hashValue == right.hashValue)))
    }
    return .record(fields)
  }

  // MARK: - Helpers

  /// A Domain mapping error as a one-line error at the JSON word.
  static func located<T>(_ word: Word, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as ModelError {
      throw ShellError(
        "the object does not map: \(error)", hint: hint(for: error), at: word.offset)
    }
  }

  static func hint(for error: ModelError) -> String? {
    switch error {
    case .unknownType, .missingType: return "'model types' lists the registered types"
    case .invalidID: return "an id is a UUID, such as 6955b900-0000-4000-8000-000000000001"
    default: return nil
    }
  }

  /// A field mapper as `api_key→modelKey (required, ValueObject)`.
  static func describe(_ mapper: APIFieldMapper) -> String {
    var notes: [String] = []
    if mapper.required { notes.append("required") }
    if mapper.kind != .default { notes.append(mapper.kind.rawValue) }
    let arrow =
      mapper.apiKeyPath == mapper.modelKey
      ? mapper.modelKey : "\(mapper.apiKeyPath)→\(mapper.modelKey)"
    return arrow + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))")
  }

}
