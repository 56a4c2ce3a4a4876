import Domain

/// `coord`: the coordinator tree and the navigation stacks.
enum CoordGroup {
  static let group = CommandGroup(
    "coord", summary: "the coordinator tree and each coordinator's navigation stack",
    from: [.mvcc],
    discussion: """
      A coordinator keeps child coordinators and a navigation stack of screens (a model of \
      UINavigationController), never a controller: a screen's controller is built with its \
      presenter when the screen is shown or sends an event. Names: \
      \(AppConfigurator.coordinatorNames.joined(separator: ", ")). The app is restored from \
      the workspace on first use.
      """,
    commands: [tree, stack])

  // MARK: - Parameters

  /// `coord tree --format FORMAT`.
  static let formatOption = Option(
    "format", Kind<GraphFormat>.choice, value: "FORMAT", "how to draw it", default: "text")
  /// `coord stack NAME`.
  static let nameArgument = Argument(
    "NAME", .text, "the coordinator", completion: RunningApp.coordinatorNames
  ).concerning(.coordinator)

  // MARK: - Commands

  static let tree = Command(
    "tree", summary: "the coordinators, each with its stack; as text, Mermaid, Graphviz or SVG",
    discussion: "← marks the coordinator whose screen is visible.",
    signature: Signature([formatOption]),
    examples: ["coord tree", "coord tree --format mermaid", "coord tree --format svg"],
    result: .oneOf([
      .tree(["name", "type", "flow", "screen", "stack", "tab", "presents", "visible"]), .diagram,
    ])
  ) { invocation in
    let app = try RunningApp.app(invocation.session)
    switch invocation[formatOption] ?? .text {
    case .mermaid: return .diagram(format: "mermaid", text: CoordinatorDrawing.mermaid(app))
    case .dot: return .diagram(format: "dot", text: CoordinatorDrawing.dot(app))
    case .svg: return .diagram(format: "svg", text: CoordinatorPicture.svg(app))
    case .text: return .tree(CoordinatorDrawing.tree(app))
    }
  }

  static let stack = Command(
    "stack", summary: "one coordinator's navigation stack, root first",
    signature: Signature([nameArgument]),
    examples: ["coord stack discover", "coord stack app"],
    result: .sequence([
      .record(["coordinator", "name", "stack"]), .rows(["position", "screen", "role", "visible"]),
    ])
  ) { invocation in
    let name = try invocation[nameArgument]
    let app = try RunningApp.app(invocation.session)
    let coordinator = try app.coordinator(named: name.text)
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
      .sentence(
        "\(coordinator.typeName): \(navigation.stackDescription)",
        [
          Field("coordinator", .string(coordinator.typeName)),
          Field("name", .string(name.text)),
          Field("stack", .string(navigation.stackDescription)),
        ]),
      .table(Table(columns: ["position", "screen", "role", "visible"], rows: rows)),
    ])
  }
}
