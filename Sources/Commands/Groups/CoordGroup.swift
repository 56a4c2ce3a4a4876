import Domain

/// `coord`: the coordinator tree and the navigation stacks.
enum CoordGroup {
  static let group = CommandGroup(
    "coord", summary: "the coordinator tree and each coordinator's navigation stack",
    discussion: """
      A coordinator keeps child coordinators and a navigation stack of screens (a model of \
      UINavigationController), never a controller: a screen's controller is built with its \
      presenter when the screen is shown or sends an event. Names: \
      \(AppConfigurator.coordinatorNames.joined(separator: ", ")). The app is restored from \
      the workspace on first use.
      """,
    commands: [tree, stack])

  /// The running coordinators' names, or every name when the app is not in memory.
  static let names: CompletionProvider = { context in
    let names =
      context.session.app?.coordinators.map(\.name) ?? AppConfigurator.coordinatorNames
    return names.filter { $0.hasPrefix(context.prefix) }
  }

  static let tree = Command(
    "tree", summary: "the coordinators, each with its stack; as text, Mermaid or Graphviz",
    discussion: "← marks the coordinator whose screen is visible.",
    signature: Signature([
      .option(
        "format", .choice(["text", "mermaid", "dot"]), value: "FORMAT", "how to draw it",
        default: "text")
    ]),
    examples: ["coord tree", "coord tree --format mermaid"]
  ) { invocation in
    let app = try AppGroup.runningApp(invocation.session)
    switch invocation.arguments.string("format") {
    case "mermaid": return .diagram(format: "mermaid", text: mermaid(app))
    case "dot": return .diagram(format: "dot", text: dot(app))
    default: return .tree(tree(app))
    }
  }

  static let stack = Command(
    "stack", summary: "one coordinator's navigation stack, root first",
    signature: Signature([.argument("NAME", .text, "the coordinator", completion: names)]),
    examples: ["coord stack discover", "coord stack app"]
  ) { invocation in
    let name = invocation.arguments.word("NAME") ?? Word("")
    let app = try AppGroup.runningApp(invocation.session)
    let coordinator = try AppGroup.located(name) { () throws(NavigationError) in
      try app.coordinator(named: name.text)
    }
    let navigation = coordinator.navigationController
    let visible = app.visibleCoordinator === coordinator
    var rows: [[Value]] = navigation.screens.enumerated().map { index, screen in
      let isTop = index == navigation.screens.count - 1
      return [
        .int(index), .string(screen.description), .string(isTop ? "top" : "pushed"),
        .bool(visible && isTop && navigation.presentedScreen == nil),
      ]
    }
    if let presented = navigation.presentedScreen {
      rows.append([.null, .string(presented.description), .string("presented"), .bool(true)])
    }
    return .sequence([
      .text("\(coordinator.typeName): \(navigation.stackDescription)"),
      .table(Table(columns: ["position", "screen", "role", "visible"], rows: rows)),
    ])
  }

  // MARK: - Drawing

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
      return TreeNode(label, children: coordinator.children.map(node))
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
