import Domain
import Foundation

/// `model`: BDModules' value and model objects, field mappers and ModelFactory.
enum ModelGroup {
  static let group = CommandGroup(
    "model", summary: "map API JSON into value and model objects (ModelFactory, APIFieldMapper)",
    from: [.bdModules],
    discussion: """
      ModelFactory reads an object's 'type' and maps it with that type's field mappers: each \
      takes the value at apiKeyPath (dots walk into nested objects) and keeps it under modelKey, \
      as it is (Default), as a nested object (ValueObject) or as an array of them (ValueArray). \
      JSON null becomes nil, and a missing optional array []. A missing required field is \
      logged under the tag Model at Error and the object is still built, as in the seed. A \
      model object takes its uuid from 'id' and pagingId from 'paging_id', each kept as the \
      string it came as (a number becomes its decimal text), as the original's String \
      properties keep them; a time-sortable UUID id and a whole-number paging_id are the API \
      convention's text, which 'api lint' checks and names as the text's rule, not a condition \
      of mapping. Two model objects are the same when their type and uuid are, \
      two value objects when their dictionaries are.
      The types are the original example app's (banDedo/BDModules, HarnessModules/Model), field \
      for field: User (first_name, last_name, email required; phone_number, cover_image_url, \
      profile_image_url optional), Location (title, subtitle, latitude, longitude, image_url \
      required; nickname optional) and Trip (profile, start_location, end_location: value \
      objects, required). Profile is a protocol there (UserProfile: Profile), adopted by User: \
      a Trip's profile is an object of type User, and Profile is not a type of its own. Where the \
      seed text and the original disagree (the seed's User shows no id), archsh follows the \
      original.
      'model parse' starts from a whole response, as the seed's default object parser and \
      collection parser do: {"data":{…}} maps one object, {"data":[…],"info":{…}} a collection, \
      which needs only info.total (offset and count are optional and may disagree with the data, \
      as the original accepts; 'api lint' reports it).
      Departures from the original: the original crashes on a missing or unknown type, and \
      archsh says where; an id or paging_id that is a JSON number is taken as its decimal text, \
      where the original would store the number in a String property.
      """,
    commands: [types, map, parse, eq])

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
    "types", summary: "the registered types and their field mappers", examples: ["model types"],
    result: .rows(["type", "kind", "field_mappers"])
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
      #"model map Location '{"type":"Location","id":"abc","paging_id":"1","title":"Polk Street","subtitle":"San Francisco, CA","latitude":37.79,"longitude":-122.42,"image_url":null}'"#,
      "model map Trip @trip.json", "model map Trip @trip.json --json",
    ],
    // With --json, the object serialized as the API would send it: its fields are the model's.
    result: .oneOf([.record(["type", "kind", "uuid", "paging_id", "fields", "warnings"]), .value])
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

  /// `parse RESPONSE`.
  static let responseArgument = Argument(
    "RESPONSE", .text, "a whole response, {\"data\": …}, or @FILE"
  ).concerning(.value)

  static let parse = Command(
    "parse", summary: "parse a whole response with the default object or collection parser",
    discussion: """
      A response whose data is an object goes through the default object parser, and one whose \
      data is an array through the collection parser, which reads info.total (offset and count \
      are optional). Each object is shown as 'model map' shows it; a collection adds its total.
      """,
    signature: Signature([responseArgument]),
    examples: [
      #"model parse '{"code":"OK","data":{"type":"User","id":"123","first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}'"#,
      "model parse @page.json",
    ],
    // An object: its parser, then the model. A collection: its parser and counts, then each
    // element, in one list.
    result: .oneOf([
      .sequence([
        .record(["parser"]),
        .record(["type", "kind", "uuid", "paging_id", "fields", "warnings"]),
      ]),
      .rows([
        "parser", "elements", "total", "offset", "count", "type", "kind", "uuid", "paging_id",
        "fields", "warnings",
      ]),
    ])
  ) { invocation in
    let word = try invocation[responseArgument]
    let json = try ValueInput.json(word, what: "the response", paths: invocation.paths).json
    let factory = invocation.session.factory.model
    guard case .object(let members) = json else {
      throw ShellError(
        "the response is not an object", hint: #"a response looks like {"data": …}"#,
        at: word.offset)
    }
    if case .array? = members.last(where: { $0.key == "data" })?.value {
      let page = try located(word) { try factory.collectionParser(parsed: json) }
      var outputs: [Output] = [
        .record([
          Field("parser", .string("collection")), Field("elements", .int(page.elements.count)),
          Field("total", .int(page.total)),
          Field("offset", page.offset.map { .int($0) } ?? .null),
          Field("count", page.count.map { .int($0) } ?? .null),
        ])
      ]
      for (index, element) in page.elements.enumerated() {
        // Each element keeps its own warnings: those under data[index] (data[1] is not data[10]).
        let place = "data[\(index)]"
        let warnings = page.warnings.filter {
          $0.path == place || $0.path.hasPrefix(place + ".") || $0.path.hasPrefix(place + "[")
        }
        let mapped = MappedObject(object: element, warnings: warnings)
        if let type = factory.registry.type(named: element.type) {
          outputs.append(ModelRendering.output(mapped, type: type))
        }
      }
      return .sequence(outputs)
    }
    let mapped = try located(word) { try factory.objectParser(parsed: json) }
    guard let type = factory.registry.type(named: mapped.object.type) else {
      return .empty
    }
    return .sequence([
      .record([Field("parser", .string("object"))]), ModelRendering.output(mapped, type: type),
    ])
  }

  static let eq = Command(
    "eq", summary: "whether two objects are equal, and whether they are the same object",
    signature: Signature([jsonArgument, otherArgument]),
    examples: [
      #"model eq '{"type":"User","id":"1","email":"a@b.c"}' '{"type":"User","id":"1","email":"x@y.z"}'"#
    ], result: .record(["equal", "rule", "same_dictionary", "same_identity", "same_hash"])
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
    case .invalidID: return "an id is a non-empty string, such as \"123\""
    case .missingInfo: return #"a collection gives its total: "info": {"total": 42}"#
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
