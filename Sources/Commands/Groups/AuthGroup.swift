import Domain
import Foundation

/// `auth`: BDModules' OAuth2 against the demo API: OAuth2SessionManager and AccountUserProvider.
enum AuthGroup {
  static let group = CommandGroup(
    "auth", summary: "log in with OAuth2 and keep the credential (OAuth2SessionManager)",
    from: [.bdModules],
    discussion: """
      'auth login' is the seed's UserAPI.login: OAuth2SessionManager posts a password grant to \
      the API's /oauth/token as the client 'archsh', then UserAPI's me() fetches the user \
      (GET /users/me). AccountUserProvider keeps what they get: the credential (access and \
      refresh token) through its OAuth2SessionManagerDelegate, with the email, and the User \
      through its userPersistenceHandler, as the JSON object the API sent, mapped again by \
      ModelFactory when it is read. If the grant succeeds and me() fails, the login says so: \
      the credential is kept, no user is stored, and 'user me' fetches it later. (The seed \
      keeps an earlier login's user until me() answers; archsh forgets it once the grant \
      succeeds, so that a failed me() never leaves another account's user beside the new \
      credential.) On iOS the seed \
      keeps the credential and the user in the keychain; here they live in the workspace's \
      'user' store, in a file of mode 0600, so a later session is still logged in. 'auth show' \
      and 'user me --cached' show them without a request; 'auth logout' forgets all of it.
      As in the seed, OAuth2SessionManager is an APISessionManager: its grants go out as a JSON \
      body (client_id, client_secret, grant_type, then username and password, or \
      refresh_token), and it reads access_token and refresh_token at the top level of the \
      answer, beside "code":"OK" (where the seed force-unwraps them, a missing token is an \
      error that names it). Tokens are only ever shown redacted to their last four \
      characters, and a line that holds a password never reaches the history or a trace.
      The demo API's account is ada@example.com with the password lovelace; 'serve --user' adds \
      accounts. A password comes from a prompt without echo at a terminal, from a variable set \
      with 'set NAME VALUE --secret', or from the first line of standard input with \
      --password-stdin.
      Authenticated requests ('user me', 'session request --auth', 'auth burst') go through \
      OAuth2Authorization: a 401 is queued and one refresh starts, however many requests got 401 \
      meanwhile; on success each queued request is replayed once with the new token (a second \
      401 reaches its caller), on failure every queued caller gets the refresh's error and the \
      credential is kept. The seed also checks whether the token changed while the request was \
      in flight, but that check can never be true there; archsh makes it work: a 401 for a token \
      that a finished refresh already replaced is replayed at once with the current token, \
      without a second refresh. The embedded demo API keeps the tokens it grants in the \
      workspace too (table embedded_api), so a later session with the same --db is still \
      logged in, as against a real API that outlives the app.
      This credential is BDModules' and is not the MVC+C app's session: 'auth login' does not log \
      the app in ('app start' still shows the login flow); 'app login EMAIL' does that. The two \
      seeds keep their sessions apart, and so does archsh.
      """,
    commands: [login, show, refresh, expire, lifetime, burst, logout],
    hints: hint(for:))

  /// The shell's hints for OAuth2Error.
  static func hint(for error: Error) -> String? {
    guard let error = error as? OAuth2Error else { return nil }
    switch error {
    case .notLoggedIn: return "log in with 'auth login EMAIL'"
    case .refused(_, "InvalidCredentials", _, _):
      return "the demo account is ada@example.com with the password lovelace"
    case .refused(_, "InvalidRefreshToken", _, nil):
      return "the API no longer knows the refresh token: log in again with 'auth login EMAIL'"
    case .refused(_, _, _, nil), .network:
      return
        "the credential is kept: run the command again, or log in again with 'auth login EMAIL'"
    case .refused: return nil
    }
  }
  /// `login EMAIL`.
  static let emailArgument = Argument("EMAIL", .text, "the account's email").concerning(.value)
  /// `login [PASSWORD]`: secret, so the line stays out of history.
  static let passwordArgument = Option.argument(
    "PASSWORD", .text, "the password; better a variable set with --secret", secret: true)
  /// `login --password-stdin`.
  static let passwordStdinFlag = Flag(
    "password-stdin", "read the password from the first line of standard input")

  /// `lifetime [DURATION]`.
  static let lifetimeArgument = Option.argument(
    "DURATION", .duration, "how long new access tokens live, such as 30s or 1h")

