/// A product as the demo API serves it.
public struct CatalogProduct: Sendable, Equatable {
  /// The product's id.
  public let id: Int
  /// Its name, such as `iPhone 15 Pro`.
  public let name: String
  /// Its family: iPhones, iPads, Apple TVs or Apple Watches.
  public let family: String
  /// Its price in cents.
  public let priceCents: Int
  /// A line of details.
  public let details: String
}

/// The demo catalog: the DataSourceController example app's families first, then generated products up to the requested size.
///
/// The same size always gives the same catalog.
public struct Catalog: Sendable {
  /// The products, by id.
  public let products: [CatalogProduct]

  /// The example app's products, by family.
  static let seed: [(family: String, items: [(String, Int, String)])] = [
    (
      "iPhones",
      [
        ("iPhone 15 Pro Max", 119_900, "6.7-inch display, A17 Pro, titanium"),
        ("iPhone 15 Pro", 99_900, "6.1-inch display, A17 Pro, titanium"),
        ("iPhone 15", 79_900, "6.1-inch display, A16 Bionic, Dynamic Island"),
        ("iPhone 14", 69_900, "6.1-inch display, A15 Bionic"),
        ("iPhone SE", 42_900, "4.7-inch display, A15 Bionic, Touch ID"),
      ]
    ),
    (
      "iPads",
      [
        ("iPad Pro 13-inch", 129_900, "Ultra Retina XDR, M4"),
        ("iPad Air", 59_900, "11-inch Liquid Retina, M2"),
        ("iPad", 34_900, "10.9-inch Liquid Retina, A14 Bionic"),
        ("iPad mini", 49_900, "8.3-inch Liquid Retina, A17 Pro"),
      ]
    ),
    (
      "Apple TVs",
      [
        ("Apple TV 4K (Wi-Fi + Ethernet)", 14_900, "128 GB, A15 Bionic"),
        ("Apple TV 4K (Wi-Fi)", 12_900, "64 GB, A15 Bionic"),
        ("Apple TV HD", 9_900, "32 GB, A8"),
      ]
    ),
    (
      "Apple Watches",
      [
        ("Apple Watch Ultra 2", 79_900, "49 mm titanium case, GPS + Cellular"),
        ("Apple Watch Series 9", 39_900, "41 mm or 45 mm, S9 SiP"),
        ("Apple Watch SE", 24_900, "40 mm or 44 mm, S8 SiP"),
      ]
    ),
  ]

  /// Builds a catalog of `size` products (at least the example app's fifteen).
  public init(size: Int = 100) {
    var products: [CatalogProduct] = []
    for (family, items) in Self.seed {
      for (name, price, details) in items {
        products.append(
          CatalogProduct(
            id: products.count + 1, name: name, family: family, priceCents: price, details: details)
        )
      }
    }
    // Generated products: a linear congruential sequence keeps prices stable from run to run.
    var state: UInt64 = 42
    while products.count < size {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let family = Self.seed[products.count % Self.seed.count].family
      let id = products.count + 1
      let price = 1_900 + Int((state >> 33) % 150_000)
      products.append(
        CatalogProduct(
          id: id, name: "\(Self.singular(family)) model \(id)", family: family,
          priceCents: price,
          details: "generated product \(id)"))
    }
    self.products = products
  }

  /// One of a family: "Apple Watches" names an "Apple Watch", "iPhones" an "iPhone".
  static func singular(_ family: String) -> String {
    if family.hasSuffix("ches") || family.hasSuffix("shes") { return String(family.dropLast(2)) }
    return String(family.dropLast())
  }

  /// The product with `id`, or nil.
  public func product(id: Int) -> CatalogProduct? {
    guard id >= 1, id <= products.count else { return nil }
    return products[id - 1]
  }
}
