import Domain

/// `factory`: the composition root that builds every controller, after BDModules' factories.
enum FactoryGroup {
  static let group = CommandGroup(
    "factory", summary: "the composition root that builds the controllers (BDModules factories)",
    discussion: """
      ApplicationFactory builds every controller the shell drives. As in BDModules, a singleton \
      (a lazy var there) is built on first use and shared; a prototype (a method there) is built \
      on every request. Later groups register their controllers here.
      """,
    commands: [graph, get])

  static let componentNames: CompletionProvider = { context in
    context.session.factory.components.map(\.name)
  }

  static let graph = Command(
    "graph", summary: "list the components: lifetime, type, whether built yet, dependencies",
    examples: ["factory graph"]
  ) { invocation in
    let factory = invocation.session.factory
    let rows = factory.components.map { component -> [Value] in
      let built: Value =
        component.lifetime == .singleton
        ? .bool(factory.isInstantiated(component.name)) : .string("per request")
      return [
        .string(component.name), .string(component.lifetime.rawValue), .string(component.typeName),
        built,
        .string(
          component.dependencies.isEmpty ? "-" : component.dependencies.joined(separator: ", ")),
      ]
    }
    return .table(Table(columns: ["name", "lifetime", "type", "built", "depends_on"], rows: rows))
  }

  static let get = Command(
    "get", summary: "ask the factory for a component, as a controller would",
    discussion:
      "A singleton is built the first time and returned afterwards; a prototype is built every time.",
    signature: Signature([.argument("NAME", .name, "the component", completion: componentNames)]),
    examples: ["factory get tracer"]
  ) { invocation in
    let name = invocation.arguments.word("NAME") ?? Word("")
    let product: FactoryProduct
    do {
      product = try invocation.session.factory.make(name.text)
    } catch {
      throw ShellError(String(describing: error), at: name.offset)
    }
    let obtained: String
    switch (product.component.lifetime, product.wasCreated) {
    case (.singleton, true): obtained = "built now, shared from here on"
    case (.singleton, false): obtained = "the shared instance"
    case (.prototype, _): obtained = "a new instance"
    }
    return .record([
      Field("name", .string(product.component.name)),
      Field("type", .string(product.component.typeName)),
      Field("lifetime", .string(product.component.lifetime.rawValue)),
      Field("instance", .string(obtained)),
      Field("summary", .string(product.component.summary)),
    ])
  }
}