  static let lifetime = Command(
    "lifetime", summary: "show or set how long the embedded API's new access tokens live",
    discussion: """
      1h by default; 'archsh serve --token-lifetime' sets it for a standalone server. Tokens \
      already granted keep their expiry; 'auth expire' ends them now.
      """,
    signature: Signature([lifetimeArgument]),
    examples: ["auth lifetime", "auth lifetime 30s"],
    result: .record(["access_token_lifetime_seconds"])
  ) { invocation in
    let server = try invocation.session.factory.api.embeddedAPI
    if let seconds = invocation[lifetimeArgument] {
      guard seconds > 0 else {
        throw ShellError(
          "the lifetime must be longer than 0",
          at: invocation.word(for: lifetimeArgument)?.offset)
      }
      server.accessTokenLifetime = seconds
    }
    return .sentence(
      "new access tokens live \(Quantities.format(duration: server.accessTokenLifetime))",
      [Field("access_token_lifetime_seconds", .double(server.accessTokenLifetime))])
  }

  /// `burst N`.
  static let countArgument = Argument(
    "N", .integer(1...1000), "how many requests to fire at once")
  /// `burst N PATH`.
  static let burstPathArgument = Argument(
    "PATH", .text, "a protected path, such as /users/me"
  ).concerning(.value)
  /// `burst --summary`.
  static let summaryFlag = Flag("summary", "print only the counts, not the timeline")

  static let burst = Command(
    "burst", summary: "fire N concurrent authenticated GETs and show the timeline",
    discussion: """
      All N requests start at once, through one APISessionManager and OAuth2Authorization. Each \
      timeline line shows the time since the burst began, the request number and what happened: \
      sent, its status, queued for the refresh, replayed. After 'auth expire', N requests get \
      401, cause one refresh, and are replayed. With 'trace on' the burst is traced, and 'trace \
      export' draws it.
      """,
    signature: Signature([countArgument, burstPathArgument, summaryFlag]),
    examples: ["auth burst 20 /users/me", "auth burst 100 /users/me --summary"],
    result: .oneOf([
      .record([
        "requests", "unauthorized", "refreshes", "replays", "delivered", "failed", "unanswered",
        "milliseconds",
      ]),
      .sequence([
        .rows(["at", "request", "event"]),
        .record([
          "requests", "unauthorized", "refreshes", "replays", "delivered", "failed", "unanswered",
          "milliseconds",
        ]),
      ]),
    ])
  ) { invocation in
    try BurstRun(
      invocation, count: try invocation[countArgument], path: try invocation[burstPathArgument]
    )
    .output(summaryOnly: invocation[summaryFlag])
  }

  static let login = Command(
    "login", summary: "log in: a password grant, then me(); keep the credential and the user",
    signature: Signature([
      emailArgument, passwordArgument, passwordStdinFlag,
    ]),
    examples: [
      "auth login ada@example.com $password", "auth login ada@example.com --password-stdin",
      "auth login ada@example.com",
    ], result: .record(["email", "user", "access_token", "refresh_token", "stored_in"])
  ) { invocation in
    let email = try invocation[emailArgument]
    let password = try password(invocation, email: email)
    let api = invocation.session.factory.api
    let provider = try api.accountUserProvider
    let login = try api.userAPI().login(
      email: email.text, password: password,
      userPersistenceHandler: provider.userPersistenceHandler())
    return record(email: email.text, user: .success(login.user), credential: login.credential)
  }

  static let show = Command(
    "show", summary: "the logged-in account, its user and its tokens (redacted), as stored",
    discussion: """
      Reads the workspace only: no request is sent. The user is the one the login (or the last \
      'user me') stored; 'user me --cached' shows all of its fields.
      """,
    examples: ["auth show"],
    result: .oneOf([
      .record(["email", "user", "access_token", "refresh_token", "stored_in"]),
      .record(["logged_in"]),
    ])
  ) { invocation in
    let provider = try invocation.session.factory.api.accountUserProvider
    guard let credential = try provider.credential() else {
      return .record([Field("logged_in", .bool(false))])
    }
    return record(
      email: try provider.email() ?? "", user: Result { try provider.user() },
      credential: credential)
  }

  static let refresh = Command(
    "refresh", summary: "spend the refresh token for a new credential",
    examples: ["auth refresh"],
    result: .record(["email", "user", "access_token", "refresh_token", "stored_in"])
  ) { invocation in
    let api = invocation.session.factory.api
    let provider = try api.accountUserProvider
    guard let current = try provider.credential() else { throw OAuth2Error.notLoggedIn }
    let credential = try api.oAuth2SessionManager().refreshToken(current.refreshToken).get()
    return record(
      email: try provider.email() ?? "", user: Result { try provider.user() },
      credential: credential)
  }

