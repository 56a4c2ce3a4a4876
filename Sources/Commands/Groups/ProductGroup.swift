import Domain
import Foundation
import Synchronization

/// `product`: ProductUpdater and its Translator, over the API in use and the `productCache` store.
enum ProductGroup {
  static let group = CommandGroup(
    "product", summary: "fetch products over HTTP and cache them (ProductUpdater, Translator)",
    from: [.lickability],
    discussion: """
      ProductUpdater (seeds 000 and 001) fetches a product with NetworkController, decodes it, \
      and persists it with PersistenceController in the store productCache, under the URL's \
      absoluteString. The seed uses .productCache, which its own identifier enum lacks; archsh \
      adds it. A failed update writes nothing, so a cached copy survives it.
      A product is named by its id (42), a path (/products/42) or a whole URL. For 'show' and \
      'translate', an id finds the copy cached from the API in use, or else from any server: the \
      embedded API's port changes from run to run, and the key is the whole URL.
      """,
    commands: [update, show, list, translate],
    hints: hint(for:))

  /// The shell's hints for ProductCatalogError.
  static func hint(for error: Error) -> String? {
    guard let error = error as? ProductCatalogError else { return nil }
    switch error {
    case .notAProductName(_, .fetch): return "for example 'product update 42'"
    case .notAProductName(_, .read): return "for example 'product show 42'"
    case .notCached(let text): return "fetch it with 'product update \(text)'"
    case .invalidURL: return nil
    }
  }
  // MARK: - Parameters

  /// The product a command names: `ID|URL`.
  static let target = Argument(
    "ID|URL", .text, "a product id, a path such as /products/42, or a URL",
    completion: Completions.productIDs)

  /// `product list --offset N`.
  static let offsetOption = Option(
    "offset", .integer(0...Int(Int32.max)), value: "N", "where the page starts", default: "0")
  /// `product list --limit N`.
  static let limitOption = Option(
    "limit", .integer(1...1000), value: "N", "how many products", default: "20")
  /// `update --drop-updater`.
  static let dropUpdaterFlag = Flag(
    "drop-updater",
    "release the ProductUpdater as soon as the request is sent: the completion gets objectDeallocated"
  )
  /// `product list --cached`.
  static let cachedFlag = Flag(
    "cached", "list the products in productCache instead, without counting as reads")

  // MARK: - Commands

  static let update = Command(
    "update", aliases: ["fetch"],
    summary: "fetch a product from the API and persist it in productCache",
    discussion: """
      ProductUpdater.updateProduct(from:): GET the product, decode it, persist it under the URL. \
      On failure the error says whether a cached copy is kept; it always is.
      --drop-updater calls the seed's completion-handler form, updateProduct(from:completion:), \
      and releases the updater as soon as the request is sent, as a screen that goes away \
      while it loads. The closure holds the updater weakly ([weak self]), so when the response \
      arrives there is no updater to persist it: the completion gets Error.objectDeallocated \
      and nothing is stored. A slow answer (net fault GET PATH --delay 1s) makes sure the \
      release comes first.
      """,
    signature: Signature([target, dropUpdaterFlag]),
    examples: [
      "product update 42", "product fetch /products/7", "product update 3 --drop-updater",
    ],
    result: .record(["id", "name", "family", "price", "currency", "details", "cached_as"])
  ) { invocation in
    let word = try invocation[target]
    let api = invocation.session.factory.api
    let catalog = try api.productCatalog()
    let url = try catalog.remoteURL(for: word.text)
    let outcome: Result<Product, any Error>
    if invocation[dropUpdaterFlag] {
      outcome = try updateDroppingUpdater(from: url, api: api)
    } else {
      outcome = try api.productUpdater().updateProduct(from: url)
    }
    switch outcome {
    case .success(let product):
      return .record(
        fields(product, invocation.session) + [Field("cached_as", .string(url.absoluteString))])
    case .failure(let error):
      let cache = try invocation.session.factory.persistenceController(.productCache)
      var hint: String
      if let bytes = try? cache.byteCount(forKey: url.absoluteString) {
        hint = "the cached copy (\(bytes) bytes) is unchanged"
      } else if let other = try? catalog.cachedKeys(for: word.text).first {
        hint = "the copy cached as \(other) is unchanged"
      } else {
        hint = "nothing is cached for it"
      }
      if case ProductUpdater.Error.objectDeallocated = error {
        hint =
          "the closure's [weak self] was nil when the response came, so nothing was persisted; "
          + hint
      }
      throw ShellError("cannot update \(word.text): \(error)", hint: hint, at: word.offset)
    }
  }

  /// Calls the completion-handler form of updateProduct and lets the updater go at once; waits
  /// for the completion and returns what it was given.
  static func updateDroppingUpdater(from url: URL, api: APIFactory) throws -> Result<
    Product, any Error
  > {
    let outcome = Mutex<Result<Product, any Error>?>(nil)
    let completed = DispatchSemaphore(value: 0)
    do {
      let updater = try api.productUpdater()
      updater.updateProduct(from: url, completionQueue: .global()) { result in
        outcome.withLock { $0 = result }
        completed.signal()
      }
    }  // The only strong reference to the updater ends here.
    completed.wait()
    return outcome.withLock { $0 } ?? .failure(ProductUpdater.Error.objectDeallocated)
  }

