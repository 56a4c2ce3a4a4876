import Domain
import Foundation

/// A DataSourceController drawn as UIKit would show it, in SVG or HTML: a grouped table view or a
/// collection view of cards, each cell as its cell view draws it through `configure(with:)`.
///
/// Rows in `touched` (the last mutation's) are highlighted; with no rows, the delegate's
/// background is drawn, without separators.
struct TableViewPicture {
  let controller: DataSourceController
  /// The rows `from ..< from + count`, counted across sections.
  var from = 0
  var count = 50
  /// The rows to highlight.
  var touched: Set<IndexPath> = []
  /// A collection view instead of a table view.
  var collection = false
  /// The title above the table.
  var title: String?

  private let rowHeight = 30.0
  private let lineHeight = 22.0

  /// The SVG picture.
  func svg() -> String {
    let width = collection ? 760.0 : 560.0
    var svg = SVG()
    var y = 12.0
    if let title {
      svg.text(title, x: 16, y: y + 20, classes: "heading")
      y += 34
    }
    let total = controller.totalRowCount
    guard total > 0 else {
      let empty = controller.delegate?.backgroundEmptyView()
      svg.open("empty")
      svg.rect(x: 16, y: y, width: width - 32, height: 120, radius: 12, classes: "group")
      let message = empty?.viewModel.message ?? ""
      svg.text(
        message, x: width / 2, y: y + (empty?.hasButton == true ? 50 : 66),
        classes: "background", anchor: "middle")
      if let empty, empty.hasButton, let title = empty.viewModel.actionText {
        let buttonWidth = Double(title.count) * 8.4 + 40
        svg.rect(
          x: width / 2 - buttonWidth / 2, y: y + 66, width: buttonWidth, height: 32, radius: 16,
          classes: "button")
        svg.text(title, x: width / 2, y: y + 87, classes: "button-title", anchor: "middle")
      }
      svg.close()
      return svg.document(
        width: width, height: y + 136, label: "empty table view", style: Self.style,
        scope: "archsh-tableview")
    }
    for (section, rows) in window() {
      let data = controller.sectionDataController(at: section.index)
      if let header = data?.headerTitle {
        y += 10
        svg.text(SVG.cut(header.uppercased(), 50), x: 28, y: y + 16, classes: "header")
        y += 24
      }
      if rows.lowerBound > 0 {
        svg.text("⋮ \(plural(rows.lowerBound, "row")) above", x: 28, y: y + 16, classes: "more")
        y += 24
      }
      let paths = rows.map { IndexPath(row: $0, section: section.index) }
      if collection {
        y = cards(&svg, paths, top: y, width: width)
      } else {
        y = cells(&svg, paths, top: y, width: width)
      }
      if rows.upperBound < section.count {
        svg.text(
          "⋮ \(plural(section.count - rows.upperBound, "row")) below", x: 28, y: y + 18,
          classes: "more")
        y += 24
      }
      if let footer = data?.footerTitle {
        svg.text(SVG.cut(footer, 60), x: 28, y: y + 18, classes: "footer")
        y += 26
      }
      y += 10
    }
    return svg.document(
      width: width, height: y + 8, label: "table view", style: Self.style, scope: "archsh-tableview"
    )
  }

  private func cells(_ svg: inout SVG, _ paths: [IndexPath], top: Double, width: Double) -> Double {
    var y = top
    let heights = paths.map { max(1, view(at: $0).lines.count) }
    let total = heights.reduce(0.0) { $0 + Double($1) * lineHeight + 14 }
    svg.rect(x: 16, y: y, width: width - 32, height: total, radius: 12, classes: "group")
    for (offset, path) in paths.enumerated() {
      let cell = view(at: path)
      let height = Double(heights[offset]) * lineHeight + 14
      let isTouched = touched.contains(path)
      svg.open(
        "row" + (isTouched ? " touched" : ""), data: [("row", "\(path.section).\(path.row)")])
      svg.title("row \(path.section).\(path.row) ‹\(cell.reuseIdentifier)›")
      svg.rect(
        x: 17, y: y + 1, width: width - 34, height: height - 2, radius: 10,
        classes: isTouched ? "cell touched" : "cell")
      if offset > 0 { svg.line(x1: 32, y1: y, x2: width - 16, y2: y, classes: "separator") }
      let lines = cell.lines.isEmpty ? [""] : cell.lines
      for (index, line) in lines.enumerated() {
        svg.text(
          SVG.cut(line, 40), x: 32, y: y + 7 + lineHeight * Double(index + 1) - 5,
          classes: index == 0 ? (cell.isError ? "text error" : "text") : "subtitle")
      }
      let right = [cell.accessory, "‹\(cell.reuseIdentifier)›"].filter { !$0.isEmpty }
        .joined(separator: "  ")
      svg.text(right, x: width - 30, y: y + 7 + lineHeight - 5, classes: "detail", anchor: "end")
      svg.close()
      y += height
    }
    return y
  }