  static let expire = Command(
    "expire", summary: "make the embedded API expire its access tokens now",
    discussion: "The next protected request gets 401; the refresh token still works.",
    examples: ["auth expire"], result: .record(["expired_access_tokens"])
  ) { invocation in
    let count = try invocation.session.factory.api.embeddedAPI.expireAccessTokens()
    return .sentence(
      "expired \(plural(count, "access token")); the next protected request gets 401",
      [Field("expired_access_tokens", .int(count))])
  }

  static let logout = Command(
    "logout", summary: "forget the account, its credential and its user",
    examples: ["auth logout"], result: .record(["logged_in"])
  ) { invocation in
    try invocation.session.factory.api.accountUserProvider.logOut()
    return .sentence("logged out", [Field("logged_in", .bool(false))])
  }

  // MARK: - Helpers

  /// The password: the argument, standard input's first line, or a prompt without echo.
  static func password(_ invocation: Invocation, email: Word) throws -> String {
    if let given = invocation[passwordArgument] {
      invocation.session.rememberSecret(given.text)
      return given.text
    }
    if invocation[passwordStdinFlag] {
      guard let line = PasswordInput.firstLineOfStandardInput(), !line.isEmpty else {
        throw ShellError(
          "--password-stdin found no password on standard input",
          hint: "for example: echo \"$PASSWORD\" | archsh -c 'auth login EMAIL --password-stdin'")
      }
      invocation.session.rememberSecret(line)
      return line
    }
    let needsPassword = ShellError(
      "'auth login' needs a password",
      hint: "give a variable set with --secret, or --password-stdin",
      at: email.offset)
    guard PasswordInput.canPrompt else { throw needsPassword }
    switch PasswordInput.prompt("password for \(email.text): ") {
    case .entered(let typed):
      guard !typed.isEmpty else {
        throw ShellError(
          "no password was typed", hint: "nothing was sent; type the password at the prompt",
          at: email.offset)
      }
      invocation.session.rememberSecret(typed)
      invocation.session.recorder?.typedAtPrompt(typed, parameter: "password")
      return typed
    case .ended:
      throw ShellError(
        "the login was cancelled", hint: "Ctrl-D at the password prompt; nothing was sent",
        at: email.offset)
    case .cancelled:
      // The terminal is restored by now. Where nothing handles Ctrl-C (a script run with -c or
      // -f), the process ends as Ctrl-C would have ended it; at the prompt the login is cancelled.
      PasswordInput.deliverInterruptIfUnhandled()
      throw ShellError(
        "the login was cancelled", hint: "Ctrl-C at the password prompt; nothing was sent",
        at: email.offset)
    }
  }

  /// The login as shown: the email, the stored user in one line (all of its fields in JSON), the
  /// tokens redacted, and where they are kept.
  static func record(
    email: String, user: Result<MappedObject?, Error>, credential: OAuth2Credential
  ) -> Output {
    let shown: Value
    let whole: Value
    switch user {
    case .success(let mapped?):
      shown = .string(summary(of: mapped))
      whole = ModelRendering.value(of: mapped.object)
    case .success(nil):
      shown = .string("none stored ('user me' fetches it and stores it)")
      whole = .null
    case .failure(let error):
      shown = .string("stored, but it does not map: \(error)")
      whole = .null
    }
    func fields(user: Value) -> [Field] {
      [
        Field("email", .string(email)),
        Field("user", user),
        Field("access_token", .string(OAuth2Credential.redacted(credential.accessToken))),
        Field("refresh_token", .string(OAuth2Credential.redacted(credential.refreshToken))),
        Field("stored_in", .string("the workspace's 'user' store (a keychain on iOS)")),
      ]
    }
    return .view(
      text: TextRenderer(useColor: false).render(.record(fields(user: shown))),
      data: .object(fields(user: whole)))
  }

  /// A user in one line: its identity, and its name as the API sent it.
  static func summary(of user: MappedObject) -> String {
    let identity = (user.object as? ModelObject).map { "\($0.type) \($0.uuid)" } ?? user.object.type
    guard case .object(let members) = user.json else { return identity }
    let name = ["first_name", "last_name"].compactMap { key -> String? in
      guard case .string(let text)? = members.last(where: { $0.key == key })?.value,
        !text.isEmpty
      else { return nil }
      return text
    }
    return name.isEmpty ? identity : "\(identity) (\(name.joined(separator: " ")))"
  }
}
