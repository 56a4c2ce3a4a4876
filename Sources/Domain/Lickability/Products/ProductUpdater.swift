import Foundation
import Plumbing

/// Fetches products with NetworkController and persists them with PersistenceController, after
/// Lickability's ProductUpdater (seeds 000 and 001).
///
/// `updateProduct(from:)` fetches the product at a URL, decodes it, and persists it in the
/// `productCache` store under `url.absoluteString`; `product(from:)` reads that copy from disk
/// only. A failed update leaves the cached copy as it was: nothing is written until a product has
/// been decoded.
public final class ProductUpdater: Sendable {
  /// The seed's error, for a completion that outlives its updater.
  public enum Error: Swift.Error, Equatable, CustomStringConvertible {
    /// The updater was deallocated, but must be kept around to complete the operation.
    case objectDeallocated
    /// The cached value under the key is not a product.
    case notAProduct(key: String, detail: String)

    /// A one-line description.
    public var description: String {
      switch self {
      case .objectDeallocated:
        return "objectDeallocated: the ProductUpdater was released before the update finished"
      case .notAProduct(let key, let detail):
        return "the value cached under '\(key)' is not a product: \(detail)"
      }
    }
  }

  private let networkController: NetworkController
  private let productPersistenceController: PersistenceController
  private let coders: ModelCoders
  private let tracer: Tracing

  /// Creates an updater over a network controller and the product cache's persistence controller;
  /// products are decoded and encoded with `decoder` and `encoder` (JSONFactory's).
  public init(
    networkController: NetworkController, productPersistenceController: PersistenceController,
    decoder: JSONDecoder, encoder: JSONEncoder, tracer: Tracing
  ) {
    self.networkController = networkController
    self.productPersistenceController = productPersistenceController
    self.coders = ModelCoders(decoder: decoder, encoder: encoder)
    self.tracer = tracer
  }

  /// Updates the product at `url` from the API and persists it; returns the product or why not.
  public func updateProduct(from url: URL) -> Result<Product, Swift.Error> {
    tracer.withSpan(
      "ProductUpdater", "updateProduct(from:)", attributes: [("url", url.absoluteString)]
    ) { _ in
      let result = Self.fetch(url, network: networkController, coders: coders, tracer: tracer)
        .flatMap {
          Self.persist($0, url: url, persistence: productPersistenceController, coders: coders)
        }
      // The completion closes the flow, after the network and persistence steps; its name is
      // made only while spans are recorded.
      if tracer.isEnabled {
        let completion: String
        switch result {
        case .success(let product): completion = "completion(.success(Product \(product.id)))"
        case .failure(let error): completion = "completion(.failure(\(String(describing: error))))"
        }
        tracer.withSpan("ProductUpdater", completion) { _ in }
      }
      return result
    }
  }

  /// Updates the product at `url` on a background queue, and calls `completion` on
  /// `completionQueue`, as the seed does; `objectDeallocated` when the updater is gone by the time
  /// the response arrives.
  public func updateProduct(
    from url: URL, completionQueue: DispatchQueue,
    completion: @escaping @Sendable (Result<Product, Swift.Error>) -> Void
  ) {
    let network = networkController
    let coders = coders
    let tracer = tracer
    DispatchQueue.global().async { [weak self] in
      let fetched = Self.fetch(url, network: network, coders: coders, tracer: tracer)
      guard let self else {
        completionQueue.async { completion(.failure(Error.objectDeallocated)) }
        return
      }
      let result = fetched.flatMap {
        Self.persist(
          $0, url: url, persistence: self.productPersistenceController, coders: coders)
      }
      completionQueue.async { completion(result) }
    }
  }

  /// Updates the product at `url` with async/await.
  public func updateProduct(from url: URL) async throws -> Product {
    try await offCooperativePool { try self.updateProduct(from: url).get() }
  }

  /// The product cached for `url`, from disk only; nil when none is cached.
  public func product(from url: URL) throws -> Product? {
    try Self.cachedProduct(from: url, in: productPersistenceController, decoder: coders.decoder)
  }

