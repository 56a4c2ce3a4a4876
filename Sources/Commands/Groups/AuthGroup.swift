import Domain
import Foundation

/// `auth`: BDModules' OAuth2 against the demo API: OAuth2SessionManager and AccountUserProvider.
enum AuthGroup {
  static let group = CommandGroup(
    "auth", summary: "log in with OAuth2 and keep the credential (OAuth2SessionManager)",
    discussion: """
      OAuth2SessionManager posts a password grant or a refresh grant to the API's /oauth/token \
      as the client 'archsh'; AccountUserProvider keeps the credential it gets (access and \
      refresh token) with the email. On iOS the seed keeps them in the keychain; here they live \
      in the workspace's 'user' store, in a file of mode 0600, so a later session is still logged \
      in. Tokens are only ever shown redacted to their last four characters, and a line that \
      holds a password never reaches the history or a trace.
      The demo API's account is ada@example.com with the password lovelace; 'serve --user' adds \
      accounts. A password comes from a prompt without echo at a terminal, from a variable set \
      with 'set NAME VALUE --secret', or from the first line of standard input with \
      --password-stdin.
      """,
    commands: [login, show, refresh, expire, logout])

  /// `login EMAIL`.
  static let emailArgument = Argument("EMAIL", .text, "the account's email").concerning(.value)
  /// `login [PASSWORD]`: secret, so the line stays out of history.
  static let passwordArgument = Option.argument(
    "PASSWORD", .text, "the password; better a variable set with --secret", secret: true)
  /// `login --password-stdin`.
  static let passwordStdinFlag = Flag(
    "password-stdin", "read the password from the first line of standard input")

  static let login = Command(
    "login", summary: "get a credential with a password grant and keep it",
    signature: Signature([
      emailArgument, passwordArgument, passwordStdinFlag,
    ]),
    examples: [
      "auth login ada@example.com $password", "auth login ada@example.com --password-stdin",
    ]
  ) { invocation in
    let email = try invocation[emailArgument]
    let password = try password(invocation, email: email)
    let api = invocation.session.factory.api
    let credential = try api.oAuth2SessionManager().tokenGrant(
      username: email.text, password: password
    ).get()
    try api.accountUserProvider.logIn(email: email.text)
    return record(email: email.text, credential: credential)
  }

  static let show = Command(
    "show", summary: "the logged-in account and its tokens, redacted",
    examples: ["auth show"]
  ) { invocation in
    let provider = try invocation.session.factory.api.accountUserProvider
    guard let credential = try provider.credential() else {
      return .record([Field("logged_in", .bool(false))])
    }
    return record(email: try provider.email() ?? "", credential: credential)
  }

  static let refresh = Command(
    "refresh", summary: "spend the refresh token for a new credential",
    examples: ["auth refresh"]
  ) { invocation in
    let api = invocation.session.factory.api
    let provider = try api.accountUserProvider
    guard let current = try provider.credential() else { throw OAuth2Error.notLoggedIn }
    let credential = try api.oAuth2SessionManager().refreshToken(current.refreshToken).get()
    return record(email: try provider.email() ?? "", credential: credential)
  }

  static let expire = Command(
    "expire", summary: "make the embedded API expire its access tokens now",
    discussion: "The next protected request gets 401; the refresh token still works.",
    examples: ["auth expire"]
  ) { invocation in
    let count = try invocation.session.factory.api.embeddedAPI.expireAccessTokens()
    return .text("expired \(plural(count, "access token")); the next protected request gets 401")
  }

  static let logout = Command(
    "logout", summary: "forget the account and its credential",
    examples: ["auth logout"]
  ) { invocation in
    try invocation.session.factory.api.accountUserProvider.logOut()
    return .text("logged out")
  }

  // MARK: - Helpers

  /// The password: the argument, standard input's first line, or a prompt without echo.
  static func password(_ invocation: Invocation, email: Word) throws -> String {
    if let given = invocation[passwordArgument] {
      return given.text
    }
    if invocation[passwordStdinFlag] {
      guard let line = PasswordInput.firstLineOfStandardInput(), !line.isEmpty else {
        throw ShellError(
          "--password-stdin found no password on standard input",
          hint: "for example: echo \"$PASSWORD\" | archsh -c 'auth login EMAIL --password-stdin'")
      }
      return line
    }
    guard PasswordInput.canPrompt, let typed = PasswordInput.prompt("password for \(email.text): ")
    else {
      throw ShellError(
        "'auth login' needs a password",
        hint: "give a variable set with --secret, or --password-stdin",
        at: email.offset)
    }
    return typed
  }

  static func record(email: String, credential: OAuth2Credential) -> Output {
    .record([
      Field("email", .string(email)),
      Field("access_token", .string(OAuth2Credential.redacted(credential.accessToken))),
      Field("refresh_token", .string(OAuth2Credential.redacted(credential.refreshToken))),
      Field("stored_in", .string("the workspace's 'user' store (a keychain on iOS)")),
    ])
  }
}
