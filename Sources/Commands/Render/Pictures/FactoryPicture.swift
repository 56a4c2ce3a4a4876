import Domain

/// The factory graph as SVG, laid out in layers: a product's column is one more than the deepest
/// of the products injected into it, so every wire runs left to right, and the order within each
/// column is chosen to make wires cross as little as possible (the barycentre heuristic of
/// Sugiyama's method, with a point on each column a long wire passes).
///
/// Each product is a box (a singleton square, a prototype rounded) with its name, type, factory
/// and scope, filled with its origin's colour; archsh's own products are dashed and grey.
///
/// A product's class says what this session did with it: `new` (built by the last command),
/// `reused` (a singleton the last command was handed again), `built` (earlier), or `idle`.
enum FactoryPicture {
  /// What the last command did with a product.
  enum Mark {
    case new, reused
  }

  /// One slot of a column: a product, or a point a longer wire passes through.
  private enum Slot: Hashable {
    case product(String)
    case bend(wire: Int, column: Int)
  }

  /// The columns, each an ordered list of slots, and the wires as the products they join.
  private struct Layout {
    var columns: [[Slot]]
    var wires: [(from: String, to: String)]
  }

  /// The graph, with `marks` from the last command; with `focus`, only the products the last
  /// command touched, large, one under another, for the board.
  static func svg(_ graph: FactoryGraph, marks: [String: Mark] = [:], focus: Bool = false)
    -> String
  {
    if focus, !marks.isEmpty { return touched(graph, marks: marks) }
    let nodes = graph.nodes
    let nameSize = 15.0
    let typeSize = 13.0
    let boxHeight = 66.0
    let bendHeight = 14.0
    let gap = 12.0
    let columnGap = 70.0
    let top = 20.0
    let left = 16.0
    let byName = Dictionary(nodes.map { ($0.component.name, $0) }, uniquingKeysWith: { a, _ in a })
    let layout = layers(nodes, byName: byName)

    func lines(_ node: FactoryGraph.Node) -> (String, String, String) {
      (
        node.component.name, SVG.cut(node.component.typeName, 34),
        "\(node.component.factory) · \(node.component.lifetime.rawValue)"
      )
    }
    var widths: [Double] = []
    for column in layout.columns {
      var widest = 40.0
      for case .product(let name) in column {
        guard let node = byName[name] else { continue }
        let (first, second, third) = lines(node)
        widest = max(
          widest, SVG.textWidth(first, size: nameSize), SVG.textWidth(second, size: typeSize),
          SVG.textWidth(third, size: typeSize))
      }
      widths.append(widest + 24)
    }
    var columnX: [Double] = []
    var nextX = left
    for width in widths {
      columnX.append(nextX)
      nextX += width + columnGap
    }
    // Where each slot sits: a product's box, or a bend's point in the middle of its column.
    var box: [String: (x: Double, y: Double, width: Double)] = [:]
    var bend: [Slot: (x: Double, y: Double)] = [:]
    var bottom = top
    for (index, column) in layout.columns.enumerated() {
      var y = top
      for slot in column {
        switch slot {
        case .product(let name):
          box[name] = (columnX[index], y, widths[index])
          y += boxHeight + gap
        case .bend:
          bend[slot] = (columnX[index] + widths[index] / 2, y + bendHeight / 2)
          y += bendHeight + gap
        }
      }
      bottom = max(bottom, y)
    }
    let legendY = bottom + 18
    let height = legendY + 30
    let width = max(nextX - columnGap + left, 980)

    var svg = SVG()
    for (number, wire) in layout.wires.enumerated() {
      guard let from = box[wire.from], let to = box[wire.to] else { continue }
      var points = [(from.x + from.width, from.y + boxHeight / 2)]
      for column in layout.columns.indices {
        if let point = bend[.bend(wire: number, column: column)] { points.append(point) }
      }
      points.append((to.x - 6, to.y + boxHeight / 2))
      var data = "M\(SVG.number(points[0].0)) \(SVG.number(points[0].1))"
      for (start, end) in zip(points, points.dropFirst()) {
        let middle = (start.0 + end.0) / 2
        data +=
          " C\(SVG.number(middle)) \(SVG.number(start.1)) \(SVG.number(middle)) \(SVG.number(end.1)) \(SVG.number(end.0)) \(SVG.number(end.1))"
      }
      svg.open("edge", data: [("from", wire.from), ("to", wire.to)])
      svg.path(data, classes: "wire")
      svg.close()
    }
    for node in nodes {
      guard let at = box[node.component.name] else { continue }
      let state: String
      switch marks[node.component.name] {
      case .new: state = "new"
      case .reused: state = "reused"
      case nil: state = node.constructions > 0 ? "built" : "idle"
      }
      let shape = node.component.lifetime == .singleton ? "singleton" : "prototype"
      svg.open(
        "node \(state) \(shape) \(FactoryDrawing.originClass(node.component.origin))",
        data: [("product", node.component.name), ("origin", node.component.origin.label)])
      svg.title(
        "\(node.component.name): \(node.component.typeName)\n\(node.component.factory), "
          + "\(FactoryDrawing.scope(node))\n\(node.component.origin.label)"
          + (node.dependencies.isEmpty
            ? "" : "\n← " + node.dependencies.joined(separator: ", ")))
      svg.rect(
        x: at.x, y: at.y, width: at.width, height: boxHeight,
        radius: node.component.lifetime == .singleton ? 2 : 14, classes: "box")
      let (first, second, third) = lines(node)
      let pad = 12.0
      svg.text(first, x: at.x + pad, y: at.y + 21, classes: "name")
      svg.text(second, x: at.x + pad, y: at.y + 40, classes: "type")
      svg.text(third, x: at.x + pad, y: at.y + 58, classes: "type")
      svg.close()
    }
    // The legend: each origin's colour.
    var x = left
    for origin in Origin.allCases {
      svg.open("legend \(FactoryDrawing.originClass(origin))")
      svg.rect(
        x: x, y: legendY, width: 18, height: 14, radius: 2, classes: "box")
      svg.text(origin.label, x: x + 24, y: legendY + 12, classes: "type")
      svg.close()
      x += (24 + 18) + SVG.textWidth(origin.label, size: typeSize)
    }
    return svg.document(
      width: width, height: height, label: "factory graph", style: style, scope: "archsh-factories")
  }

