/// What a product cell shows: the view model a Translator makes from a Product.
public struct ProductCellViewModel: Sendable, Equatable {
  /// The first line: the product's name.
  public var title: String
  /// The second line: its family and details.
  public var subtitle: String
  /// The price, formatted, such as `$1,199.00`.
  public var formattedPrice: String
  /// A badge for the price tier: `Premium` from $1,000, `Value` up to $150, none between.
  public var badge: String?
}

/// Translates `Product` models into `ProductCellViewModel` instances, after Lickability's
/// Translator (seed 000, `TeamToScoreListTableViewCellViewModelTranslator`).
public final class ProductToProductCellViewModelTranslator: Sendable {
  /// Creates a translator.
  public init() {}

  /// Translates a product into its cell's view model.
  public func translate(product: Product) -> ProductCellViewModel {
    let subtitle =
      product.details.isEmpty ? product.family : "\(product.family) · \(product.details)"
    let badge: String?
    switch product.priceCents {
    case 100_000...: badge = "Premium"
    case ...15_000: badge = "Value"
    default: badge = nil
    }
    return ProductCellViewModel(
      title: product.name, subtitle: subtitle,
      formattedPrice: Self.format(cents: product.priceCents, currency: product.currency),
      badge: badge)
  }

  /// `$1,199.00` for US dollars; other currencies put their code after the amount.
  static func format(cents: Int, currency: String) -> String {
    let sign = cents < 0 ? "-" : ""
    let magnitude = cents.magnitude
    var whole = String(magnitude / 100)
    var grouped = ""
    while whole.count > 3 {
      grouped = "," + whole.suffix(3) + grouped
      whole.removeLast(3)
    }
    let fraction = magnitude % 100
    let amount = whole + grouped + "." + (fraction < 10 ? "0" : "") + String(fraction)
    return currency == "USD" ? "\(sign)$\(amount)" : "\(sign)\(amount) \(currency)"
  }
}
