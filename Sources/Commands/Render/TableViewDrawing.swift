import Domain
import Foundation
import Plumbing

/// Draws a DataSourceController as UIKit would show it, in text: a grouped table view, or a collection view of cards.
///
/// Each cell is a `TextCellView` configured by its data controller.
struct TableViewDrawing {
  let controller: DataSourceController
  let width: Int

  /// A grouped table view of the rows `from ..< from + count`, counted across sections.
  func table(from: Int, count: Int) -> String {
    let total = controller.totalRowCount
    guard total > 0 else { return emptyState() }
    var lines: [String] = [summary(from: from, count: count, total: total)]
    let inner = width - 4
    for (section, rows) in window(from: from, count: count) {
      let data = controller.sectionDataController(at: section.index)
      lines.append("")
      if let header = data?.headerTitle {
        lines.append(" " + cut(header.uppercased(), width - 1))
      }
      if rows.lowerBound > 0 {
        lines.append(" ⋮ \(plural(rows.lowerBound, "row")) above")
      }
      lines.append("┌" + String(repeating: "─", count: width - 2) + "┐")
      for (offset, row) in rows.enumerated() {
        if offset > 0 { lines.append("├" + String(repeating: "─", count: width - 2) + "┤") }
        for line in cell(at: IndexPath(row: row, section: section.index), inner: inner) {
          lines.append("│ " + line + " │")
        }
      }
      lines.append("└" + String(repeating: "─", count: width - 2) + "┘")
      if rows.upperBound < section.count {
        lines.append(" ⋮ \(plural(section.count - rows.upperBound, "row")) below")
      }
      if let footer = data?.footerTitle { lines.append(" " + cut(footer, width - 1)) }
    }
    return lines.joined(separator: "\n")
  }

  /// A collection view: cards in a grid, with each section's header and footer as supplementary
  /// cells across the width.
  func collection(from: Int, count: Int) -> String {
    let total = controller.totalRowCount
    guard total > 0 else { return emptyState() }
    var lines: [String] = [summary(from: from, count: count, total: total)]
    let cardWidth = 24
    let columns = max(1, (width + 1) / (cardWidth + 1))
    for (section, rows) in window(from: from, count: count) {
      let data = controller.sectionDataController(at: section.index)
      lines.append("")
      if let header = data?.headerTitle { lines += supplementary(header, kind: "header") }
      let paths = rows.map { IndexPath(row: $0, section: section.index) }
      var start = 0
      while start < paths.count {
        let chunk = paths[start..<min(paths.count, start + columns)]
        let cards = chunk.map { card(at: $0, width: cardWidth) }
        // A closure, not the key path \.count: a key path to Array.count takes the address of a
        // libswiftCore function, which the position-dependent release executable turns into a
        // glibc warning ("may break pointer equality") on standard error.
        let height = cards.map { $0.count }.max() ?? 0
        for line in 0..<height {
          lines.append(
            cards.map { line < $0.count ? $0[line] : String(repeating: " ", count: cardWidth) }
              .joined(separator: " "))
        }
        start += columns
      }
      if let footer = data?.footerTitle { lines += supplementary(footer, kind: "footer") }
    }
    return lines.joined(separator: "\n")
  }

  // MARK: - Private

  private func summary(from: Int, count: Int, total: Int) -> String {
    let sections = plural(controller.sections.count, "section")
    let last = min(total, from + count) - 1
    let range = from > last ? "none shown" : "rows \(from)–\(last) shown"
    return "\(sections), \(plural(total, "row")); \(range)"
  }

  /// The rows `from ..< from + count` whole, for `--json`: each section's header and footer, and
  /// each row's model (text, product fields, or the JSON object) with its cell's reuse identifier.
  func rows(from: Int, count: Int) -> Value {
    var sections: [Value] = []
    for (section, rows) in window(from: from, count: count) {
      let data = controller.sectionDataController(at: section.index)
      let models = controller.sections[section.index].rows
      let values: [Value] = rows.map { row in
        var view = TextCellView()
        view.configure(
          with: controller.cellDataController(at: IndexPath(row: row, section: section.index)))
        return .object([
          Field("row", .int(row)), Field("model_type", .string(models[row].modelType)),
          Field("reuse_identifier", .string(view.reuseIdentifier)),
          Field("model", Self.value(of: models[row])),
        ])
      }
      sections.append(
        .object([
          Field("section", .int(section.index)),
          Field("header", data?.headerTitle.map(Value.string) ?? .null),
          Field("footer", data?.footerTitle.map(Value.string) ?? .null),
          Field("rows", .list(values)),
        ]))
    }
    return .object([
      Field("total_rows", .int(controller.totalRowCount)), Field("from", .int(from)),
      Field("sections", .list(sections)),
    ])
  }

