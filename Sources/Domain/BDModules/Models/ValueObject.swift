import Foundation
import Plumbing

/// A mapped field's value: JSON as it came, a nested value object, or an array of them.
public indirect enum ModelValue: Equatable, Sendable {
  /// A JSON value other than `null` (BDModules keeps these as they are).
  case json(JSONValue)
  /// JSON `null`, or an absent optional field: nil.
  case null
  /// A nested object, mapped by its own type's field mappers.
  case object(ValueObject)
  /// An array of nested objects.
  case array([ValueObject])
}

/// An object with a `type` and no identity, after BDModules' `ValueObject`: two are equal when
/// their dictionaries are equal.
public class ValueObject: Equatable, @unchecked Sendable {
  // @unchecked: only `let`s of Sendable values; unchecked only because the class is not final.
  /// The API's `type`, such as `Location`.
  public let type: String
  /// The mapped fields, by model key, in the order of the type's field mappers.
  public let dictionary: [(key: String, value: ModelValue)]

  /// Creates a value object.
  public init(type: String, dictionary: [(key: String, value: ModelValue)]) {
    self.type = type
    self.dictionary = dictionary
  }

  /// The value under a model key, or nil when the key is not mapped.
  public subscript(key: String) -> ModelValue? {
    dictionary.first { $0.key == key }?.value
  }

  /// Whether this object has an identity (a model object).
  public var hasIdentity: Bool { false }

  /// BDModules' rule: value objects are equal when their dictionaries are (in any order);
  /// model objects when their type and uuid are.
  public static func == (lhs: ValueObject, rhs: ValueObject) -> Bool {
    if let left = lhs as? ModelObject, let right = rhs as? ModelObject {
      return left.type == right.type && left.uuid == right.uuid
    }
    return lhs.dictionaryEquals(rhs)
  }

  /// Whether the two dictionaries hold the same keys and values, in any order.
  public func dictionaryEquals(_ other: ValueObject) -> Bool {
    guard dictionary.count == other.dictionary.count else { return false }
    let sorted = dictionary.sorted { $0.key < $1.key }
    let otherSorted = other.dictionary.sorted { $0.key < $1.key }
    return zip(sorted, otherSorted).allSatisfy { $0.key == $1.key && $0.value == $1.value }
  }
}

/// A value object with an identity, after BDModules' `ModelObject`: `uuid` from `id`, `pagingId`
/// from `paging_id`; two are the same object when their type and uuid are equal, whatever their
/// other fields.
public final class ModelObject: ValueObject, Hashable, @unchecked Sendable {
  // @unchecked: adds only `let`s (`uuid`, `pagingId`); a subclass cannot be checked Sendable.
  /// The object's id: any non-empty string, as in the original (`ModelObject.uuid: String`);
  /// a time-sortable UUID is the convention, which `api lint` checks.
  public let uuid: String
  /// Its position in a collection's paging, when the API gives one: the string it came as (a
  /// number becomes its decimal string), sent back verbatim as `since_id` or `max_id`.
  public let pagingId: String?

  /// Creates a model object.
  public init(
    type: String, uuid: String, pagingId: String?, dictionary: [(key: String, value: ModelValue)]
  ) {
    self.uuid = uuid
    self.pagingId = pagingId
    super.init(type: type, dictionary: dictionary)
  }

  /// True: a model object has an identity.
  public override var hasIdentity: Bool { true }

  /// Hashes the identity: type and uuid.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(type)
    hasher.combine(uuid)
  }
}
