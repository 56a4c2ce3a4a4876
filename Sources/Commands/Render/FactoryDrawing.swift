import Domain

/// The factories' products drawn as a tree for people, for Mermaid and for Graphviz.
enum FactoryDrawing {
  /// The factories in order, each with its products.
  static func byFactory(_ components: [FactoryComponent]) -> [(String, [FactoryComponent])] {
    ApplicationFactory.factoryNames.map { name in (name, components.filter { $0.factory == name }) }
  }

  /// ApplicationFactory, the factories it creates, and each product with what is injected.
  static func tree(_ components: [FactoryComponent]) -> TreeNode {
    let groups = byFactory(components)
    func products(_ list: [FactoryComponent]) -> [TreeNode] {
      list.map { component in
        let injected =
          component.dependencies.isEmpty
          ? "" : " ← \(component.dependencies.joined(separator: ", "))"
        return TreeNode(
          "\(component.name): \(component.typeName) (\(component.lifetime.rawValue))\(injected)")
      }
    }
    let root = groups.first { $0.0 == "ApplicationFactory" }?.1 ?? []
    let children = groups.filter { $0.0 != "ApplicationFactory" }.map { name, list in
      TreeNode(name, children: products(list))
    }
    return TreeNode("ApplicationFactory", children: products(root) + children)
  }

  /// A Mermaid flowchart: factories as subgraphs, injections as arrows.
  static func mermaid(_ components: [FactoryComponent]) -> String {
    var lines = ["flowchart LR"]
    for (factory, list) in byFactory(components) {
      lines.append("  subgraph \(factory)")
      for component in list {
        let type = component.typeName.replacingOccurrences(of: "<", with: "&lt;")
          .replacingOccurrences(of: ">", with: "&gt;")
        let label = "\(component.name)<br/>\(type)"
        let shape =
          component.lifetime == .singleton ? "[\"\(label)\"]" : "(\"\(label)\")"
        lines.append("    \(component.name)\(shape)")
      }
      lines.append("  end")
    }
    for component in components {
      for dependency in component.dependencies {
        lines.append("  \(dependency) --> \(component.name)")
      }
    }
    return lines.joined(separator: "\n")
  }

  /// A Graphviz digraph: factories as clusters, injections as edges.
  static func dot(_ components: [FactoryComponent]) -> String {
    var lines = ["digraph factories {", "  rankdir=LR;", "  node [shape=box];"]
    for (index, (factory, list)) in byFactory(components).enumerated() {
      lines.append("  subgraph cluster_\(index) {")
      lines.append("    label=\"\(factory)\";")
      for component in list {
        let style = component.lifetime == .singleton ? "" : ", style=rounded"
        lines.append(
          "    \(component.name) [label=\"\(component.name)\\n\(component.typeName)\"\(style)];")
      }
      lines.append("  }")
    }
    for component in components {
      for dependency in component.dependencies {
        lines.append("  \(dependency) -> \(component.name);")
      }
    }
    lines.append("}")
    return lines.joined(separator: "\n")
  }
}