  /// The products the last command built (first) or was handed again, one under another, with
  /// large text: what the board shows, so that a room can read it.
  private static func touched(_ graph: FactoryGraph, marks: [String: Mark]) -> String {
    let nodes =
      graph.nodes.filter { marks[$0.component.name] == .new }
      + graph.nodes.filter { marks[$0.component.name] == .reused }
    let nameSize = 24.0
    let textSize = 18.0
    let lineHeight = 26.0
    func lines(_ node: FactoryGraph.Node) -> [String] {
      var lines = [
        SVG.cut(node.component.typeName, 32),
        "\(node.component.factory) · \(FactoryDrawing.scope(node))",
        node.component.origin.label,
      ]
      if !node.dependencies.isEmpty {
        lines.append(SVG.cut("← " + node.dependencies.joined(separator: ", "), 34))
      }
      return lines
    }
    let widest =
      nodes.map { node in
        max(
          SVG.textWidth(node.component.name, size: nameSize),
          lines(node).map { SVG.textWidth($0, size: textSize) }.max() ?? 0)
      }.max() ?? 100
    let boxWidth = widest + 32
    var svg = SVG()
    var y = 10.0
    for node in nodes {
      let rows = lines(node)
      let height = 16 + nameSize + Double(rows.count) * lineHeight + 8
      let state = marks[node.component.name] == .new ? "new" : "reused"
      let shape = node.component.lifetime == .singleton ? "singleton" : "prototype"
      svg.open(
        "node \(state) \(shape) \(FactoryDrawing.originClass(node.component.origin))",
        data: [("product", node.component.name), ("origin", node.component.origin.label)])
      svg.rect(
        x: 10, y: y, width: boxWidth, height: height,
        radius: node.component.lifetime == .singleton ? 2 : 16, classes: "box")
      svg.text(node.component.name, x: 26, y: y + 12 + nameSize, classes: "name big")
      for (index, row) in rows.enumerated() {
        svg.text(
          row, x: 26, y: y + 16 + nameSize + Double(index + 1) * lineHeight - 6,
          classes: "type big")
      }
      svg.close()
      y += height + 12
    }
    let style =
      Self.style
      + ".name.big { font-size: \(SVG.number(nameSize))px; }\n"
      + ".type.big { font-size: \(SVG.number(textSize))px; }\n"
    return svg.document(
      width: boxWidth + 20, height: y, label: "what the last command built or reused",
      style: style, scope: "archsh-factories")
  }

