import Plumbing

/// Renders outputs as aligned text for people.
///
/// Tables get a header and a rule, with numbers right-aligned; records are `key: value` lines with
/// the values aligned; trees use box-drawing characters. Colour is used only when asked for, which
/// the shell does when standard output is a terminal and `NO_COLOR` is unset. Widths are display
/// widths (`DisplayWidth`), so wide characters stay aligned.
public struct TextRenderer: Sendable {
  /// Whether to use ANSI colour.
  public var useColor: Bool
  /// The terminal's width in columns; nil when the text is not for a terminal.
  ///
  /// Text for a pipe, a file or `expect` has no width. With a width, a table too wide for it wraps
  /// its prose columns between words, or, when that is not enough, shows each row as a record;
  /// long record values wrap too.
  public var maxWidth: Int?

  /// Creates a renderer.
  public init(useColor: Bool = false, maxWidth: Int? = nil) {
    self.useColor = useColor
    self.maxWidth = maxWidth
  }

  /// The text for `output`, without a trailing newline; empty for `.empty`.
  ///
  /// This is where text reaches a terminal: every value, name and prepared text is shown with
  /// its control bytes escaped (`TerminalText`), whoever it came from (a server, a stored value,
  /// a workspace file), so that nothing shown can set a title, a colour, the clipboard or a
  /// link. Line breaks and tabs stay. `--json` and files keep the exact text.
  public func render(_ output: Output) -> String {
    switch output {
    case .empty:
      return ""
    case .text(let text):
      return TerminalText.escaped(text, keepingLines: true)
    case .view(let text, _):
      return TerminalText.escaped(text, keepingLines: true)
    case .record(let fields):
      return record(fields)
    case .table(let table):
      return self.table(table)
    case .tree(let node):
      return tree(node)
    case .events(let events):
      return events.map { dim("~ \(TerminalText.escaped($0.text))") }.joined(separator: "\n")
    case .diagram(_, let text):
      return TerminalText.escaped(text, keepingLines: true)
    case .sequence(let outputs):
      return outputs.map(render).filter { !$0.isEmpty }.joined(separator: "\n")
    }
  }

  /// The text of one value inside a table cell or record, its control bytes escaped.
  public static func text(of value: Value) -> String {
    switch value {
    case .string(let text): return TerminalText.escaped(text, keepingLines: true)
    case .int(let number): return String(number)
    case .double(let number): return formatDouble(number)
    case .bool(let flag): return flag ? "yes" : "no"
    case .null: return "-"
    // An empty list says so: as nothing, `{parts: }` looked like a value gone missing.
    case .list(let values) where values.isEmpty: return "[]"
    case .list(let values) where values.count > longList:
      // 100,000 sections' row counts would be one line of 300 KB: people get the first ones and
      // how many there are; --json carries them all.
      return values.prefix(shownOfLongList).map(text(of:)).joined(separator: ", ")
        + ", … (\(values.count) in all; --json lists every one)"
    case .list(let values): return values.map(text(of:)).joined(separator: ", ")
    case .object(let fields):
      return "{"
        + fields.map { "\(TerminalText.escaped($0.key)): \(text(of: $0.value))" }
        .joined(separator: ", ") + "}"
    case .excerpt(let shown, _): return TerminalText.escaped(shown, keepingLines: true)
    }
  }

  /// A list longer than this is summarised in text: its first `shownOfLongList` items and its
  /// length.
  static let longList = 50
  /// How many items of a long list text shows.
  static let shownOfLongList = 20

  static func formatDouble(_ number: Double) -> String {
    if number.isFinite, number == number.rounded(), abs(number) < 1e15 {
      return String(Int(number))
    }
    return String(number)
  }

