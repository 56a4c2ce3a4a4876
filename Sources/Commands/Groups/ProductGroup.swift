import Domain
import Foundation

/// `product`: ProductUpdater and its Translator, over the API in use and the `productCache` store.
enum ProductGroup {
  static let group = CommandGroup(
    "product", summary: "fetch products over HTTP and cache them (ProductUpdater, Translator)",
    discussion: """
      ProductUpdater (seeds 000 and 001) fetches a product with NetworkController, decodes it, \
      and persists it with PersistenceController in the store productCache, under the URL's \
      absoluteString. The seed uses .productCache, which its own identifier enum lacks; archsh \
      adds it. A failed update writes nothing, so a cached copy survives it.
      A product is named by its id (42), a path (/products/42) or a whole URL. For 'show' and \
      'translate', an id finds the copy cached from the API in use, or else from any server: the \
      embedded API's port changes from run to run, and the key is the whole URL.
      """,
    commands: [update, show, list, translate])

  // MARK: - Completion

  /// Ids of cached products and of the last listing.
  static let productIDs: CompletionProvider = { context in
    var ids = Set(context.session.listedProductIDs)
    if let cache = try? context.session.factory.persistenceController(
      identifier: PersistenceController.Identifier.productCache.rawValue),
      let keys = try? cache.keys(limit: 10_000)
    {
      for key in keys {
        if let id = productID(inKey: key) { ids.insert(id) }
      }
    }
    return ids.sorted().map(String.init).filter { $0.hasPrefix(context.prefix) }
  }

  static let target = Parameter.argument(
    "ID|URL", .text, "a product id, a path such as /products/42, or a URL",
    completion: productIDs)

  // MARK: - Commands

  static let update = Command(
    "update", aliases: ["fetch"],
    summary: "fetch a product from the API and persist it in productCache",
    discussion: """
      ProductUpdater.updateProduct(from:): GET the product, decode it, persist it under the URL. \
      On failure the error says whether a cached copy is kept; it always is.
      """,
    signature: Signature([target]),
    examples: ["product update 42", "product fetch /products/7"]
  ) { invocation in
    let word = invocation.arguments.word("ID|URL") ?? Word("")
    let url = try remoteURL(for: word, session: invocation.session)
    let updater = try invocation.session.productUpdater()
    switch updater.updateProduct(from: url) {
    case .success(let product):
      return .record(fields(product) + [Field("cached_as", .string(url.absoluteString))])
    case .failure(let error):
      let cache = try invocation.session.persistenceController(.productCache)
      let hint: String
      if let bytes = try? cache.byteCount(forKey: url.absoluteString) {
        hint = "the cached copy (\(bytes) bytes) is unchanged"
      } else if let other = try? cachedKeys(for: word, session: invocation.session, cache: cache)
        .first
      {
        hint = "the copy cached as \(other) is unchanged"
      } else {
        hint = "nothing is cached for it"
      }
      throw ShellError("cannot update \(word.text): \(error)", hint: hint, at: word.offset)
    }
  }

  static let show = Command(
    "show", summary: "show a product from the cache only (ProductUpdater.product(from:))",
    signature: Signature([target]),
    examples: ["product show 42"]
  ) { invocation in
    let (product, key) = try cached(invocation)
    return .record(fields(product) + [Field("cached_as", .string(key))])
  }

  static let list = Command(
    "list", summary: "list a page of products from the API, or the cached ones",
    discussion: "Without --cached, GET /products with offset and limit; the page's info follows.",
    signature: Signature([
      .option(
        "offset", .integer(0...Int(Int32.max)), value: "N", "where the page starts", default: "0"),
      .option("limit", .integer(1...1000), value: "N", "how many products", default: "20"),
      .flag("cached", "list the products in productCache instead, without counting as reads"),
    ]),
    examples: [
      "product list --limit 5", "product list --offset 15 --limit 3", "product list --cached",
    ]
  ) { invocation in
    let session = invocation.session
    if invocation.arguments.flag("cached") {
      let cache = try session.persistenceController(.productCache)
      let objects = try StoreGroup.located(nil) { try cache.peekObjects() }
      let rows = objects.map { object -> [Value] in
        let product = try? JSONDecoder().decode(Product.self, from: object.value)
        return [
          product.map { .int($0.id) } ?? .null, .string(product?.name ?? "(not a product)"),
          product.map { .string(price($0)) } ?? .null, .string(object.key),
        ]
      }
      return .table(Table(columns: ["id", "name", "price", "cached_as"], rows: rows))
    }
    let offset = invocation.arguments.int("offset") ?? 0
    let limit = invocation.arguments.int("limit") ?? 20
    let controller = try session.networkController()
    let response = controller.perform(
      NetworkRequest(path: "/products?offset=\(offset)&limit=\(limit)")
    ) { data in try EnvelopeDecoder.envelope([Product].self, from: data) }
    let envelope: APIEnvelope<[Product]>
    switch response.result {
    case .success(let value): envelope = value
    case .failure(let error): throw ShellError("cannot list products: \(error)")
    }
    session.listedProductIDs = envelope.data.map(\.id)
    let table = Table(
      columns: ["id", "name", "family", "price"],
      rows: envelope.data.map {
        [.int($0.id), .string($0.name), .string($0.family), .string(price($0))]
      })
    guard let info = envelope.info else { return .table(table) }
    let range = info.count == 0 ? "none" : "\(info.offset + 1)–\(info.offset + info.count)"
    return .sequence([.table(table), .text("products \(range) of \(info.total)")])
  }