  static let show = Command(
    "show", summary: "show a product from the cache only (ProductUpdater.product(from:))",
    signature: Signature([target]),
    examples: ["product show 42"],
    result: .record(["id", "name", "family", "price", "currency", "details", "cached_as"])
  ) { invocation in
    let (product, key) = try cached(invocation)
    return .record(fields(product, invocation.session) + [Field("cached_as", .string(key))])
  }

  static let list = Command(
    "list", summary: "list a page of products from the API, or the cached ones",
    discussion: "Without --cached, GET /products with offset and limit; the page's info follows.",
    signature: Signature([offsetOption, limitOption, cachedFlag]),
    examples: [
      "product list --limit 5", "product list --offset 15 --limit 3", "product list --cached",
    ],
    result: .oneOf([
      .rows(["id", "name", "family", "price", "currency"]),
      .sequence([
        .rows(["id", "name", "family", "price", "currency"]),
        .record(["offset", "count", "total"]),
      ]),
      .rows(["id", "name", "price", "currency", "cached_as"]),
    ])
  ) { invocation in
    let session = invocation.session
    if invocation[cachedFlag] {
      let translator = session.factory.model.productTranslator()
      let rows = try session.factory.api.productCatalog().cachedProducts().map {
        key, product -> [Value] in
        [
          product.map { .int($0.id) } ?? .null, .string(product?.name ?? "(not a product)"),
          product.map {
            .amount(
              cents: $0.priceCents, formatted: translator.translate(product: $0).formattedPrice)
          } ?? .null,
          product.map { .string($0.currency) } ?? .null,
          .string(key),
        ]
      }
      return .table(Table(columns: ["id", "name", "price", "currency", "cached_as"], rows: rows))
    }
    let offset = invocation[offsetOption] ?? 0
    let limit = invocation[limitOption] ?? 20
    let controller = try session.factory.api.networkController
    let translator = session.factory.model.productTranslator()
    let decoder = session.factory.json.decoder()
    let response = controller.perform(
      NetworkRequest(path: "/products?offset=\(offset)&limit=\(limit)")
    ) { data in try EnvelopeDecoder.envelope([Product].self, from: data, decoder: decoder) }
    let envelope: APIEnvelope<[Product]>
    switch response.result {
    case .success(let value): envelope = value
    case .failure(let error): throw ShellError("cannot list products: \(error)")
    }
    session.listedProductIDs = envelope.data.map(\.id)
    let table = Table(
      columns: ["id", "name", "family", "price", "currency"],
      rows: envelope.data.map {
        [
          .int($0.id), .string($0.name), .string($0.family),
          .amount(
            cents: $0.priceCents, formatted: translator.translate(product: $0).formattedPrice),
          .string($0.currency),
        ]
      })
    guard let info = envelope.info else { return .table(table) }
    let range = info.count == 0 ? "none" : "\(info.offset + 1)–\(info.offset + info.count)"
    return .sequence([
      .table(table),
      .sentence(
        "products \(range) of \(info.total)",
        [
          Field("offset", .int(info.offset)), Field("count", .int(info.count)),
          Field("total", .int(info.total)),
        ]),
    ])
  }

  static let translate = Command(
    "translate", summary: "turn a cached product into its cell view model (Translator)",
    discussion: """
      ProductToProductCellViewModelTranslator.translate(product:), after the seed's \
      TeamToScoreListTableViewCellViewModelTranslator: title, subtitle, formatted price, and a \
      badge for the price tier (Premium from $1,000, Value up to $150).
      """,
    signature: Signature([target]),
    examples: ["product translate 42"],
    result: .record(["title", "subtitle", "price", "currency", "badge"])
  ) { invocation in
    let (product, _) = try cached(invocation)
    let model = invocation.session.factory.model.productTranslator().translate(product: product)
    return .record([
      Field("title", .string(model.title)), Field("subtitle", .string(model.subtitle)),
      Field("price", .amount(cents: product.priceCents, formatted: model.formattedPrice)),
      Field("currency", .string(product.currency)),
      Field("badge", model.badge.map(Value.string) ?? .null),
    ])
  }

  // MARK: - Helpers

  static func fields(_ product: Product, _ session: Session) -> [Field] {
    let price = session.factory.model.productTranslator().translate(product: product)
      .formattedPrice
    return [
      Field("id", .int(product.id)), Field("name", .string(product.name)),
      Field("family", .string(product.family)),
      Field("price", .amount(cents: product.priceCents, formatted: price)),
      Field("currency", .string(product.currency)),
      Field("details", .string(product.details)),
    ]
  }

  /// The cached product a command names, and its key; never starts the API.
  static func cached(_ invocation: Invocation) throws -> (Product, String) {
    let word = try invocation[target]
    return try invocation.session.factory.api.productCatalog().cached(word.text)
  }
}
