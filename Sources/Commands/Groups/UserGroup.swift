import Domain

/// `user`: BDModules' UserAPI, with the credential `auth login` keeps.
enum UserGroup {
  static let group = CommandGroup(
    "user", summary: "the logged-in user from the API (UserAPI)",
    discussion: """
      UserAPI's me() goes through its APIServiceClient for User: OAuth2Authorization sends the \
      stored bearer token and, on a 401, refreshes it once and replays the request; ModelFactory \
      maps the answer's data into a User model object.
      """,
    commands: [me])

  static let me = Command(
    "me", summary: "GET /users/me: the logged-in user, as a model object",
    examples: ["user me"]
  ) { invocation in
    let factory = invocation.session.factory
    let mapped = try factory.api.userAPI().me()
    guard let type = factory.model.registry.type(named: mapped.object.type) else {
      return .text(mapped.object.type)
    }
    return ModelRendering.output(mapped, type: type)
  }
}