  private func cards(_ svg: inout SVG, _ paths: [IndexPath], top: Double, width: Double) -> Double {
    let cardWidth = 230.0
    let gap = 12.0
    let columns = max(1, Int((width - 32 + gap) / (cardWidth + gap)))
    let cardHeight = 4 * lineHeight + 16
    var y = top
    for (offset, path) in paths.enumerated() {
      let column = offset % columns
      if offset > 0, column == 0 { y += cardHeight + gap }
      let x = 16 + Double(column) * (cardWidth + gap)
      let cell = view(at: path)
      let isTouched = touched.contains(path)
      svg.open(
        "row" + (isTouched ? " touched" : ""), data: [("row", "\(path.section).\(path.row)")])
      svg.rect(
        x: x, y: y, width: cardWidth, height: cardHeight, radius: 12,
        classes: isTouched ? "card touched" : "card")
      var lines = Array(cell.lines.prefix(2))
      if !cell.accessory.isEmpty { lines.append(cell.accessory) }
      lines.append("‹\(cell.reuseIdentifier)›")
      for (index, line) in lines.enumerated() {
        svg.text(
          SVG.cut(line, 22), x: x + 12, y: y + 8 + lineHeight * Double(index + 1) - 4,
          classes: index == 0 ? "text" : "subtitle")
      }
      svg.close()
    }
    return paths.isEmpty ? y : y + cardHeight + gap
  }

  /// The same table as an HTML document: sections, header and footer, one list item per row.
  func html() -> String {
    var body = ""
    if let title { body += "<h1>\(SVG.escape(title))</h1>\n" }
    if controller.totalRowCount == 0 {
      let empty = controller.delegate?.backgroundEmptyView()
      body += "<div class=\"empty\">\(SVG.escape(empty?.viewModel.message ?? ""))"
      if let empty, empty.hasButton, let title = empty.viewModel.actionText {
        body += "<button type=\"button\">\(SVG.escape(title))</button>"
      }
      body += "</div>\n"
    }
    for (section, rows) in controller.totalRowCount == 0 ? [] : window() {
      let data = controller.sectionDataController(at: section.index)
      body += "<section data-section=\"\(section.index)\">\n"
      if let header = data?.headerTitle { body += "<h2>\(SVG.escape(header))</h2>\n" }
      if rows.lowerBound > 0 {
        body += "<p class=\"more\">⋮ \(plural(rows.lowerBound, "row")) above</p>\n"
      }
      body += collection ? "<ul class=\"collection\">\n" : "<ul class=\"table\">\n"
      for row in rows {
        let path = IndexPath(row: row, section: section.index)
        let cell = view(at: path)
        let classes = touched.contains(path) ? " class=\"touched\"" : ""
        body += "<li\(classes) data-row=\"\(path.section).\(path.row)\">"
        for (index, line) in cell.lines.enumerated() {
          body += index == 0 ? "<b>\(SVG.escape(line))</b>" : "<span>\(SVG.escape(line))</span>"
        }
        if !cell.accessory.isEmpty { body += "<em>\(SVG.escape(cell.accessory))</em>" }
        body += "<code>‹\(SVG.escape(cell.reuseIdentifier))›</code></li>\n"
      }
      body += "</ul>\n"
      if rows.upperBound < section.count {
        body += "<p class=\"more\">⋮ \(plural(section.count - rows.upperBound, "row")) below</p>\n"
      }
      if let footer = data?.footerTitle { body += "<footer>\(SVG.escape(footer))</footer>\n" }
      body += "</section>\n"
    }
    return """
      <!doctype html>
      <html lang="en"><head><meta charset="utf-8"><title>\(SVG.escape(title ?? "table view"))</title>
      <style>
      body { font: 18px/1.4 system-ui, sans-serif; background: #f2f2f7; margin: 24px; color: #111; }
      h2 { font-size: 14px; text-transform: uppercase; color: #444; margin: 18px 16px 6px; }
      ul { list-style: none; margin: 0; padding: 0; }
      ul.table { background: #fff; border-radius: 12px; max-width: 640px; }
      ul.table li { padding: 10px 16px; border-top: 1px solid #ddd; display: flex; gap: 12px; \
      align-items: baseline; }
      ul.table li:first-child { border-top: none; }
      ul.collection { display: grid; grid-template-columns: repeat(auto-fill, 220px); gap: 12px; }
      ul.collection li { background: #fff; border-radius: 12px; padding: 12px; display: grid; }
      li.touched { background: #fff1c7 !important; outline: 3px solid #a56a00; }
      li span { color: #444; } li em { margin-left: auto; color: #444; } li code { color: #666; }
      footer, .more { color: #444; font-size: 15px; margin: 6px 16px; }
      .empty { background: #fff; border-radius: 12px; padding: 48px; text-align: center; \
      color: #444; max-width: 560px; }
      </style></head>
      <body>
      \(body)</body></html>
      """
  }

  private func view(at path: IndexPath) -> TextCellView {
    var view = TextCellView()
    view.configure(with: controller.cellDataController(at: path))
    return view
  }

  private func window() -> [(section: (index: Int, count: Int), rows: Range<Int>)] {
    controller.rowWindow(from: from, count: count)
  }

  private static let style = """
    .heading { font-size: 19px; font-weight: bold; }
    .group { fill: #fff; stroke: #c7c7cc; stroke-width: 1px; }
    .cell { fill: #fff; stroke: none; }
    .cell.touched, .card.touched { fill: #fff1c7; stroke: #a56a00; stroke-width: 3px; }
    .card { fill: #fff; stroke: #c7c7cc; }
    .separator { stroke: #d1d1d6; stroke-width: 1px; }
    .text { font-size: 16px; }
    .text.error { fill: #b00020; }
    .subtitle { font-size: 14px; fill: #444; }
    .detail { font-size: 14px; fill: #555; }
    .header, .footer, .more { font-size: 13px; fill: #444; }
    .background { font-size: 17px; fill: #444; }
    .button { fill: #007aff; }
    .button-title { font-size: 15px; fill: #fff; font-weight: 600; }
    .paper { fill: #f2f2f7; }

    """
}
