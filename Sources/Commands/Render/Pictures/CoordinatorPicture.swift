import Domain

/// The coordinator tree as SVG: each coordinator a box with its type, name and navigation stack,
/// children indented under their parent, the coordinator whose screen is visible drawn bold.
enum CoordinatorPicture {
  /// The tree of `app`.
  static func svg(_ app: AppConfigurator) -> String {
    let visible = app.visibleCoordinator
    var rows: [(depth: Int, coordinator: FlowCoordinator, parentRow: Int?)] = []
    func walk(_ coordinator: FlowCoordinator, depth: Int, parent: Int?) {
      let row = rows.count
      rows.append((depth, coordinator, parent))
      for child in coordinator.children { walk(child, depth: depth + 1, parent: row) }
    }
    walk(app, depth: 0, parent: nil)

    let indent = 36.0
    let boxHeight = 56.0
    let gap = 14.0
    let left = 16.0
    let top = 16.0
    let texts = rows.map { row -> (String, String) in
      var title = "\(row.coordinator.typeName) [\(row.coordinator.name)]"
      if row.coordinator === visible { title += "  ← visible" }
      return (title, CoordinatorDrawing.summary(row.coordinator, app: app))
    }
    let boxWidth =
      (texts.map { max(SVG.textWidth($0.0, size: 16), SVG.textWidth($0.1, size: 14)) }.max()
        ?? 200) + 28
    var svg = SVG()
    func y(_ row: Int) -> Double { top + Double(row) * (boxHeight + gap) }
    func x(_ depth: Int) -> Double { left + Double(depth) * indent }
    for (index, row) in rows.enumerated() {
      if let parent = row.parentRow {
        let px = x(rows[parent].depth) + 14
        svg.path(
          "M\(SVG.number(px)) \(SVG.number(y(parent) + boxHeight)) V\(SVG.number(y(index) + boxHeight / 2)) H\(SVG.number(x(row.depth)))",
          classes: "edge")
      }
    }
    for (index, row) in rows.enumerated() {
      let isVisible = row.coordinator === visible
      svg.open(
        "coordinator" + (isVisible ? " visible" : ""),
        data: [("coordinator", row.coordinator.typeName), ("name", row.coordinator.name)])
      svg.title("\(texts[index].0)\n\(texts[index].1)")
      svg.rect(
        x: x(row.depth), y: y(index), width: boxWidth, height: boxHeight, radius: 8,
        classes: isVisible ? "box visible" : "box")
      svg.text(texts[index].0, x: x(row.depth) + 14, y: y(index) + 23, classes: "title")
      svg.text(texts[index].1, x: x(row.depth) + 14, y: y(index) + 44, classes: "stack")
      svg.close()
    }
    let depth = rows.map { $0.depth }.max() ?? 0
    return svg.document(
      width: left * 2 + Double(depth) * indent + boxWidth,
      height: top * 2 + Double(rows.count) * (boxHeight + gap) - gap,
      label: "coordinator tree", style: style, scope: "archsh-coordinators")
  }

  private static let style = """
    .box { fill: #f7f9fc; stroke: #5b6b82; stroke-width: 1.5px; }
    .box.visible { fill: #e3f6e8; stroke: #137333; stroke-width: 4px; }
    .title { font-size: 16px; font-weight: bold; }
    .stack { font-size: 14px; fill: #333; }
    .edge { stroke: #5b6b82; stroke-width: 2px; fill: none; }

    """
}
