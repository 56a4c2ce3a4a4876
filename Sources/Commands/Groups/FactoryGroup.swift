import Domain
import Plumbing

/// `factory`: the composition root that builds every controller, after BDModules' factories.
enum FactoryGroup {
  static let group = CommandGroup(
    "factory", summary: "the composition root that builds every controller (BDModules factories)",
    from: [.bdModules],
    discussion: """
      ApplicationFactory creates the other factories (APIFactory, ModelFactory, JSONFactory, \
      DataSourceFactory, EntryFactory, MainFactory), and they build every controller the shell \
      drives, down to each DataSourceController, NavigationController, TableViewProvider, \
      translator and JSON coder. As in BDModules, a singleton (a lazy var there, a property here) \
      is built on first use and shared; a prototype (a method) is built on every request. \
      The rule, from BDModules' README (Scope): public lazy instance variables are retained for \
      the factory's lifetime and are how singletons are kept and injected throughout the \
      application; public methods return prototypes, new with each call. So, wiring a new API: \
      what every user must share one of (a logger, the JSON serializer, the token's \
      OAuth2Authorization) is a lazy var; what each user configures or owns alone (a view \
      controller, a request's session manager) is a method. Each \
      product is declared once, typed by what it builds, and its type's name is the Swift type's \
      own. What a product is injected with is not declared anywhere: the factories record what \
      each builder asks them for, so the graph shows the real architecture.
      """,
    commands: [list, graph, get])

  static let componentNames: CompletionProvider = { context in
    context.session.factory.components.map(\.name).filter { $0.hasPrefix(context.prefix) }
  }

  /// `graph --format`: how to draw the graph.
  static let formatOption = Option(
    "format", Kind<GraphFormat>.choice, value: "FORMAT", "how to draw it", default: "text")
  /// `get NAME`: the product to ask for.
  static let nameArgument = Argument("NAME", .name, "the product", completion: componentNames)
  /// `graph [NAME]`: the product to draw with what it is built from and what it is injected into.
  static let focusArgument = Option.argument(
    "NAME", .name, "draw only this product, what it is built from and what it is injected into",
    completion: componentNames)
  /// `list --built`, `graph --built`: only what this session has built.
  static let builtFlag = Flag("built", "only the products this session has built")

  static let list = Command(
    "list", summary: "every product: its factory, scope, origin, type, times built, what it is",
    discussion: """
      'built' counts what this session has built: 1 for a singleton built (0 until it is first \
      asked for), and one for each instance of a prototype. 'origin' says whose the product is: \
      Lickability (000/001), DataSourceController (002), BDModules (003), MVC+C (004), or \
      archsh's own (the workspace, the tracer, the embedded API, the log book and the stores \
      that keep state between runs), which no original factory had. With --built, only the \
      products this session has built are listed.
      """,
    signature: Signature([builtFlag]),
    examples: ["factory list", "factory list --built"],
    result: .rows(["name", "factory", "scope", "origin", "type", "built", "summary"])
  ) { invocation in
    let factory = invocation.session.factory
    let onlyBuilt = invocation[builtFlag]
    let components = factory.components.filter {
      !onlyBuilt || factory.constructionCount($0.name) > 0
    }
    let rows = components.map { component -> [Value] in
      [
        .string(component.name), .string(component.factory), .string(component.lifetime.rawValue),
        .string(component.origin.label), .string(component.typeName),
        .int(factory.constructionCount(component.name)), .string(component.summary),
      ]
    }
    return .table(
      Table(
        columns: ["name", "factory", "scope", "origin", "type", "built", "summary"], rows: rows))
  }