  /// A row's model whole: its text, its product's fields, or its JSON object.
  static func value(of model: RowModel) -> Value {
    switch model {
    case .text(let text):
      return .string(text)
    case .product(let product):
      return .object([
        Field("type", .string(product.type)), Field("id", .int(product.id)),
        Field("name", .string(product.name)), Field("family", .string(product.family)),
        Field("price_cents", .int(product.priceCents)),
        Field("currency", .string(product.currency)),
        Field("details", .string(product.details)),
      ])
    case .object(_, let json):
      guard let parsed = try? StrictJSON.parse(json) else { return .string(json) }
      return JSONRenderer.value(fromJSON: parsed)
    }
  }

  private func window(from: Int, count: Int) -> [(
    section: (index: Int, count: Int), rows: Range<Int>
  )] {
    controller.rowWindow(from: from, count: count)
  }

  /// The cell's lines, each exactly `inner` columns: its labels on the left, its detail and reuse
  /// identifier on the right of the first line.
  private func cell(at path: IndexPath, inner: Int) -> [String] {
    var view = TextCellView()
    view.configure(with: controller.cellDataController(at: path))
    let tag = "‹\(view.reuseIdentifier)›"
    var lines: [String] = []
    let right = [view.accessory, tag].filter { !$0.isEmpty }.joined(separator: "  ")
    for (index, text) in view.lines.enumerated() {
      if index == 0, text.displayWidth + 1 + right.displayWidth > inner {
        // No room beside the text: the detail and the identifier go on a line of their own.
        lines.append(layout(text, "", inner))
        lines.append(layout("", right, inner))
      } else {
        lines.append(layout(text, index == 0 ? right : "", inner))
      }
    }
    return lines.isEmpty ? [layout("", tag, inner)] : lines
  }

  private func card(at path: IndexPath, width: Int) -> [String] {
    var view = TextCellView()
    view.configure(with: controller.cellDataController(at: path))
    let inner = width - 4
    var body = view.lines.map { cut($0, inner) }
    if !view.accessory.isEmpty { body.append(cut(view.accessory, inner)) }
    body.append(cut("‹\(view.reuseIdentifier)›", inner))
    return ["┌" + String(repeating: "─", count: width - 2) + "┐"]
      + body.map { "│ " + pad($0, inner) + " │" }
      + ["└" + String(repeating: "─", count: width - 2) + "┘"]
  }

  private func supplementary(_ text: String, kind: String) -> [String] {
    let inner = width - 4
    return [
      "╔" + String(repeating: "═", count: width - 2) + "╗",
      "║ " + layout(text, "‹\(kind)›", inner) + " ║",
      "╚" + String(repeating: "═", count: width - 2) + "╝",
    ]
  }

  /// The delegate's background, in a frame with no separators.
  private func emptyState() -> String {
    let inner = width - 4
    let empty = controller.delegate?.backgroundEmptyView()
    func centred(_ text: String) -> String {
      let text = cut(text, inner)
      let left = (inner - text.displayWidth) / 2
      return "│ " + pad(String(repeating: " ", count: left) + text, inner) + " │"
    }
    let blank = "│ " + String(repeating: " ", count: inner) + " │"
    var lines = [
      "\(plural(controller.sections.count, "section")), 0 rows; the delegate's background is "
        + "shown and separators are off",
      "┌" + String(repeating: "─", count: width - 2) + "┐", blank,
      centred(empty?.viewModel.message ?? ""),
    ]
    if let empty, empty.hasButton, let title = empty.viewModel.actionText {
      // EmptyStateViewController's button; 'ds tap' taps it.
      lines += [blank, centred("[ \(title) ]")]
    }
    lines += [blank, "└" + String(repeating: "─", count: width - 2) + "┘"]
    return lines.joined(separator: "\n")
  }

  /// `left` and `right` on one line of `width` columns; the left text is cut first.
  private func layout(_ left: String, _ right: String, _ width: Int) -> String {
    let right = cut(right, width)
    let room = width - right.displayWidth - (right.isEmpty ? 0 : 1)
    let left = cut(left, max(0, room))
    return left.padded(toWidth: width - right.displayWidth) + right
  }

  private func pad(_ text: String, _ width: Int) -> String { text.padded(toWidth: width) }

  private func cut(_ text: String, _ width: Int) -> String { text.cut(toWidth: width) }
}

extension DataSourceController {
  /// The sections that have rows in the window of rows `from ..< from + count`, counted across
  /// sections, with the window's part of each: what the text and the pictures draw.
  func rowWindow(from: Int, count: Int) -> [(
    section: (index: Int, count: Int), rows: Range<Int>
  )] {
    var result: [(section: (index: Int, count: Int), rows: Range<Int>)] = []
    var start = 0
    let end = from + count
    for (index, section) in sections.enumerated() {
      let rowCount = section.rows.count
      defer { start += rowCount }
      guard start + rowCount > from else { continue }
      guard start < end else { break }
      let lower = max(0, from - start)
      let upper = min(rowCount, end - start)
      if lower < upper { result.append(((index, rowCount), lower..<upper)) }
    }
    return result
  }
}