  /// The product cached for `url` in `cache`, decoded with `decoder`; nil when none is cached.
  static func cachedProduct(from url: URL, in cache: PersistenceController, decoder: JSONDecoder)
    throws -> Product?
  {
    let key = url.absoluteString
    let data: Data
    do {
      data = try cache.retrieve(forKey: key)
    } catch PersistenceController.Error.objectNotFound {
      return nil
    }
    do {
      return try decoder.decode(Product.self, from: data)
    } catch let error as DecodingError {
      throw Error.notAProduct(key: key, detail: NetworkController.describe(error).description)
    }
  }

  // MARK: - Private

  /// GETs the product and decodes it: the seed's `networkController.performRequest`.
  private static func fetch(
    _ url: URL, network: NetworkController, coders: ModelCoders, tracer: Tracing
  ) -> Result<Product, Swift.Error> {
    let response = network.perform(NetworkRequest(path: url.absoluteString)) { data in
      try tracer.withSpan("Decoder", "decode Product", attributes: [("bytes", String(data.count))])
      { span in
        let product = try EnvelopeDecoder.payload(Product.self, from: data, decoder: coders.decoder)
        span.setAttribute("id", String(product.id))
        return product
      }
    }
    return response.result.mapError { $0 as Swift.Error }
  }

  /// Persists the product under the URL: the seed's `persist(object:forKey:)`.
  private static func persist(
    _ product: Product, url: URL, persistence: PersistenceController, coders: ModelCoders
  ) -> Result<Product, Swift.Error> {
    Result {
      try persistence.persist(try coders.encoder.encode(product), forKey: url.absoluteString)
      return product
    }
  }
}

/// The coders an updater is built with: the cached form of a model is its own JSON, keys sorted,
/// with the wire's field names (JSONFactory's encoder).
struct ModelCoders: Sendable {
  let decoder: JSONDecoder
  let encoder: JSONEncoder
}

/// Fetches magazine issues and their assets, after Lickability's MagazineIssueUpdater (seed 000).
///
/// archsh persists what it fetches: the issue in the `issues` store and each asset in
/// `issueAssets`, both under their URL.
public final class MagazineIssueUpdater: Sendable {
  private let networkController: NetworkController
  private let issues: PersistenceController
  private let assets: PersistenceController
  private let coders: ModelCoders
  private let tracer: Tracing

  /// Creates an updater; issues are decoded and encoded with `decoder` and `encoder`.
  public init(
    networkController: NetworkController, issuePersistenceController: PersistenceController,
    assetPersistenceController: PersistenceController, decoder: JSONDecoder,
    encoder: JSONEncoder, tracer: Tracing
  ) {
    self.networkController = networkController
    self.issues = issuePersistenceController
    self.assets = assetPersistenceController
    self.coders = ModelCoders(decoder: decoder, encoder: encoder)
    self.tracer = tracer
  }

  /// Updates the issue at `url` from the API and persists it in `issues`.
  public func updateIssue(from url: URL) -> Result<MagazineIssue, Swift.Error> {
    tracer.withSpan(
      "MagazineIssueUpdater", "updateIssue(from:)", attributes: [("url", url.absoluteString)]
    ) { _ in
      let response = networkController.perform(NetworkRequest(path: url.absoluteString)) { data in
        try EnvelopeDecoder.payload(MagazineIssue.self, from: data, decoder: coders.decoder)
      }
      return response.result.mapError { $0 as Swift.Error }.flatMap { issue in
        Result {
          try issues.persist(try coders.encoder.encode(issue), forKey: url.absoluteString)
          return issue
        }
      }
    }
  }

  /// Loads the asset at `url` of the issue `issueIdentifier` and persists its bytes in
  /// `issueAssets`.
  public func loadAsset(from url: URL, inIssueWithIdentifier issueIdentifier: Int64) -> Result<
    SavedAssetResponse, Swift.Error
  > {
    tracer.withSpan(
      "MagazineIssueUpdater", "loadAsset(from:inIssueWithIdentifier:)",
      attributes: [("url", url.absoluteString), ("issue", String(issueIdentifier))]
    ) { _ in
      let response = networkController.perform(NetworkRequest(path: url.absoluteString))
      return response.result.mapError { $0 as Swift.Error }.flatMap { data in
        Result {
          try assets.persist(data, forKey: url.absoluteString)
          return SavedAssetResponse(
            issueIdentifier: issueIdentifier, key: url.absoluteString,
            contentType: response.response?.value(forHTTPHeaderField: "Content-Type"), data: data)
        }
      }
    }
  }
}
