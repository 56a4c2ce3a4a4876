import Domain

/// `user`: BDModules' UserAPI, with the credential and the user `auth login` keeps.
enum UserGroup {
  static let group = CommandGroup(
    "user", summary: "the logged-in user from the API (UserAPI)",
    from: [.bdModules],
    discussion: """
      UserAPI's me() goes through its APIServiceClient for User: OAuth2Authorization sends the \
      stored bearer token and, on a 401, refreshes it once and replays the request; ModelFactory \
      maps the answer's data into a User model object. As in the seed, me() hands the user to \
      AccountUserProvider's userPersistenceHandler, which keeps it in the workspace beside the \
      credential: 'auth login' stores it, each 'user me' replaces it, and 'user me --cached' and \
      'auth show' read it without a request.
      """,
    commands: [me],
    hints: hint(for:))

  /// The shell's hints for UserAPIError; an authorization failure gets the hint its group gives.
  static func hint(for error: Error) -> String? {
    switch error {
    case UserAPIError.notLoggedIn:
      return "log in with 'auth login EMAIL'"
    case UserAPIError.userNotFetched:
      return "'user me' fetches the user again; 'auth show' shows the stored login"
    case UserAPIError.network(.http(401, _, _)):
      return "the access token expired or is unknown to this API: 'auth refresh', or 'auth login'"
    case UserAPIError.authorization(let error):
      return Diagnosis.hint(for: error)
    default: return nil
    }
  }
  /// `me --cached`.
  static let cachedFlag = Flag(
    "cached", "show the user stored at login (or by the last 'user me'), without a request")

  static let me = Command(
    "me", summary: "GET /users/me: the logged-in user, as a model object, kept in the workspace",
    signature: Signature([cachedFlag]),
    examples: ["user me", "user me --cached"],
    // An object of a type with no field mappers is shown as the API sent it.
    result: .oneOf([.record(["type", "kind", "uuid", "paging_id", "fields", "warnings"]), .value])
  ) { invocation in
    let factory = invocation.session.factory
    let provider = try factory.api.accountUserProvider
    let mapped: MappedObject
    if invocation[cachedFlag] {
      guard let stored = try provider.user() else {
        guard try provider.credential() != nil else {
          throw ShellError(
            "nobody is logged in, so no user is stored", hint: "log in with 'auth login EMAIL'")
        }
        throw ShellError(
          "no user is stored with the credential",
          hint: "'user me' fetches the user and stores it")
      }
      mapped = stored
    } else {
      mapped = try factory.api.userAPI().me(
        userPersistenceHandler: provider.userPersistenceHandler())
    }
    guard let type = factory.model.registry.type(named: mapped.object.type) else {
      return .view(text: mapped.object.type, data: ModelRendering.value(of: mapped.object))
    }
    return ModelRendering.output(mapped, type: type)
  }
}
