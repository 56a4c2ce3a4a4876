import Foundation
import Plumbing

/// How one API field becomes one model field, after BDModules' `APIFieldMapper`.
public struct APIFieldMapper: Sendable, Equatable {
  /// How the value is mapped.
  public enum Kind: String, Sendable, Equatable {
    /// As it is (JSON `null` becomes nil).
    case `default` = "Default"
    /// A nested object, mapped by its own type.
    case valueObject = "ValueObject"
    /// An array of nested objects, each mapped by its own type; missing and optional, `[]`.
    case valueArray = "ValueArray"
  }

  /// Where the value is in the API's object; dots walk into nested objects (`coordinate.lat`).
  public let apiKeyPath: String
  /// The key it is kept under in the model.
  public let modelKey: String
  /// Whether a missing value is reported (the object is still built, as in the seed).
  public let required: Bool
  /// How it is mapped.
  public let kind: Kind

  /// Creates a mapper.
  public init(
    _ apiKeyPath: String, _ modelKey: String, required: Bool = false, kind: Kind = .default
  ) {
    self.apiKeyPath = apiKeyPath
    self.modelKey = modelKey
    self.required = required
    self.kind = kind
  }
}

/// A registered type: its name, whether it has an identity, and its field mappers.
public struct ModelType: Sendable, Equatable {
  /// The API's `type`.
  public let name: String
  /// True for a model object (`id` and `paging_id`), false for a value object.
  public let isModel: Bool
  /// The fields, in model order.
  public let mappers: [APIFieldMapper]

  /// Creates a type.
  public init(name: String, isModel: Bool, mappers: [APIFieldMapper]) {
    self.name = name
    self.isModel = isModel
    self.mappers = mappers
  }
}

/// Why a JSON value could not be mapped: one line, with the place inside the value.
public enum ModelError: Error, Equatable, CustomStringConvertible, SubjectError {
  /// The value at `path` is not an object.
  case notAnObject(path: String)
  /// The object at `path` has no string `type`.
  case missingType(path: String)
  /// No mappers are registered for the type.
  case unknownType(String, path: String, suggestion: String?)
  /// The value's type is not the one asked for.
  case typeMismatch(expected: String, found: String, path: String)
  /// A model object without an `id`.
  case missingID(path: String)
  /// An `id` that is empty, or neither a string nor a number.
  case invalidID(String, path: String)
  /// A `paging_id` that is neither a string nor a number.
  case invalidPagingID(path: String)
  /// A ValueObject or ValueArray field holding something else.
  case wrongKind(path: String, expected: String)
  /// A response without the `data` the parser reads.
  case missingData(expected: String)
  /// A collection response without `info.total`.
  case missingInfo

  /// A one-line description.
  public var description: String {
    switch self {
    case .notAnObject(let path): return "\(path): expected an object"
    case .missingType(let path): return "\(path): the object has no 'type'"
    case .unknownType(let type, let path, let suggestion):
      return "\(path): no field mappers are registered for the type '\(type)'"
        + (suggestion.map { " (did you mean '\($0)'?)" } ?? "")
    case .typeMismatch(let expected, let found, let path):
      return "\(path): the object is a '\(found)', not a '\(expected)'"
    case .missingID(let path): return "\(path): a model object needs an 'id'"
    case .invalidID(let id, let path):
      return "\(path).id: \(id) is not an id: expected a non-empty string"
    case .invalidPagingID(let path): return "\(path).paging_id: expected a string or a number"
    case .wrongKind(let path, let expected): return "\(path): expected \(expected)"
    case .missingData(let expected): return "data: the response has no \(expected) under 'data'"
    case .missingInfo: return "info.total: the collection has no 'info' with a whole-number 'total'"
    }
  }

  /// The input the error concerns: the JSON value.
  public var subject: ErrorSubject? { nil }
}

/// Something the mapping reported without failing: a required field that is missing.
public struct MappingWarning: Sendable, Equatable, CustomStringConvertible {
  /// Where, such as `data.email`.
  public let path: String
  /// The model key.
  public let modelKey: String

  /// A one-line description.
  public var description: String { "\(path): required field '\(modelKey)' is missing" }
}

/// The types ModelFactory maps, by name: User, Location, Trip and Profile, as the BDModules
/// example app registers them.
public struct ModelRegistry: Sendable {
  /// The types, in the order they were registered.
  public let types: [ModelType]

  /// A registry of `types`.
  public init(types: [ModelType]) { self.types = types }

