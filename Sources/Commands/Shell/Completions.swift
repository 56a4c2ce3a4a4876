import Domain

/// Completion providers that more than one group offers.
enum Completions {
  /// Ids of cached products and of the last listing.
  static let productIDs: CompletionProvider = { context in
    var ids = Set(context.session.listedProductIDs)
    if let catalog = try? context.session.factory.api.productCatalog() {
      ids.formUnion(catalog.cachedIDs())
    }
    return ids.sorted().map(String.init).filter { $0.hasPrefix(context.prefix) }
  }
}