  /// The columns and their order: longest-path layers, a bend for each column a wire skips, then
  /// sweeps left to right and back that sort each column by the mean position of its neighbours,
  /// keeping the order with the fewest crossings.
  private static func layers(
    _ nodes: [FactoryGraph.Node], byName: [String: FactoryGraph.Node]
  ) -> Layout {
    var layer: [String: Int] = [:]
    func depth(_ name: String, _ visiting: Set<String>) -> Int {
      if let known = layer[name] { return known }
      guard let node = byName[name] else { return 0 }
      let inputs = node.dependencies.filter { byName[$0] != nil && !visiting.contains($0) }
      let value = inputs.map { depth($0, visiting.union([name])) + 1 }.max() ?? 0
      layer[name] = value
      return value
    }
    for node in nodes { _ = depth(node.component.name, []) }
    var columns: [[Slot]] = Array(repeating: [], count: (layer.values.max() ?? 0) + 1)
    for node in nodes {
      columns[layer[node.component.name] ?? 0].append(.product(node.component.name))
    }
    // Each wire, a bend for each column it passes, and each slot's neighbours in the column before
    // it and after it.
    var wires: [(from: String, to: String)] = []
    var before: [Slot: [Slot]] = [:]
    var after: [Slot: [Slot]] = [:]
    for node in nodes {
      let name = node.component.name
      for dependency in node.dependencies where byName[dependency] != nil {
        let from = layer[dependency] ?? 0
        let to = layer[name] ?? 0
        guard from < to else { continue }
        let number = wires.count
        wires.append((dependency, name))
        var chain = [Slot.product(dependency)]
        for column in (from + 1)..<to {
          columns[column].append(.bend(wire: number, column: column))
          chain.append(.bend(wire: number, column: column))
        }
        chain.append(.product(name))
        for (left, right) in zip(chain, chain.dropFirst()) {
          after[left, default: []].append(right)
          before[right, default: []].append(left)
        }
      }
    }
    func crossings(_ columns: [[Slot]]) -> Int {
      var total = 0
      for index in columns.indices.dropLast() {
        var position: [Slot: Int] = [:]
        for (at, slot) in columns[index + 1].enumerated() { position[slot] = at }
        var pairs: [(Int, Int)] = []
        for (at, slot) in columns[index].enumerated() {
          for next in after[slot] ?? [] { if let to = position[next] { pairs.append((at, to)) } }
        }
        for i in pairs.indices {
          for j in pairs.indices where j > i {
            let (a, b) = (pairs[i], pairs[j])
            if (a.0 - b.0) * (a.1 - b.1) < 0 { total += 1 }
          }
        }
      }
      return total
    }
    func sorted(_ column: [Slot], by neighbours: [Slot: [Slot]], in reference: [Slot]) -> [Slot] {
      var position: [Slot: Int] = [:]
      for (at, slot) in reference.enumerated() { position[slot] = at }
      let keyed = column.enumerated().map { at, slot -> (Double, Int, Slot) in
        let places = (neighbours[slot] ?? []).compactMap { position[$0] }
        let mean = places.isEmpty ? Double(at) : Double(places.reduce(0, +)) / Double(places.count)
        return (mean, at, slot)
      }
      return keyed.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
    }
    var best = columns
    var fewest = crossings(columns)
    for _ in 0..<12 {
      for index in columns.indices.dropFirst() {
        columns[index] = sorted(columns[index], by: before, in: columns[index - 1])
      }
      for index in columns.indices.dropLast().reversed() {
        columns[index] = sorted(columns[index], by: after, in: columns[index + 1])
      }
      let now = crossings(columns)
      if now < fewest {
        fewest = now
        best = columns
      }
    }
    return Layout(columns: best, wires: wires)
  }

  private static let style = """
    .box { fill: #fff; stroke: #9aa5b5; stroke-width: 1.5px; }
    .name { font-size: 15px; font-weight: bold; }
    .type { font-size: 13px; fill: #444; }
    .idle .name, .idle .type { fill: #555; }
    .built .box { stroke: #1a56c4; stroke-width: 2.5px; }
    .origin_lickability .box { fill: #fde9d9; }
    .origin_datasourcecontroller .box { fill: #e4f1e0; }
    .origin_bdmodules .box { fill: #e3ecfa; }
    .origin_mvcc .box { fill: #f1e4f5; }
    .origin_archsh .box { fill: #eeeeee; stroke: #888; stroke-dasharray: 6 4; }
    .new .box { fill: #d7f5dd; stroke: #137333; stroke-width: 4px; }
    .reused .box { fill: #fff1c7; stroke: #a56a00; stroke-width: 4px; }
    .wire { stroke: #9aa5b5; stroke-width: 1.2px; fill: none; }

    """
}
