import Foundation

/// A product of the catalog, as the API sends it and the product cache keeps it.
///
/// Field names on the wire are snake_case (BDModules); decoding errors name them as sent, such as
/// `data.price_cents`.
public struct Product: Codable, Sendable, Equatable {
  /// The object type, `product`.
  public var type: String
  /// The product's id.
  public var id: Int
  /// Its name, such as `iPhone 15 Pro`.
  public var name: String
  /// Its family, such as `iPhones`.
  public var family: String
  /// The price in cents.
  public var priceCents: Int
  /// The currency code, such as `USD`.
  public var currency: String
  /// A line of details.
  public var details: String

  /// Creates a product.
  public init(
    id: Int, name: String, family: String, priceCents: Int, currency: String = "USD",
    details: String = ""
  ) {
    self.type = "product"
    self.id = id
    self.name = name
    self.family = family
    self.priceCents = priceCents
    self.currency = currency
    self.details = details
  }

  enum CodingKeys: String, CodingKey {
    case type, id, name, family
    case priceCents = "price_cents"
    case currency, details
  }
}

/// The BDModules response envelope: `{"code":"OK","data":...}`, with `info` for collections.
public struct APIEnvelope<Payload: Decodable & Sendable>: Decodable, Sendable {
  /// `OK`, or the error code.
  public var code: String
  /// The payload.
  public var data: Payload
  /// For a collection: where the page starts, its length, and the total.
  public var info: PageInfo?
}

/// Where a page of a collection sits in the whole.
public struct PageInfo: Decodable, Sendable, Equatable {
  /// The index of the first item.
  public var offset: Int
  /// The items in this page.
  public var count: Int
  /// The items in the whole collection.
  public var total: Int
}

/// Decodes BDModules envelopes with the wire's own field names, for NetworkController's custom
/// deserializer slot.
public enum EnvelopeDecoder {
  /// Decodes the payload of an envelope with `decoder`, naming the field path on failure.
  public static func payload<T: Decodable & Sendable>(
    _ type: T.Type, from data: Data, decoder: JSONDecoder
  ) throws -> T {
    try envelope(type, from: data, decoder: decoder).data
  }

  /// Decodes a whole envelope with `decoder` (JSONFactory's), naming the field path on failure.
  public static func envelope<T: Decodable & Sendable>(
    _ type: T.Type, from data: Data, decoder: JSONDecoder
  ) throws -> APIEnvelope<T> {
    do {
      return try decoder.decode(APIEnvelope<T>.self, from: data)
    } catch let error as DecodingError {
      throw NetworkController.describe(error)
    }
  }
}