  static let translate = Command(
    "translate", summary: "turn a cached product into its cell view model (Translator)",
    discussion: """
      ProductToProductCellViewModelTranslator.translate(product:), after the seed's \
      TeamToScoreListTableViewCellViewModelTranslator: title, subtitle, formatted price, and a \
      badge for the price tier (Premium from $1,000, Value up to $150).
      """,
    signature: Signature([target]),
    examples: ["product translate 42"]
  ) { invocation in
    let (product, _) = try cached(invocation)
    let model = ProductToProductCellViewModelTranslator().translate(product: product)
    return .record([
      Field("title", .string(model.title)), Field("subtitle", .string(model.subtitle)),
      Field("price", .string(model.formattedPrice)),
      Field("badge", model.badge.map(Value.string) ?? .null),
    ])
  }

  // MARK: - Helpers

  static func fields(_ product: Product) -> [Field] {
    [
      Field("id", .int(product.id)), Field("name", .string(product.name)),
      Field("family", .string(product.family)), Field("price", .string(price(product))),
      Field("details", .string(product.details)),
    ]
  }

  static func price(_ product: Product) -> String {
    ProductToProductCellViewModelTranslator().translate(product: product).formattedPrice
  }

  /// The path a word names: `/products/42` for an id, the path itself, or nil for a whole URL.
  static func productPath(_ word: Word, example: String) throws -> String? {
    let text = word.text
    if text.hasPrefix("http://") || text.hasPrefix("https://") { return nil }
    if let id = Int(text), id >= 0 { return "/products/\(id)" }
    if text.hasPrefix("/") { return text }
    throw ShellError(
      "'\(text)' is not a product id, path or URL", hint: "for example '\(example)'",
      at: word.offset)
  }

  /// The product's URL on the API in use: an id, a path, or a whole URL.
  static func remoteURL(for word: Word, session: Session) throws -> URL {
    let path = try productPath(word, example: "product update 42") ?? word.text
    _ = try session.api()  // a failure to reach the API concerns the line, not the word
    do {
      return try session.apiURL(forPath: path)
    } catch {
      throw error.located(at: word.offset)
    }
  }

  /// The cached product a command names, and its key; never starts the API.
  static func cached(_ invocation: Invocation) throws -> (Product, String) {
    try cached(invocation.session, invocation.arguments.word("ID|URL") ?? Word(""))
  }

  /// The cached product a word names, and its key; never starts the API.
  static func cached(_ session: Session, _ word: Word) throws -> (Product, String) {
    let cache = try session.persistenceController(.productCache)
    let updater = ProductUpdater(
      networkController: NetworkController(
        baseURL: session.knownAPIURL ?? URL(fileURLWithPath: "/"), tracer: session.tracer),
      productPersistenceController: cache, tracer: session.tracer)
    for key in try cachedKeys(for: word, session: session, cache: cache) {
      guard let url = URL(string: key) else { continue }
      let product = try StoreGroup.located(nil) { try updater.product(from: url) }
      if let product { return (product, key) }
    }
    throw ShellError(
      "product \(word.text) is not cached", hint: "fetch it with 'product update \(word.text)'",
      at: word.offset)
  }

  /// The cached keys that hold the product a word names: a URL is its own key; an id or a path
  /// prefers the API in use, then any server's copy.
  static func cachedKeys(for word: Word, session: Session, cache: PersistenceController) throws
    -> [String]
  {
    guard let suffix = try productPath(word, example: "product show 42") else {
      return (try? cache.byteCount(forKey: word.text)) == nil ? [] : [word.text]
    }
    var candidates: [String] = []
    if let base = session.knownAPIURL, let url = NetworkController.url(suffix, relativeTo: base) {
      candidates.append(url.absoluteString)
    }
    let keys = try StoreGroup.located(nil) { try cache.keys() }
    candidates += keys.filter { $0.hasSuffix(suffix) && !candidates.contains($0) }
    let cached = Set(keys)
    return candidates.filter(cached.contains)
  }

