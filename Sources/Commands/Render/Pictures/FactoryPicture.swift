import Domain

/// The factory graph as SVG: one column per factory, each product a box (a singleton square, a
/// prototype rounded), an arrow from each dependency to the product it is injected into.
///
/// A product's class says what this session did with it: `new` (built by the last command),
/// `reused` (a singleton the last command was handed again), `built` (earlier), or `idle`.
enum FactoryPicture {
  /// What the last command did with a product.
  enum Mark {
    case new, reused
  }

  /// The graph, with `marks` from the last command.
  static func svg(_ graph: FactoryGraph, marks: [String: Mark] = [:]) -> String {
    let groups = FactoryDrawing.byFactory(graph).filter { !$0.1.isEmpty }
    let nameSize = 15.0
    let typeSize = 13.0
    let boxHeight = 50.0
    let rowGap = 12.0
    let columnGap = 90.0
    let top = 58.0
    let left = 16.0
    var widths: [Double] = []
    for (factory, nodes) in groups {
      let widest =
        nodes.map { node in
          max(
            SVG.textWidth(node.component.name, size: nameSize),
            SVG.textWidth(SVG.cut(node.component.typeName, 34), size: typeSize))
        }.max() ?? 0
      widths.append(max(widest, SVG.textWidth(factory, size: 17)) + 24)
    }
    var columnX: [Double] = []
    var nextX = left
    for width in widths {
      columnX.append(nextX)
      nextX += width + columnGap
    }
    var position: [String: (x: Double, y: Double, width: Double)] = [:]
    for (column, group) in groups.enumerated() {
      for (row, node) in group.1.enumerated() {
        position[node.component.name] = (
          columnX[column], top + Double(row) * (boxHeight + rowGap), widths[column]
        )
      }
    }
    let tallest = groups.map { Double($0.1.count) }.max() ?? 0
    let height = top + tallest * (boxHeight + rowGap) + 10
    let width = nextX - columnGap + left

    var svg = SVG()
    for (column, group) in groups.enumerated() {
      svg.text(group.0, x: columnX[column], y: 34, classes: "factory")
    }
    for node in graph.nodes {
      guard let to = position[node.component.name] else { continue }
      for dependency in node.dependencies {
        guard let from = position[dependency] else { continue }
        svg.open("edge", data: [("from", dependency), ("to", node.component.name)])
        let startY = from.y + boxHeight / 2
        let endY = to.y + boxHeight / 2
        if from.x == to.x {
          // Same factory: an arc on the column's right-hand side.
          let side = from.x + from.width
          let bulge = side + 26 + abs(endY - startY) * 0.08
          svg.path(
            "M\(SVG.number(side)) \(SVG.number(startY)) C\(SVG.number(bulge)) \(SVG.number(startY)) \(SVG.number(bulge)) \(SVG.number(endY)) \(SVG.number(side + 6)) \(SVG.number(endY))",
            classes: "wire")
        } else if from.x < to.x {
          let startX = from.x + from.width
          let endX = to.x - 6
          let middle = (startX + endX) / 2
          svg.path(
            "M\(SVG.number(startX)) \(SVG.number(startY)) C\(SVG.number(middle)) \(SVG.number(startY)) \(SVG.number(middle)) \(SVG.number(endY)) \(SVG.number(endX)) \(SVG.number(endY))",
            classes: "wire")
        } else {
          let startX = from.x
          let endX = to.x + to.width + 6
          let middle = (startX + endX) / 2
          svg.path(
            "M\(SVG.number(startX)) \(SVG.number(startY)) C\(SVG.number(middle)) \(SVG.number(startY)) \(SVG.number(middle)) \(SVG.number(endY)) \(SVG.number(endX)) \(SVG.number(endY))",
            classes: "wire")
        }
        svg.close()
      }
    }
    for node in graph.nodes {
      guard let at = position[node.component.name] else { continue }
      let state: String
      switch marks[node.component.name] {
      case .new: state = "new"
      case .reused: state = "reused"
      case nil: state = node.constructions > 0 ? "built" : "idle"
      }
      let shape = node.component.lifetime == .singleton ? "singleton" : "prototype"
      svg.open("node \(state) \(shape)", data: [("product", node.component.name)])
      svg.title(
        "\(node.component.name): \(node.component.typeName)\n\(FactoryDrawing.scope(node))"
          + (node.dependencies.isEmpty
            ? "" : "\n← " + node.dependencies.joined(separator: ", ")))
      svg.rect(
        x: at.x, y: at.y, width: at.width, height: boxHeight,
        radius: node.component.lifetime == .singleton ? 2 : 14, classes: "box")
      svg.text(node.component.name, x: at.x + 12, y: at.y + 21, classes: "name")
      svg.text(SVG.cut(node.component.typeName, 34), x: at.x + 12, y: at.y + 40, classes: "type")
      svg.close()
    }
    return svg.document(
      width: width, height: height, label: "factory graph", style: style, scope: "archsh-factories")
  }

  private static let style = """
    .factory { font-size: 17px; font-weight: bold; fill: #1a3d7c; }
    .box { fill: #fff; stroke: #9aa5b5; stroke-width: 1.5px; }
    .name { font-size: 15px; font-weight: bold; }
    .type { font-size: 13px; fill: #444; }
    .idle .name, .idle .type { fill: #666; }
    .built .box { fill: #eef3fb; stroke: #1a56c4; stroke-width: 2px; }
    .new .box { fill: #d7f5dd; stroke: #137333; stroke-width: 4px; }
    .reused .box { fill: #fff1c7; stroke: #a56a00; stroke-width: 4px; }
    .wire { stroke: #9aa5b5; stroke-width: 1.2px; fill: none; }

    """
}