  private func record(_ fields: [Field]) -> String {
    let keys = fields.map { TerminalText.escaped($0.key) }
    let width = keys.map(\.displayWidth).max() ?? 0
    // Below 16 columns for values, wrapping would only make a tall narrow column.
    let room = maxWidth.map { $0 - width - 2 }.flatMap { $0 >= 16 ? $0 : nil }
    // The record's bytes, made into a string once: a string grown by many small appends costs
    // several hundred instructions each, and a record is printed for every command that shows one.
    var bytes: [UInt8] = []
    bytes.reserveCapacity(fields.count * (width + 40))
    for (field, shownKey) in zip(fields, keys) {
      if !bytes.isEmpty { bytes.append(UInt8(ascii: "\n")) }
      let lineStart = bytes.count
      let label = shownKey + ":"
      if useColor { bytes.append(contentsOf: "\u{1B}[1m".utf8) }
      bytes.append(contentsOf: label.utf8)
      bytes.append(
        contentsOf: repeatElement(UInt8(ascii: " "), count: max(0, width + 1 - label.displayWidth)))
      if useColor { bytes.append(contentsOf: "\u{1B}[0m".utf8) }
      bytes.append(UInt8(ascii: " "))
      let value = Self.text(of: field.value)
      if let room {
        bytes.append(
          contentsOf: value.wrapped(toWidth: room).joined(separator: "\n" + indent(width + 2)).utf8)
      } else if value.holdsNewline {
        bytes.append(
          contentsOf: value.split(separator: "\n", omittingEmptySubsequences: false).joined(
            separator: "\n" + indent(width + 2)
          ).utf8)
      } else {
        bytes.append(contentsOf: value.utf8)
      }
      if bytes.last == UInt8(ascii: " ") {
        // The line ends without spaces, trimmed by characters as text is.
        let line = trimTrailing(String(decoding: bytes[lineStart...], as: UTF8.self))
        bytes.replaceSubrange(lineStart..., with: line.utf8)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  private func table(_ table: Table) -> String {
    let cells = table.rows.map { row in row.map { Self.text(of: $0).replacingNewlines() } }
    let columns = table.columns.map { TerminalText.escaped($0) }
    var widths = columns.map(\.displayWidth)
    for row in cells {
      for (column, cell) in row.enumerated() where column < widths.count {
        widths[column] = max(widths[column], cell.displayWidth)
      }
    }
    if let maxWidth, !cells.isEmpty, widths.reduce(2 * (widths.count - 1), +) > maxWidth {
      guard let fitted = Self.fit(widths, columns: columns, cells: cells, into: maxWidth)
      else {
        return table.rows.map { row in
          record(zip(table.columns, row).map { Field($0, $1) })
        }.joined(separator: "\n\n")
      }
      widths = fitted
    }
    let numeric = table.columns.indices.map { column in
      !table.rows.isEmpty
        && table.rows.allSatisfy { row in
          guard column < row.count else { return true }
          switch row[column] {
          case .int, .double, .null: return true
          default: return false
          }
        }
    }
    // A cell wider than its column (only when fitting a terminal) wraps onto more lines.
    func rowLines(_ row: [String]) -> [String] {
      let parts = row.enumerated().map { column, cell in
        cell.displayWidth > widths[column] ? cell.wrapped(toWidth: widths[column]) : [cell]
      }
      let height = parts.map { $0.count }.max() ?? 1
      return (0..<height).map { index in
        let padded = parts.enumerated().map { column, part in
          let cell = index < part.count ? part[index] : ""
          let gap = String(repeating: " ", count: max(0, widths[column] - cell.displayWidth))
          return numeric[column] ? gap + cell : cell + gap
        }
        return trimTrailing(padded.joined(separator: "  "))
      }
    }
    var lines = rowLines(columns).map(bold)
    lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
    lines += cells.flatMap(rowLines)
    if cells.isEmpty { lines.append("(no rows)") }
    return lines.joined(separator: "\n")
  }

  /// Column widths that fit `maxWidth`, or nil.
  ///
  /// Only prose columns (a cell holds a space) narrow, since they wrap between words; never below
  /// their header or 16 columns. The widest gives up a column at a time, so long columns end up
  /// equal. Names and types are never broken.
  private static func fit(
    _ natural: [Int], columns: [String], cells: [[String]], into maxWidth: Int
  ) -> [Int]? {
    var widths = natural
    let floors = natural.indices.map { column in
      let isProse = cells.contains { column < $0.count && $0[column].contains(" ") }
      let header = column < columns.count ? columns[column].displayWidth : 0
      return isProse ? min(natural[column], max(header, 16)) : natural[column]
    }
    var excess = widths.reduce(2 * (widths.count - 1), +) - maxWidth
    while excess > 0 {
      let narrowable = widths.indices.filter { widths[$0] > floors[$0] }
      guard let widest = narrowable.max(by: { widths[$0] < widths[$1] }) else { return nil }
      widths[widest] -= 1
      excess -= 1
    }
    return widths
  }

  private func tree(_ root: TreeNode) -> String {
    var lines = [label(root)]
    func walk(_ node: TreeNode, prefix: String) {
      for (index, child) in node.children.enumerated() {
        let last = index == node.children.count - 1
        lines.append(dim(prefix + (last ? "└─ " : "├─ ")) + label(child))
        walk(child, prefix: prefix + (last ? "   " : "│  "))
      }
    }
    walk(root, prefix: "")
    return lines.joined(separator: "\n")
  }

  private func label(_ node: TreeNode) -> String {
    let label = TerminalText.escaped(node.label)
    guard let detail = node.detail else { return label }
    return label + "  " + dim(TerminalText.escaped(detail))
  }

  private func bold(_ text: String) -> String { useColor ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
  private func dim(_ text: String) -> String { useColor ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
  private func trimTrailing(_ text: String) -> String {
    guard text.utf8.last == UInt8(ascii: " ") else { return text }
    var text = text
    while text.last == " " { text.removeLast() }
    return text
  }

  private func indent(_ count: Int) -> String { String(repeating: " ", count: count) }
}

extension String {
  /// Whether the text holds a line feed, found on its UTF-8 bytes.
  var holdsNewline: Bool {
    utf8.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: "\n")) }
      ?? utf8.contains(UInt8(ascii: "\n"))
  }

  /// The text with line breaks shown as `\n`, so that it fits on one line.
  func replacingNewlines() -> String {
    guard contains(where: \.isNewline) else { return self }
    return split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\\n")
  }
}