  /// The id in a key such as `http://127.0.0.1:8080/products/42`.
  static func productID(inKey key: String) -> Int? {
    guard let range = key.range(of: "/products/", options: .backwards) else { return nil }
    return Int(key[range.upperBound...])
  }
}

/// `issue`: MagazineIssueUpdater, fetching issues and their assets.
enum IssueGroup {
  static let group = CommandGroup(
    "issue", summary: "fetch magazine issues and their assets (MagazineIssueUpdater)",
    discussion: """
      MagazineIssueUpdater (seed 000): updateIssue(from:) and \
      loadAsset(from:inIssueWithIdentifier:). The seed only hands results to its completion; \
      archsh also persists them, the issue in the store 'issues' and each asset in \
      'issueAssets', under their URLs. The demo magazine has issues 1 to 12, each with \
      cover.rgb, article.html and styles.css.
      """,
    commands: [update, asset])

  static let update = Command(
    "update", summary: "fetch an issue and persist it in the store 'issues'",
    signature: Signature([.argument("ID", .integer(1...Int(Int32.max)), "the issue number")]),
    examples: ["issue update 3"]
  ) { invocation in
    let word = invocation.arguments.word("ID") ?? Word("")
    let url = try invocation.session.apiURL(forPath: "/issues/\(word.text)")
    switch try invocation.session.magazineIssueUpdater().updateIssue(from: url) {
    case .success(let issue):
      return .sequence([
        .record([
          Field("id", .int(issue.id)), Field("title", .string(issue.title)),
          Field("published_at", .string(issue.publishedAt)),
          Field("cached_as", .string(url.absoluteString)),
        ]),
        .table(
          Table(
            columns: ["asset", "content_type", "bytes"],
            rows: issue.assets.map { [.string($0.name), .string($0.contentType), .int($0.bytes)] })),
      ])
    case .failure(let error):
      throw ShellError("cannot update issue \(word.text): \(error)", at: word.offset)
    }
  }

  static let asset = Command(
    "asset", summary: "load an issue's asset and persist its bytes in 'issueAssets'",
    signature: Signature([
      .argument("ID", .integer(1...Int(Int32.max)), "the issue number"),
      .argument("NAME", .text, "the asset's file name") { context in
        ["cover.rgb", "article.html", "styles.css"].filter { $0.hasPrefix(context.prefix) }
      },
    ]),
    examples: ["issue asset 3 cover.rgb", "issue asset 3 article.html"]
  ) { invocation in
    let word = invocation.arguments.word("ID") ?? Word("")
    let name = invocation.arguments.word("NAME") ?? Word("")
    let encoded =
      name.text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name.text
    let url = try invocation.session.apiURL(forPath: "/issues/\(word.text)/assets/\(encoded)")
    let result = try invocation.session.magazineIssueUpdater().loadAsset(
      from: url, inIssueWithIdentifier: Int64(word.text) ?? 0)
    switch result {
    case .success(let saved):
      return .record([
        Field("issue", .int(Int(saved.issueIdentifier))), Field("name", .string(name.text)),
        Field("content_type", saved.contentType.map(Value.string) ?? .null),
        Field("bytes", .int(saved.data.count)), Field("cached_as", .string(saved.key)),
        Field("preview", .excerpt(shown: preview(saved), whole: ValueInput.whole(saved.data))),
      ])
    case .failure(let error):
      throw ShellError("cannot load \(name.text) of issue \(word.text): \(error)", at: name.offset)
    }
  }

  /// The first line of a text asset, or the first sixteen bytes of a binary one in hex.
  static func preview(_ saved: SavedAssetResponse) -> String {
    let isText = saved.contentType.map { $0.hasPrefix("text/") || $0.contains("json") } ?? false
    if isText {
      let line =
        String(decoding: saved.data.prefix(200), as: UTF8.self)
        .split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? ""
      return line.count > 60 ? String(line.prefix(59)) + "…" : line
    }
    let hex = saved.data.prefix(16).map { byte in
      (byte < 16 ? "0" : "") + String(byte, radix: 16)
    }
    return hex.joined(separator: " ") + (saved.data.count > 16 ? " …" : "")
  }
}