  static let graph = Command(
    "graph", summary: "who builds what and who is injected into whom; as text, Mermaid or Graphviz",
    discussion: """
      Each factory builds the products under it; an arrow from a product to another (← in the \
      text) means the first is injected into the second when it is built. The arrows are \
      recorded, not declared: archsh builds every product once in a scratch composition root \
      (an in-memory workspace, and a demo API that is never started), the factories note what \
      each builder asks them for, and what this session's own builds asked for is added. A \
      product given a way to make another later (OAuth2Authorization its session managers, a \
      screen its table view providers) depends on it too. The tracer, which every controller \
      reports to, is held by the root and not drawn. Each product shows what this session has \
      built: a singleton 'built', a prototype how many times it was made. Singletons are drawn \
      as boxes, prototypes as rounded boxes, and what was built in bold. Each product says \
      whose it is: the text names its origin, and the pictures draw archsh's own products \
      dashed and grey, apart from the seeds' (a legend gives each origin's colour). With NAME, \
      only that product is drawn, with everything it is built from (all the way down) and the \
      products it is injected into; with --built, only what this session has built. A part of \
      the graph draws only the arrows between the products it shows.
      """,
    signature: Signature([focusArgument, builtFlag, formatOption]),
    examples: [
      "factory graph", "factory graph productUpdater", "factory graph --built",
      "factory graph --format mermaid", "factory graph --format dot", "factory graph --format svg",
    ],
    result: .oneOf([
      .tree(["factory", "product", "type", "scope", "origin", "built", "injected"]), .diagram,
    ])
  ) { invocation in
    var graph = invocation.session.factory.graph()
    if let name = invocation[focusArgument] {
      graph = try around(name, in: graph)
    }
    if invocation[builtFlag] { graph = graph.restricted { $0.constructions > 0 } }
    switch invocation[formatOption] ?? .text {
    case .mermaid: return .diagram(format: "mermaid", text: FactoryDrawing.mermaid(graph))
    case .dot: return .diagram(format: "dot", text: FactoryDrawing.dot(graph))
    case .svg: return .diagram(format: "svg", text: FactoryPicture.svg(graph))
    case .text: return .tree(FactoryDrawing.tree(graph))
    }
  }

  /// The part of `graph` around the product `name`: it, what it is built from (all the way down),
  /// and what it is injected into.
  static func around(_ name: Word, in graph: FactoryGraph) throws(ShellError) -> FactoryGraph {
    let byName = Dictionary(
      graph.nodes.map { ($0.component.name, $0) }, uniquingKeysWith: { first, _ in first })
    guard byName[name.text] != nil else {
      let nearest = Suggestion.nearest(to: name.text, among: graph.nodes.map(\.component.name))
      throw ShellError(
        "unknown component '\(name.text)'",
        hint: nearest.map { "did you mean '\($0)'?" } ?? "'factory list' lists them",
        at: name.offset)
    }
    var kept: Set<String> = [name.text]
    var pending = [name.text]
    while let next = pending.popLast() {
      for dependency in byName[next]?.dependencies ?? [] where kept.insert(dependency).inserted {
        pending.append(dependency)
      }
    }
    for node in graph.nodes where node.dependencies.contains(name.text) {
      kept.insert(node.component.name)
    }
    return graph.restricted { kept.contains($0.component.name) }
  }

  static let get = Command(
    "get", summary: "ask the factory for a product, as a controller would, and show its identity",
    discussion: """
      A singleton is built the first time and returned afterwards, so two requests show the same \
      instance; a prototype is built every time, so two requests show two.
      """,
    signature: Signature([nameArgument]),
    examples: ["factory get tracer", "factory get productUpdater"],
    result: .record(["name", "factory", "type", "scope", "instance", "id", "summary"])
  ) { invocation in
    let name = try invocation[nameArgument]
    let product = try invocation.session.factory.make(name.text)
    let obtained: String
    switch (product.component.lifetime, product.wasCreated) {
    case (.singleton, true): obtained = "built now, shared from here on"
    case (.singleton, false): obtained = "the shared instance"
    case (.prototype, _): obtained = "a new instance"
    }
    return .record([
      Field("name", .string(product.component.name)),
      Field("factory", .string(product.component.factory)),
      Field("type", .string(product.component.typeName)),
      Field("scope", .string(product.component.lifetime.rawValue)),
      Field("instance", .string(obtained)),
      Field("id", .string(product.identity)),
      Field("summary", .string(product.component.summary)),
    ])
  }
}
