import Foundation

/// A small SVG writer: the pictures of the commands, the board and `make docs` are all drawn with
/// it, so they look the same everywhere.
///
/// Text is monospaced, so that a label's width is known without a font engine: a character is
/// `0.6 em` wide (DejaVu Sans Mono, Menlo and Consolas all are).
struct SVG {
  /// The width of one character at `size` pixels.
  static func textWidth(_ text: String, size: Double) -> Double {
    Double(text.displayWidth) * size * 0.6
  }

  /// The font every picture uses.
  static let fontFamily = "DejaVu Sans Mono, Menlo, Consolas, monospace"

  private(set) var body = ""

  /// Adds raw markup.
  mutating func raw(_ markup: String) { body += markup }

  /// Opens a group with `class` and data attributes.
  mutating func open(_ classes: String, data: [(String, String)] = []) {
    body += "<g class=\"\(Self.escape(classes))\""
    for (key, value) in data { body += " data-\(key)=\"\(Self.escape(value))\"" }
    body += ">"
  }

  /// Closes the innermost group.
  mutating func close() { body += "</g>" }

  /// A rectangle.
  mutating func rect(
    x: Double, y: Double, width: Double, height: Double, radius: Double = 0, classes: String
  ) {
    body +=
      "<rect x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" width=\"\(Self.number(width))\""
      + " height=\"\(Self.number(height))\" rx=\"\(Self.number(radius))\" class=\"\(classes)\"/>"
  }

  /// A line.
  mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, classes: String) {
    body +=
      "<line x1=\"\(Self.number(x1))\" y1=\"\(Self.number(y1))\" x2=\"\(Self.number(x2))\""
      + " y2=\"\(Self.number(y2))\" class=\"\(classes)\"/>"
  }

  /// A path.
  mutating func path(_ data: String, classes: String) {
    body += "<path d=\"\(data)\" class=\"\(classes)\"/>"
  }

  /// Text at a baseline; `anchor` is start, middle or end.
  mutating func text(
    _ text: String, x: Double, y: Double, classes: String, anchor: String = "start"
  ) {
    body +=
      "<text x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" class=\"\(classes)\""
      + (anchor == "start" ? "" : " text-anchor=\"\(anchor)\"") + ">\(Self.escape(text))</text>"
  }

  /// A tooltip for the enclosing group.
  mutating func title(_ text: String) { body += "<title>\(Self.escape(text))</title>" }

  /// The whole document, `width` by `height`, with the shared style and `style` added.
  ///
  /// Its rules apply inside it alone: the root carries the class `scope`, and every rule is
  /// prefixed with it, so that two pictures on one page (the board) do not restyle each other.
  func document(width: Double, height: Double, label: String, style: String, scope: String)
    -> String
  {
    let w = Self.number(width.rounded(.up))
    let h = Self.number(height.rounded(.up))
    return
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"\(scope)\" width=\"\(w)\" height=\"\(h)\""
      + " viewBox=\"0 0 \(w) \(h)\" role=\"img\" aria-label=\"\(Self.escape(label))\">\n"
      + "<style>\n" + Self.scoped(Self.sharedStyle + style, to: scope) + "</style>\n"
      + "<rect class=\"paper\" x=\"0\" y=\"0\" width=\"\(w)\" height=\"\(h)\"/>\n" + body
      + "\n</svg>"
  }

  /// Each rule's selectors prefixed with `.scope`.
  static func scoped(_ style: String, to scope: String) -> String {
    var result = ""
    for line in style.split(separator: "\n", omittingEmptySubsequences: false) {
      guard let brace = line.firstIndex(of: "{") else {
        result += line + "\n"
        continue
      }
      let selectors = line[..<brace].split(separator: ",").map {
        ".\(scope) " + $0.trimmingCharacters(in: .whitespaces)
      }
      result += selectors.joined(separator: ", ") + " " + line[brace...] + "\n"
    }
    return result
  }

  /// The style every picture shares: light paper, dark ink, one accent.
  static let sharedStyle = """
    text { font-family: \(fontFamily); fill: #111; stroke: none; }
    .paper { fill: #fff; }
    .small { font-size: 13px; fill: #333; }
    .label { font-size: 15px; }
    .strong { font-weight: bold; }
    .linked > rect, .linked > line, .linked > path { stroke: #d4006a !important; stroke-width: 4px !important; }

    """

  /// Escapes text for an attribute or element.
  static func escape(_ text: String) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for character in text {
      switch character {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      default: result.append(character)
      }
    }
    return result
  }

  /// A coordinate with at most one decimal, without a trailing `.0`.
  static func number(_ value: Double) -> String {
    let tenths = (value * 10).rounded()
    if tenths.truncatingRemainder(dividingBy: 10) == 0 { return String(Int(tenths / 10)) }
    return String(Int(tenths) / 10) + "." + String(abs(Int(tenths)) % 10)
  }

  /// `text` cut to `count` characters with an ellipsis.
  static func cut(_ text: String, _ count: Int) -> String {
    text.displayWidth <= count ? text : text.cut(toWidth: count)
  }
}
