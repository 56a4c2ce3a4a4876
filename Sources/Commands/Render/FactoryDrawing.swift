import Domain

/// The factories' products drawn as a tree for people, for Mermaid and for Graphviz, each with
/// what its builder resolved and what this session has built.
enum FactoryDrawing {
  /// The factories in order, each with its products; a factory none of whose products is drawn
  /// (in a part of the graph) is left out, but for the root.
  static func byFactory(_ graph: FactoryGraph) -> [(String, [FactoryGraph.Node])] {
    ApplicationFactory.factoryNames.compactMap { name in
      let nodes = graph.nodes.filter { $0.component.factory == name }
      return nodes.isEmpty && name != "ApplicationFactory" ? nil : (name, nodes)
    }
  }

  /// What this session has built of a product: `built` for a singleton built, `made N times` for a
  /// prototype made; nil when nothing was.
  static func built(_ node: FactoryGraph.Node) -> String? {
    guard node.constructions > 0 else { return nil }
    switch (node.component.lifetime, node.constructions) {
    case (.singleton, 1): return "built"
    case (.singleton, let count): return "built \(count) times"
    case (.prototype, 1): return "made once"
    case (.prototype, let count): return "made \(count) times"
    }
  }

  /// The scope, with what this session has built: `singleton, built`, `prototype, made 2 times`.
  static func scope(_ node: FactoryGraph.Node) -> String {
    let lifetime = node.component.lifetime.rawValue
    return built(node).map { "\(lifetime), \($0)" } ?? lifetime
  }

  /// ApplicationFactory, the factories it creates, and each product with what is injected.
  static func tree(_ graph: FactoryGraph) -> TreeNode {
    let groups = byFactory(graph)
    func products(_ list: [FactoryGraph.Node]) -> [TreeNode] {
      list.map { node in
        let injected =
          node.dependencies.isEmpty ? "" : " ← \(node.dependencies.joined(separator: ", "))"
        return TreeNode(
          "\(node.component.name): \(node.component.typeName) (\(scope(node)))\(injected)",
          detail: node.component.origin.label,
          fields: [
            Field("product", .string(node.component.name)),
            Field("type", .string(node.component.typeName)),
            Field("scope", .string(node.component.lifetime.rawValue)),
            Field("origin", .string(node.component.origin.label)),
            Field("built", .int(node.constructions)),
            Field("injected", .list(node.dependencies.map(Value.string))),
          ])
      }
    }
    func factory(_ name: String, _ children: [TreeNode]) -> TreeNode {
      TreeNode(name, children: children, fields: [Field("factory", .string(name))])
    }
    let root = groups.first { $0.0 == "ApplicationFactory" }?.1 ?? []
    let children = groups.filter { $0.0 != "ApplicationFactory" }.map { name, list in
      factory(name, products(list))
    }
    return factory("ApplicationFactory", products(root) + children)
  }

  /// A Mermaid flowchart: factories as subgraphs, injections as arrows, built singletons and
  /// made prototypes in the class `built`.
  static func mermaid(_ graph: FactoryGraph) -> String {
    var lines = ["flowchart LR", "  classDef built stroke-width:3px"]
    for origin in Origin.allCases {
      lines.append("  classDef \(originClass(origin)) \(mermaidStyle(origin))")
    }
    for (factory, list) in byFactory(graph) {
      lines.append("  subgraph \(factory)")
      for node in list {
        let type = node.component.typeName.replacingOccurrences(of: "<", with: "&lt;")
          .replacingOccurrences(of: ">", with: "&gt;")
        let made = built(node).map { "<br/>\($0)" } ?? ""
        let label = "\(node.component.name)<br/>\(type)\(made)"
        let shape = node.component.lifetime == .singleton ? "[\"\(label)\"]" : "(\"\(label)\")"
        lines.append("    \(node.component.name)\(shape)")
      }
      lines.append("  end")
    }
    for node in graph.nodes {
      for dependency in node.dependencies {
        lines.append("  \(dependency) --> \(node.component.name)")
      }
    }
    for origin in Origin.allCases {
      let members = graph.nodes.filter { $0.component.origin == origin }.map(\.component.name)
      if !members.isEmpty {
        lines.append("  class \(members.joined(separator: ",")) \(originClass(origin))")
      }
    }
    let built = graph.nodes.filter { $0.constructions > 0 }.map(\.component.name)
    if !built.isEmpty { lines.append("  class \(built.joined(separator: ",")) built") }
    return lines.joined(separator: "\n")
  }

  /// The class name an origin's products have in Mermaid and SVG: `origin_bdmodules`.
  static func originClass(_ origin: Origin) -> String {
    switch origin {
    case .lickability: return "origin_lickability"
    case .dataSourceController: return "origin_datasourcecontroller"
    case .bdModules: return "origin_bdmodules"
    case .mvcc: return "origin_mvcc"
    case .archsh: return "origin_archsh"
    }
  }

  /// The fill colour of an origin's products in every picture; archsh's own are grey.
  static func fill(_ origin: Origin) -> String {
    switch origin {
    case .lickability: return "#fde9d9"
    case .dataSourceController: return "#e4f1e0"
    case .bdModules: return "#e3ecfa"
    case .mvcc: return "#f1e4f5"
    case .archsh: return "#eeeeee"
    }
  }

  /// An origin's Mermaid style: its fill, and a dashed grey outline for archsh's own.
  static func mermaidStyle(_ origin: Origin) -> String {
    origin == .archsh
      ? "fill:\(fill(origin)),stroke:#888,stroke-dasharray:5 4,color:#555"
      : "fill:\(fill(origin))"
  }

  /// A Graphviz digraph: factories as clusters, injections as edges, what was built drawn bold.
  static func dot(_ graph: FactoryGraph) -> String {
    var lines = ["digraph factories {", "  rankdir=LR;", "  node [shape=box];"]
    for (index, (factory, list)) in byFactory(graph).enumerated() {
      lines.append("  subgraph cluster_\(index) {")
      lines.append("    label=\"\(factory)\";")
      for node in list {
        var styles = node.component.lifetime == .singleton ? ["filled"] : ["rounded", "filled"]
        if node.constructions > 0 { styles.append("bold") }
        if node.component.origin == .archsh { styles.append("dashed") }
        let style =
          ", style=\"\(styles.joined(separator: ","))\", fillcolor=\"\(fill(node.component.origin))\""
        let made = built(node).map { "\\n\($0)" } ?? ""
        let label = "\(node.component.name)\\n\(node.component.typeName)\(made)"
        lines.append("    \(node.component.name) [label=\"\(label)\"\(style)];")
      }
      lines.append("  }")
    }
    for node in graph.nodes {
      for dependency in node.dependencies {
        lines.append("  \(dependency) -> \(node.component.name);")
      }
    }
    lines.append("}")
    return lines.joined(separator: "\n")
  }
}
