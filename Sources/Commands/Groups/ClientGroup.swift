import Domain

/// `client`: BDModules' APIServiceClient.
enum ClientGroup {
  static let group = CommandGroup(
    "client", summary: "GET a model through APIServiceClient (OAuth2Authorization, ModelFactory)",
    from: [.bdModules],
    discussion: """
      APIServiceClient sends the request through OAuth2Authorization (with the bearer token when \
      logged in, refreshing it on a 401) and maps the answer's data with ModelFactory's object \
      parser; the object must be of the TYPE asked for.
      """,
    commands: [get])

  /// `get TYPE`.
  static let typeArgument = Argument("TYPE", .text, "the API type expected, such as User") {
    context in ModelRegistry.bdModules.types.map(\.name).filter { $0.hasPrefix(context.prefix) }
  }
  /// `get PATH`.
  static let pathArgument = Argument("PATH", .text, "such as /users/me").concerning(.value)

  static let get = Command(
    "get", summary: "GET PATH and map its data as a TYPE",
    signature: Signature([typeArgument, pathArgument]),
    examples: ["client get User /users/me"],
    result: .record(["type", "kind", "uuid", "paging_id", "fields", "warnings"])
  ) { invocation in
    let typeWord = try invocation[typeArgument]
    let factory = invocation.session.factory
    guard let type = factory.model.registry.type(named: typeWord.text) else {
      throw ShellError(
        "no field mappers are registered for the type '\(typeWord.text)'",
        hint: "see 'model types'", at: typeWord.offset)
    }
    let client = try factory.api.apiServiceClient(type: type.name)
    let mapped = try client.performRequest(method: .get, path: try invocation[pathArgument].text)
    return ModelRendering.output(mapped, type: type)
  }
}