  /// The example app's types, field for field as banDedo/BDModules' `HarnessModules/Model`
  /// declares them (`UserAPIMapper`, `LocationAPIMapper`, `TripAPIMapper`), in the order
  /// `ModelFactoryMapper` registers them.
  ///
  /// `Profile` is not among them: in the original it is a protocol (`UserProfile: Profile`) that
  /// `User` adopts, and a Trip's `profile` is mapped from an object whose `type` is `User`.
  public static let bdModules = ModelRegistry(types: [
    ModelType(
      name: "User", isModel: true,
      mappers: [
        APIFieldMapper("first_name", "firstName", required: true),
        APIFieldMapper("last_name", "lastName", required: true),
        APIFieldMapper("email", "email", required: true),
        APIFieldMapper("phone_number", "phoneNumber"),
        APIFieldMapper("cover_image_url", "coverImageURL"),
        APIFieldMapper("profile_image_url", "profileImageURL"),
      ]),
    ModelType(
      name: "Location", isModel: true,
      mappers: [
        APIFieldMapper("title", "title", required: true),
        APIFieldMapper("subtitle", "subtitle", required: true),
        APIFieldMapper("nickname", "nickname"),
        APIFieldMapper("latitude", "latitude", required: true),
        APIFieldMapper("longitude", "longitude", required: true),
        APIFieldMapper("image_url", "imageUrl", required: true),
      ]),
    ModelType(
      name: "Trip", isModel: true,
      mappers: [
        APIFieldMapper("profile", "profile", required: true, kind: .valueObject),
        APIFieldMapper("start_location", "startLocation", required: true, kind: .valueObject),
        APIFieldMapper("end_location", "endLocation", required: true, kind: .valueObject),
      ]),
  ])

  /// The type named `name` (the API's names are matched exactly, then without case).
  public func type(named name: String) -> ModelType? {
    types.first { $0.name == name } ?? types.first { $0.name.lowercased() == name.lowercased() }
  }

  /// Maps an API object into a value or model object by its `type`, collecting warnings.
  ///
  /// `path` names the value in errors and warnings, such as `data` or `data[3]`.
  public func map(_ value: JSONValue, at path: String, warnings: inout [MappingWarning])
    throws(ModelError) -> ValueObject
  {
    guard case .object(let members) = value else { throw .notAnObject(path: path) }
    guard case .string(let typeName)? = Self.member(members, "type") else {
      throw .missingType(path: path)
    }
    guard let type = types.first(where: { $0.name == typeName }) else {
      throw .unknownType(
        typeName, path: path,
        suggestion: Suggestion.nearest(to: typeName, among: types.map(\.name)))
    }
    var dictionary: [(key: String, value: ModelValue)] = []
    dictionary.reserveCapacity(type.mappers.count)
    for mapper in type.mappers {
      let fieldPath = path + "." + mapper.apiKeyPath
      let found = Self.value(members, at: mapper.apiKeyPath)
      let mapped: ModelValue
      switch (found, mapper.kind) {
      case (nil, _), (.null?, _):
        if mapper.required {
          warnings.append(MappingWarning(path: fieldPath, modelKey: mapper.modelKey))
        }
        mapped = mapper.kind == .valueArray && found == nil ? .array([]) : .null
      case (let json?, .default):
        mapped = .json(json)
      case (let json?, .valueObject):
        guard case .object = json else { throw .wrongKind(path: fieldPath, expected: "an object") }
        mapped = .object(try map(json, at: fieldPath, warnings: &warnings))
      case (.array(let elements)?, .valueArray):
        var objects: [ValueObject] = []
        for (index, element) in elements.enumerated() {
          objects.append(try map(element, at: "\(fieldPath)[\(index)]", warnings: &warnings))
        }
        mapped = .array(objects)
      case (_?, .valueArray):
        throw .wrongKind(path: fieldPath, expected: "an array")
      }
      dictionary.append((mapper.modelKey, mapped))
    }
    guard type.isModel else { return ValueObject(type: typeName, dictionary: dictionary) }
    // The original keeps `id` and `paging_id` as strings; a number is taken as its decimal
    // text. Whether an id is a time-sortable UUID is the convention's business ('api lint').
    guard let idValue = Self.member(members, "id") else { throw .missingID(path: path) }
    let id: String
    switch idValue {
    case .string(let text) where !text.isEmpty: id = text
    case .number(let text): id = text
    case .string: throw .invalidID("''", path: path)
    case .null: throw .invalidID("null", path: path)
    case .bool(let flag): throw .invalidID(String(flag), path: path)
    case .array: throw .invalidID("an array", path: path)
    case .object: throw .invalidID("an object", path: path)
    }
    let pagingId: String?
    switch Self.member(members, "paging_id") {
    case nil, .null?: pagingId = nil
    case .string(let text)?: pagingId = text
    case .number(let text)?: pagingId = text
    default: throw .invalidPagingID(path: path)
    }
    return ModelObject(type: typeName, uuid: id, pagingId: pagingId, dictionary: dictionary)
  }

  /// The member named `key` (the last, if repeated).
  static func member(_ members: [JSONMember], _ key: String) -> JSONValue? {
    members.last { $0.key == key }?.value
  }

  /// The value at a dotted key path, or nil when a step is missing or not an object.
  static func value(_ members: [JSONMember], at keyPath: String) -> JSONValue? {
    guard keyPath.contains(".") else { return member(members, keyPath) }
    var current = JSONValue.object(members)
    for step in keyPath.split(separator: ".") {
      guard case .object(let inner) = current, let next = member(inner, String(step)) else {
        return nil
      }
      current = next
    }
    return current
  }
}
