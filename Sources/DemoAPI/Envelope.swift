/// JSON text in the BDModules response convention: `{"code":"OK","data":...}`, collections with
/// `info{offset,count,total}`, errors as `{"code":"...","message":"..."}`; snake_case fields, and
/// every object carries `type` and `id`.
enum Envelope {
  static func product(_ product: CatalogProduct) -> String {
    let price =
      "\(product.priceCents / 100).\(product.priceCents % 100 < 10 ? "0" : "")\(product.priceCents % 100)"
    return """
      {"type":"product","id":\(product.id),"name":\(quote(product.name)),"family":\(quote(product.family)),\
      "price":\(price),"price_cents":\(product.priceCents),"currency":"USD","details":\(quote(product.details))}
      """
  }

  static func issue(_ issue: MagazineIssueRecord) -> String {
    let assets = issue.assets.map { asset in
      """
      {"type":"asset","id":\(quote(asset.name)),"name":\(quote(asset.name)),\
      "content_type":\(quote(asset.contentType)),"bytes":\(asset.data.count),\
      "path":\(quote("/issues/\(issue.id)/assets/\(asset.name)"))}
      """
    }
    return """
      {"type":"issue","id":\(issue.id),"title":\(quote(issue.title)),\
      "published_at":\(quote(issue.published)),"assets":[\(assets.joined(separator: ","))]}
      """
  }

  static func ok(_ data: String) -> String { #"{"code":"OK","data":\#(data)}"# }

  static func collection(_ items: [String], offset: Int, total: Int) -> String {
    #"{"code":"OK","data":[\#(items.joined(separator: ","))],"info":{"offset":\#(offset),"count":\#(items.count),"total":\#(total)}}"#
  }

  static func error(_ code: String, _ message: String) -> String {
    #"{"code":\#(quote(code)),"message":\#(quote(message))}"#
  }

  static func quote(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\t": result += "\\t"
      case let control where control.value < 0x20:
        result += "\\u00" + (control.value < 16 ? "0" : "") + String(control.value, radix: 16)
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}
