import Foundation
import Plumbing

/// A mapped object and what the mapping reported.
public struct MappedObject: Sendable {
  /// The value or model object.
  public let object: ValueObject
  /// The required fields that were missing.
  public let warnings: [MappingWarning]
  /// The JSON it was mapped from, as the API sent it: what the seed's `ValueObject` keeps as its
  /// dictionary, and what is stored when the object is kept (`null` when not known).
  public let json: JSONValue

  /// Creates a mapped object.
  public init(object: ValueObject, warnings: [MappingWarning], json: JSONValue = .null) {
    self.object = object
    self.warnings = warnings
    self.json = json
  }
}

/// A mapped collection: its elements and its `info`.
public struct ModelCollection: Sendable {
  /// The elements, in the order the API gave them.
  public let elements: [ValueObject]
  /// The JSON each element was mapped from.
  public let items: [JSONValue]
  /// `info.offset`, when the API gives it.
  public let offset: Int?
  /// `info.count`, when the API gives it.
  public let count: Int?
  /// `info.total`.
  public let total: Int
  /// The required fields that were missing.
  public let warnings: [MappingWarning]
}
