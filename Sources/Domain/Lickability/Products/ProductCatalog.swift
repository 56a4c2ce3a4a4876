import Foundation

/// Why a product cannot be named or found.
public enum ProductCatalogError: Error, Equatable, CustomStringConvertible, SubjectError {
  /// What the name was for: fetching, or reading the cache.
  public enum Use: Sendable, Equatable {
    /// Fetching it from the API.
    case fetch
    /// Reading the cached copy.
    case read
  }

  /// The text is not an id, a path or a URL.
  case notAProductName(String, use: Use)
  /// No copy of the product is cached.
  case notCached(String)
  /// The name does not make a URL on the API in use.
  case invalidURL(String)

  /// A one-line description.
  public var description: String {
    switch self {
    case .notAProductName(let text, _): return "'\(text)' is not a product id, path or URL"
    case .notCached(let text): return "product \(text) is not cached"
    case .invalidURL(let text): return "'\(text)' does not make a URL"
    }
  }

  /// The product as named.
  public var subject: ErrorSubject? {
    switch self {
    case .notAProductName(let text, _), .notCached(let text), .invalidURL(let text):
      return .product(text)
    }
  }
}

/// Names products and finds their cached copies: what the product commands, the data sources
/// and the app's media library share.
///
/// A product is named by its id (42), a path (/products/42) or a whole URL. An id or a path finds
/// the copy cached from the API in use first, then any server's: the embedded API's port changes
/// from run to run, and the cache key is the whole URL. Reading never starts the API.
public final class ProductCatalog {
  private let cache: PersistenceController
  private let decoder: JSONDecoder
  private unowned let api: APIFactory
  private let updaters: () throws -> ProductUpdater

  /// `api` gives the base URL in use; `updaters` makes the updater that fetches a missing product.
  init(
    cache: PersistenceController, decoder: JSONDecoder, api: APIFactory,
    updaters: @escaping () throws -> ProductUpdater
  ) {
    self.cache = cache
    self.decoder = decoder
    self.api = api
    self.updaters = updaters
  }

  /// The path a name gives: `/products/42` for an id, the path itself, or nil for a whole URL.
  public static func path(of text: String, use: ProductCatalogError.Use) throws(ProductCatalogError)
    -> String?
  {
    if text.hasPrefix("http://") || text.hasPrefix("https://") { return nil }
    if let id = Int(text), id >= 0 { return "/products/\(id)" }
    if text.hasPrefix("/") { return text }
    throw .notAProductName(text, use: use)
  }

  /// The id in a key such as `http://127.0.0.1:8080/products/42`.
  public static func productID(inKey key: String) -> Int? {
    guard let range = key.range(of: "/products/", options: .backwards) else { return nil }
    return Int(key[range.upperBound...])
  }

  /// The product's URL on the API in use, starting the embedded API if needed.
  public func remoteURL(for text: String) throws -> URL {
    let path = try Self.path(of: text, use: .fetch) ?? text
    _ = try api.baseURL()  // a failure to reach the API concerns the line, not the name
    do {
      return try api.url(forPath: path)
    } catch {
      throw ProductCatalogError.invalidURL(text)
    }
  }

  /// The cached product a name gives, and its key.
  public func cached(_ text: String) throws -> (product: Product, key: String) {
    for key in try cachedKeys(for: text) {
      guard let url = URL(string: key) else { continue }
      if let product = try ProductUpdater.cachedProduct(from: url, in: cache, decoder: decoder) {
        return (product, key)
      }
    }
    throw ProductCatalogError.notCached(text)
  }

  /// The cached keys that hold the product a name gives: a URL is its own key; an id or a path
  /// prefers the API in use, then any server's copy.
  public func cachedKeys(for text: String) throws -> [String] {
    guard let suffix = try Self.path(of: text, use: .read) else {
      return (try? cache.byteCount(forKey: text)) == nil ? [] : [text]
    }
    var candidates: [String] = []
    if let base = api.knownBaseURL, let url = NetworkController.url(suffix, relativeTo: base) {
      candidates.append(url.absoluteString)
    }
    let keys = try cache.keys()
    candidates += keys.filter { $0.hasSuffix(suffix) && !candidates.contains($0) }
    let cached = Set(keys)
    return candidates.filter(cached.contains)
  }

  /// Every cached entry with its product, nil for a value that is not one; reading does not
  /// count as access.
  public func cachedProducts() throws -> [(key: String, product: Product?)] {
    try cache.peekObjects().map { entry in
      (entry.key, try? decoder.decode(Product.self, from: entry.value))
    }
  }

  /// The ids of the cached products (at most 10,000 keys are read), for completion.
  public func cachedIDs() -> [Int] {
    ((try? cache.keys(limit: 10_000)) ?? []).compactMap(Self.productID(inKey:))
  }

  /// The cached products by id, one each: a copy from the API in use wins over another server's.
  public func cachedByID() throws -> [Int: Product] {
    let preferred = api.knownBaseURL?.absoluteString
    var found: [Int: Product] = [:]
    for (key, product) in try cachedProducts() {
      guard let product, let id = Self.productID(inKey: key),
        found[id] == nil || preferred.map(key.hasPrefix) == true
      else { continue }
      found[id] = product
    }
    return found
  }

  /// The product a name gives, cached or else fetched from the API in use.
  public func product(_ text: String) throws -> Product {
    if let (product, _) = try? cached(text) { return product }
    return try updaters().updateProduct(from: try remoteURL(for: text)).get()
  }
}

/// The app's media items: the catalog's first fifteen products, cached or fetched over HTTP (the
/// example app's, as `ds new --products` lists them).
public final class ProductMediaLibrary: MediaLibrary {
  private let catalogs: () throws -> ProductCatalog
  /// The ids Discover lists.
  public static let discoverIDs = Array(1...15)

  /// `catalogs` makes the catalog each read goes through (APIFactory's).
  init(catalogs: @escaping () throws -> ProductCatalog) { self.catalogs = catalogs }

  /// The cached products in one read, fetching the missing ones.
  public func mediaItems() throws -> [Product] {
    let cached = try catalogs().cachedByID()
    return try Self.discoverIDs.map { id in try cached[id] ?? mediaItem(id: id) }
  }

  /// One media item, cached or fetched.
  public func mediaItem(id: Int) throws -> Product {
    try catalogs().product(String(id))
  }
}
