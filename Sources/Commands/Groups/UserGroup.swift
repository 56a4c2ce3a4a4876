import Domain

/// `user`: BDModules' UserAPI, with the credential `auth login` keeps.
enum UserGroup {
  static let group = CommandGroup(
    "user", summary: "the logged-in user from the API (UserAPI)",
    discussion: """
      UserAPI sends the stored access token as a bearer token. Until OAuth2Authorization lands, \
      a 401 (after 'auth expire', or a token another API granted) reaches you: 'auth refresh' \
      gets a new token.
      """,
    commands: [me])

  static let me = Command(
    "me", summary: "GET /users/me with the bearer token: the user in the response envelope",
    examples: ["user me"]
  ) { invocation in
    let data = try invocation.session.factory.api.userAPI().me()
    guard let json = try? StrictJSON.parse(data), case .object(let members) = json,
      let user = members.first(where: { $0.key == "data" })?.value,
      case .object(let fields) = JSONRenderer.value(fromJSON: user)
    else {
      throw ShellError("the API's answer to /users/me has no data object")
    }
    return .record(fields)
  }
}
