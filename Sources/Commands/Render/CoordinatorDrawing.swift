import Domain

/// The coordinator tree drawn for people (a tree), for Mermaid and for Graphviz.
enum CoordinatorDrawing {
  /// What a coordinator shows next to its name: its stack, tab and alert.
  static func summary(_ coordinator: FlowCoordinator, app: AppConfigurator) -> String {
    var parts: [String] = []
    if coordinator === app {
      parts.append("flow: \(app.flow.rawValue)")
    } else {
      parts.append(coordinator.navigationController.stackDescription)
    }
    if let tabBar = coordinator as? TabBarContainer {
      parts.append("tab: \(tabBar.selectedTab.rawValue)")
    }
    if let presented = coordinator.navigationController.presentedScreen {
      parts.append("presents \(presented)")
    }
    return parts.joined(separator: ", ")
  }

  /// The tree for people.
  static func tree(_ app: AppConfigurator) -> TreeNode {
    let visible = app.visibleCoordinator
    func node(_ coordinator: FlowCoordinator) -> TreeNode {
      var label =
        "\(coordinator.typeName) [\(coordinator.name)]  \(summary(coordinator, app: app))"
      if coordinator === visible { label += "  ← visible" }
      let navigation = coordinator.navigationController
      let fields = [
        Field("name", .string(coordinator.name)),
        Field("type", .string(coordinator.typeName)),
        Field("flow", coordinator === app ? .string(app.flow.rawValue) : .null),
        Field("screen", navigation.topScreen.map { .string($0.description) } ?? .null),
        Field("stack", .list(navigation.screens.map { .string($0.description) })),
        Field(
          "tab", (coordinator as? TabBarContainer).map { .string($0.selectedTab.rawValue) } ?? .null
        ),
        Field("presents", navigation.presentedScreen.map { .string($0.description) } ?? .null),
        Field("visible", .bool(coordinator === visible)),
      ]
      return TreeNode(label, children: coordinator.children.map(node), fields: fields)
    }
    return node(app)
  }

  /// A Mermaid flowchart of the same tree.
  static func mermaid(_ app: AppConfigurator) -> String {
    var lines = ["flowchart TD"]
    for coordinator in app.coordinators {
      let label = "\(coordinator.typeName)<br/>\(summary(coordinator, app: app))"
        .replacingOccurrences(of: "\"", with: "#quot;")
      lines.append("  \(coordinator.name)[\"\(label)\"]")
    }
    for coordinator in app.coordinators {
      for child in coordinator.children { lines.append("  \(coordinator.name) --> \(child.name)") }
    }
    lines.append("  style \(app.visibleCoordinator.name) stroke-width:3px")
    return lines.joined(separator: "\n")
  }

  /// A Graphviz digraph of the same tree.
  static func dot(_ app: AppConfigurator) -> String {
    var lines = ["digraph coordinators {", "  node [shape=box];"]
    for coordinator in app.coordinators {
      let label = "\(coordinator.typeName)\\n\(summary(coordinator, app: app))"
        .replacingOccurrences(of: "\"", with: "\\\"")
      let bold = coordinator === app.visibleCoordinator ? ", penwidth=3" : ""
      lines.append("  \(coordinator.name) [label=\"\(label)\"\(bold)];")
    }
    for coordinator in app.coordinators {
      for child in coordinator.children { lines.append("  \(coordinator.name) -> \(child.name);") }
    }
    lines.append("}")
    return lines.joined(separator: "\n")
  }
}
