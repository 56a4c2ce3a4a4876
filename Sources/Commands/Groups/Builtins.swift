import DemoAPI
import Domain
import Foundation
import Plumbing

/// The shell's own commands: variables, help, scripts, expectations and settings.
enum Builtins {
  static let group = CommandGroup(
    "", summary: "the shell's own commands",
    from: [.archsh],
    commands: [
      help, set, unset, vars, echo, source, expect, time, sleep, history, output, serve, quit, exit,
    ])

  /// `help`'s group or builtin.
  static let topicArgument = Option.argument(
    "TOPIC", .name, "a group or builtin", completion: { $0.registry.topLevelNames })

  /// `help`'s verb of the group.
  static let verbArgument = Option.argument(
    "VERB", .name, "a verb of the group",
    completion: { context in
      context.previousWords.last.flatMap { context.registry.group(named: $0) }?.verbs ?? []
    })

  /// `help`'s second word of a two-word verb.
  static let subverbArgument = Option.argument(
    "SUBVERB", .name, "the second word of a two-word verb, such as 'set' in 'section set'",
    completion: { context in
      let words = context.previousWords.suffix(2)
      guard words.count == 2, let group = context.registry.group(named: words[words.startIndex])
      else { return [] }
      return group.subverbs(of: words[words.startIndex + 1])
    })

  /// `help --markdown`.
  static let markdownFlag = Flag("markdown", "print the whole reference as Markdown")
  /// `help --json`.
  static let helpJSONFlag = Flag(
    "json", "print the help as JSON: the parameters, the examples, and the fields of the result")

  static let help = Command(
    "help", summary: "show the commands, a group's verbs, or one command in full",
    discussion: """
      '--help' after a group, a command or a builtin shows the same: 'store persist --help' is \
      'help store persist', and 'factory --help' is 'help factory'. With --markdown, print the \
      whole command reference as Markdown (docs/commands.md). 'help walkthroughs' lists the \
      narrated walkthroughs, one per concept of the seed architecture, with their chapters.
      """,
    signature: Signature([topicArgument, verbArgument, subverbArgument, markdownFlag, helpJSONFlag]
    ),
    examples: [
      "help", "help trace", "help trace export", "help ds section", "help ds section set",
      "help walkthroughs", "help --markdown", "help --json store persist",
    ],
    result: .oneOf([
      .record(["builtins", "groups"]),
      .record(["group", "summary", "origins", "discussion", "commands"]),
      .record(Help.commandFields), .rows(Help.commandFields), .message,
    ])
  ) { invocation in
    let registry = invocation.context.registry
    if invocation[markdownFlag] { return .text(Help.markdown(registry)) }
    // Each help answers with its text for people and its fields for programs; --json prints the
    // fields whatever the output mode.
    let asJSON = invocation[helpJSONFlag]
    func answer(_ text: String, _ data: Value) -> Output {
      guard asJSON else { return .view(text: text, data: data) }
      var json = ""
      JSONRenderer.write(data, into: &json)
      return .view(text: json, data: data)
    }
    guard let topic = invocation[topicArgument] else {
      return answer(Help.overview(registry), Help.overviewValue(registry))
    }
    if topic.text == "walkthroughs", invocation[verbArgument] == nil {
      return walkthroughList()
    }
    if let command = registry.builtin(named: topic.text) {
      if let verb = invocation[verbArgument] {
        throw ShellError(
          "'\(topic.text)' is a builtin and has no verbs", hint: "try 'help \(topic.text)'",
          at: verb.offset)
      }
      return answer(
        Help.command(command, group: nil),
        Help.commandValue(command, group: nil))
    }
    guard let group = registry.group(named: topic.text) else {
      let hint = ShellError.didYouMean(topic.text, among: registry.topLevelNames) ?? "try 'help'"
      throw ShellError("no help for '\(topic.text)'", hint: hint, at: topic.offset)
    }
    guard let verb = invocation[verbArgument] else {
      return answer(Help.group(group), Help.groupValue(group))
    }
    let family = group.commands.filter { $0.name.hasPrefix(verb.text + " ") }
    if let subverb = invocation[subverbArgument] {
      // The same resolution, with the same errors, as running the command.
      let resolution = try registry.resolve([topic, verb, subverb])
      guard resolution.argumentStart == 3 else {
        throw ShellError(
          "'\(resolution.name)' has no second word", hint: "try 'help \(resolution.name)'",
          at: subverb.offset)
      }
      return answer(
        Help.command(resolution.command, group: group),
        Help.commandValue(resolution.command, group: group))
    }
    if !family.isEmpty {
      return answer(
        family.map { Help.command($0, group: group) }.joined(separator: "\n"),
        .list(family.map { Help.commandValue($0, group: group) }))
    }
    guard
      let command = group.commands.first(where: {
        $0.name == verb.text || $0.aliases.contains(verb.text)
      })
    else {
      let hint =
        ShellError.didYouMean(verb.text, among: group.verbs) ?? "try 'help \(group.name)'"
      throw ShellError(
        "unknown verb '\(verb.text)' for '\(group.name)'", hint: hint, at: verb.offset)
    }
    return answer(Help.command(command, group: group), Help.commandValue(command, group: group))
  }

  /// `help walkthroughs`: each walkthrough's name, summary and chapters, and how to run one.
  static func walkthroughList() -> Output {
    let entries = Walkthroughs.all()
    guard !entries.isEmpty else {
      return .text(
        "no walkthroughs were found; archsh looked in "
          + Walkthroughs.searched.map { "'\($0)'" }.joined(separator: ", ")
          + ": set ARCHSH_WALKTHROUGHS to the folder that holds basics.ash")
    }
    let own = entries.filter { $0.course == "archsh" }
    var text = "walkthroughs (\(own.count)), one per concept of the seed architecture:\n"
    let names = entries.map { Walkthroughs.tourName(of: $0, among: entries) }
    let width = names.map(\.count).max() ?? 0
    var course = "archsh"
    for (entry, name) in zip(entries, names) {
      if entry.course != course {
        course = entry.course
        let count = entries.filter { $0.course == course }.count
        text += "\nthe course '\(course)' (\(plural(count, "walkthrough"))):\n"
      }
      text += "\n  " + name.padding(toLength: width + 2, withPad: " ", startingAt: 0)
      text += entry.summary + "\n"
      let chapters = entry.chapters.enumerated().map { "\($0.offset + 1). \($0.element)" }
      text += String(repeating: " ", count: width + 4) + "\(entry.steps) steps: "
      text += chapters.joined(separator: " · ") + "\n"
    }
    if let directory = Walkthroughs.directory {
      text += "\narchsh's are in \(directory) (ARCHSH_WALKTHROUGHS names another folder).\n"
    }
    for course in Courses.teachers where course.walkthroughs != nil {
      text += "The course '\(course.name)' is \(course.root ?? "") (--course, ARCHSH_COURSES).\n"
    }
    text += """

      Step through one, with its narration: archsh --step --tour NAME
      Start at a chapter: archsh --step --tour NAME --from CHAPTER
      Run one and check it against its transcript: archsh --check --tour NAME
      """
    return .text(text)
  }

  /// `set`'s variable name.
  static let setName = Argument(
    "NAME", .name, "ASCII letters, digits and '_', not starting with a digit")

  /// `set`'s value.
  static let valueArgument = Option.argument(
    "VALUE", .text, "the value; quote it when it contains spaces; with --secret it may be left out"
  ).secret(withFlag: "secret")

  /// `set --secret`.
  static let secretFlag = Flag(
    "secret", "mask the value in 'vars' and keep the line out of history", secret: true)

  static let set = Command(
    "set", summary: "set a variable, used later as $NAME or ${NAME}",
    discussion: """
      Values are text. With --secret, `vars` masks the value and the line is kept out of the \
      history file, for passwords and tokens. `set NAME --secret` without a value takes it from \
      $ARCHSH_SECRET_NAME, else asks for it on the terminal, without echo (or reads standard \
      input's next line when that is not a terminal): a recorded walkthrough asks this way for \
      the secrets typed while recording, so '--check' can take them from standard input in \
      order, or from the environment.

      Where a secret's value is shown: at the terminal, what a command prints shows it \
      ('echo $token' prints the value). Everywhere else it is <redacted>: the board, a \
      recording's .ash and .out, a file written by 'trace export', and the log. Values shorter \
      than 4 characters are not looked for.
      """,
    signature: Signature([setName, valueArgument, secretFlag]),
    examples: [
      "set product 42", "set greeting 'hello there'", "set token s3cr3t --secret",
      "set password --secret",
    ], result: .nothing
  ) { invocation in
    let name = try invocation[setName]
    guard Lexer.isValidVariableName(name.text) else {
      throw ShellError(
        "bad variable name '\(name.text)'",
        hint: "names are ASCII letters, digits and '_', not starting with a digit", at: name.offset)
    }
    let isSecret = invocation[secretFlag]
    let value: String
    if let given = invocation[valueArgument] {
      value = given.text
    } else if isSecret {
      value = try askSecret(name, session: invocation.session)
    } else {
      throw ShellError(
        "'set' needs a VALUE",
        hint: "write 'set \(name.text) VALUE', or add --secret to be asked for it",
        at: name.offset)
    }
    invocation.session.variables[name.text] = Variable(value, isSecret: isSecret)
    if isSecret { invocation.session.rememberSecret(value) }
    return .empty
  }

  /// The value of `set NAME --secret` given without one: from the session's answers, the
  /// terminal (without echo), or standard input's first line.
  static func askSecret(_ name: Word, session: Session) throws -> String {
    let value = try readSecret(name, session: session)
    session.secretsGivenFromOutside.remember(value)
    return value
  }

  /// The value for `set NAME --secret`: the recorded answer, `$ARCHSH_SECRET_NAME`, a prompt at a
  /// terminal, or standard input's next line.
  private static func readSecret(_ name: Word, session: Session) throws -> String {
    if let answers = session.secretAnswers {
      guard let answer = answers[name.text] else {
        throw ShellError(
          "no value for the secret '\(name.text)'",
          hint: "it was not typed while this run was recorded or stepped through", at: name.offset)
      }
      return answer
    }
    // A walkthrough checked without a terminal takes its secrets from the environment.
    if let value = Platform.variable("ARCHSH_SECRET_" + name.text) {
      return value
    }
    let missing = ShellError(
      "'set \(name.text) --secret' found no value to read",
      hint:
        "type it at a terminal, give it as a line of standard input, or set ARCHSH_SECRET_\(name.text)",
      at: name.offset)
    guard PasswordInput.canPrompt else {
      guard let line = PasswordInput.firstLineOfStandardInput() else { throw missing }
      return line
    }
    switch PasswordInput.prompt("\(name.text) (secret): ") {
    case .entered(let typed): return typed
    case .ended: throw missing
    case .cancelled:
      PasswordInput.deliverInterruptIfUnhandled()
      throw ShellError(
        "'set \(name.text) --secret' was cancelled", hint: "Ctrl-C at the prompt; nothing was set",
        at: name.offset)
    }
  }

  /// `unset`'s variable.
  static let unsetName = Argument(
    "NAME", .name, "the variable", completion: { $0.session.variables.keys.sorted() })

  static let unset = Command(
    "unset", summary: "remove a variable",
    signature: Signature([unsetName]),
    examples: ["unset product"], result: .nothing
  ) { invocation in
    let name = try invocation[unsetName]
    guard invocation.session.variables.removeValue(forKey: name.text) != nil else {
      let hint =
        ShellError.didYouMean(name.text, among: Array(invocation.session.variables.keys))
        ?? "'vars' lists the variables"
      throw ShellError("no variable '\(name.text)'", hint: hint, at: name.offset)
    }
    return .empty
  }

  static let vars = Command(
    "vars", summary: "list the variables and their values (secret ones masked)",
    examples: ["vars"], result: .rows(["name", "value"])
  ) { invocation in
    let rows = invocation.session.variables.sorted { $0.key < $1.key }.map { name, variable in
      [Value.string(name), .string(variable.isSecret ? "********" : variable.value)]
    }
    return .table(Table(columns: ["name", "value"], rows: rows))
  }

  /// `echo`'s words.
  static let echoText = Many.arguments("TEXT", .text, "words to print", optional: true)

  static let echo = Command(
    "echo", summary: "print the arguments, separated by spaces",
    signature: Signature([echoText]),
    examples: ["echo hello", "echo \"product $product\""], result: .message
  ) { invocation in
    // Appended word by word: the standard library's `joined(separator:)` is not specialised for
    // an array of strings here, and its first call made the runtime scan every conformance
    // record of the binary, a fifth of what `archsh -c 'echo hi'` spent in archsh's own code.
    var text = ""
    for (index, word) in invocation[echoText].enumerated() {
      if index > 0 { text += " " }
      text += word.text
    }
    return .text(text)
  }

  /// `source`'s script.
  static let fileArgument = Argument("FILE", .path, "the script")

  /// `source`'s arguments for the script.
  static let scriptArguments = Many.arguments(
    "ARG", .text, "arguments for the script", optional: true)

  static let source = Command(
    "source", summary: "run a script file here, as if its lines were typed",
    discussion: """
      A relative path starts in the including script's folder (at the prompt, in the current \
      directory), as every path a command reads or writes does. \
      ARGs become the script's $1…$9 and $#. The script stops at its first error unless \
      --keep-going was given; errors inside it name the include chain. Nesting deeper than 64 \
      files is an error.
      """,
    signature: Signature([fileArgument, scriptArguments]),
    examples: ["source examples/lib/greet.ash Ada", "source setup.ash bookmarks"],
    result: .passthrough, isTransparent: true
  ) { invocation in
    let file = try invocation[fileArgument]
    return try invocation.context.source(
      file, arguments: invocation[scriptArguments].map(\.text))
  }

  /// `expect`'s check.
  static let checkArgument = Argument(
    "CHECK", Kind<ExpectCheck>.choice, "what to check")

  /// `expect`'s text to look for.
  static let expectText = Option.argument("TEXT", .text, "the text to look for")

  static let expect = Command(
    "expect", summary: "assert on the previous command, for verified walkthroughs",
    discussion: """
      Checks what the previous command (other than expect) did:
        expect contains TEXT   it succeeded and its output contains TEXT
        expect equals TEXT     it succeeded and its output is exactly TEXT
        expect succeeds        it succeeded
        expect fails [TEXT]    it failed, with an error message containing TEXT
      The output is compared as it is printed, without colour. Several expects in a row check \
      the same command, and after 'source' they check the sourced file's last command. In a script, a failed command followed by an expect does not stop the \
      script: the expect decides. A failed expectation is an error at its own line, showing the \
      expected and the actual.
      """,
    signature: Signature([checkArgument, expectText]),
    examples: [
      "echo hello; expect equals hello", "help; expect contains builtins",
      "unset nothing; expect fails \"no variable\"",
    ],
    result: .nothing, isTransparent: true, isExpectation: true
  ) { invocation in
    let check = try invocation[checkArgument]
    let text = invocation[expectText]
    guard let previous = invocation.context.previous else {
      throw ShellError(
        "nothing to check: no command has run yet", hint: "put expect after a command")
    }
    func needText() throws(ShellError) -> String {
      guard let text else {
        throw ShellError(
          "'expect \(check.rawValue)' needs a TEXT", hint: "usage: expect \(check.rawValue) TEXT")
      }
      return text.text
    }
    // Single quotes, unless the text holds one: error messages quote their own input.
    func quoted(_ text: String) -> String {
      let line = text.replacingNewlines()
      let shown = line.count > 200 ? String(line.prefix(200)) + "…" : line
      return shown.contains("'") ? "\"" + shown + "\"" : "'" + shown + "'"
    }
    if check == .fails {
      guard let error = previous.error else {
        let output = invocation.context.plainText(previous.output)
        throw ShellError(
          "expectation failed: expected the previous command to fail, but it succeeded with output \(quoted(output))"
        )
      }
      if let text, !error.contains(text.text) {
        throw ShellError(
          "expectation failed: expected an error containing \(quoted(text.text)), got \(quoted(error))"
        )
      }
      return .empty
    }
    if let error = previous.error {
      throw ShellError(
        "expectation failed: expected the previous command to succeed, but it failed with \(quoted(error))"
      )
    }
    let output = invocation.context.plainText(previous.output)
    switch check {
    case .contains:
      let wanted = try needText()
      guard output.contains(wanted) else {
        throw ShellError(
          "expectation failed: expected output containing \(quoted(wanted)), got \(quoted(output))")
      }
    case .equals:
      let wanted = try needText()
      guard output == wanted else {
        throw ShellError(
          "expectation failed: expected output \(quoted(wanted)), got \(quoted(output))")
      }
    case .succeeds, .fails:
      if let text {
        throw ShellError(
          "'expect succeeds' takes no TEXT", hint: "use 'expect contains'", at: text.offset)
      }
    }
    return .empty
  }

  /// `time`'s command line.
  static let commandLine = Many.commandLine(
    "COMMAND", "the command to run, with its arguments",
    completion: { $0.registry.topLevelNames })

  static let time = Command(
    "time", summary: "run a command and print how long it took",
    signature: Signature([commandLine]),
    examples: ["time help", "time factory get tracer"],
    result: .oneOf([
      .sequence([.passthrough, .record(["milliseconds"])]), .record(["milliseconds"]),
    ])
  ) { invocation in
    // Parsing parsed the timed command too, and refused a `time` inside `time`.
    guard let timed = invocation.parsed.inner.first else {
      throw ShellError("missing argument COMMAND for 'time'", hint: "usage: time COMMAND...")
    }
    let start = ContinuousClock.now
    let output = try invocation.context.perform(timed)
    let elapsed = ContinuousClock.now - start
    let nanoseconds =
      elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
    let timing = Output.record([
      Field("milliseconds", .milliseconds(Double(max(0, nanoseconds)) / 1_000_000))
    ])
    return output == .empty ? timing : .sequence([output, timing])
  }

  /// `history --limit`.
  static let limitOption = Option(
    "limit", .integer(1...1_000_000), value: "N", "only the last N lines")

  static let history = Command(
    "history", summary: "list the lines entered at the prompt",
    discussion: """
      History is saved in $XDG_STATE_HOME/archsh/history (default ~/.local/state/archsh/history), \
      mode 0600. Lines holding a secret argument are never recorded.
      """,
    signature: Signature([limitOption]),
    examples: ["history", "history --limit 10"], result: .rows(["number", "line"])
  ) { invocation in
    let lines = invocation.session.history
    let limit = invocation[limitOption] ?? lines.count
    let first = max(0, lines.count - limit)
    let rows = lines.indices.dropFirst(first).map { [Value.int($0 + 1), .string(lines[$0])] }
    return .table(Table(columns: ["number", "line"], rows: rows))
  }

  /// `output`'s mode.
  static let modeArgument = Option.argument("MODE", Kind<OutputMode>.choice, "the output mode")

  static let output = Command(
    "output", summary: "choose how results are printed: aligned text or JSON",
    discussion:
      "Without an argument, show the current mode. --json at start-up is the same as 'output json'.",
    signature: Signature([modeArgument]),
    examples: ["output json", "output table"], result: .oneOf([.nothing, .record(["output"])])
  ) { invocation in
    guard let mode = invocation[modeArgument] else {
      return .record([Field("output", .string(invocation.session.outputMode.rawValue))])
    }
    invocation.session.outputMode = mode
    return .empty
  }

  static let quit = Command(
    "quit", summary: "leave archsh (status 1 if a script command failed, 0 otherwise)",
    examples: ["quit"], result: .nothing
  ) { _ in throw ExitRequest(status: nil) }

  /// `exit`'s status.
  static let statusArgument = Option.argument(
    "N", .integer(0...255), "the status; without it, 1 if a script command failed, else 0")

  static let exit = Command(
    "exit", summary: "leave archsh with a status",
    signature: Signature([statusArgument]),
    examples: ["exit", "exit 3"], result: .nothing
  ) { invocation in
    guard let status = invocation[statusArgument].map({ Int32($0) }) else {
      throw ExitRequest(status: nil)
    }
    throw ExitRequest(status: status)
  }
}

extension Builtins {
  /// `sleep`'s duration.
  static let durationArgument = Argument(
    "DURATION", .duration(atMost: 60), "how long, such as 500ms or 2s (at most 60s)")

  static let sleep = Command(
    "sleep", summary: "wait, for example for an entry's age limit to pass in a walkthrough",
    signature: Signature([durationArgument]),
    examples: ["sleep 1s", "sleep 250ms"], result: .nothing
  ) { invocation in
    let seconds = try invocation[durationArgument]
    // In slices, so that Ctrl-C ends the wait at once and makes it fail ($? is 1).
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if invocation.session.interruptCheck() {
        throw ShellError(
          "'sleep' was interrupted", hint: "Ctrl-C ended the wait early",
          at: invocation.word(for: durationArgument)?.offset)
      }
      Thread.sleep(forTimeInterval: min(0.02, max(0, deadline.timeIntervalSinceNow)))
    }
    return .empty
  }
}

/// What `expect` checks of the previous command.
enum ExpectCheck: String, ChoiceWord {
  /// It succeeded and its output contains TEXT.
  case contains
  /// It succeeded and its output is exactly TEXT.
  case equals
  /// It succeeded.
  case succeeds
  /// It failed, with an error message containing TEXT if given.
  case fails
}

// MARK: - serve

extension Builtins {
  /// `serve --port N`.
  static let servePortOption = Option(
    "port", .integer(0...65535), value: "N", "the port", default: "8080")
  /// `serve --catalog-size N`.
  static let serveCatalogSizeOption = Option(
    "catalog-size", .integer(15...1_000_000), value: "N", "how many products", default: "100")

  /// `serve --user EMAIL:PASSWORD`, repeatable; the password keeps the line out of history.
  static let serveUserOption = Many.option(
    "user", .text, value: "EMAIL:PASSWORD", "add an account that can log in",
    secret: true)
  /// `serve --locations N`.
  static let serveLocationsOption = Option(
    "locations", .integer(0...10_000_000), value: "N",
    "how many favourite locations the demo user has", default: "100")
  /// `serve --token-lifetime DURATION`.
  static let serveTokenLifetimeOption = Option(
    "token-lifetime", .duration, value: "DURATION", "how long an access token lives",
    default: "1h")

  static let serve = Command(
    "serve", summary: "run the demo API on its own, for curl, until Ctrl-C",
    discussion: """
      Listens on 127.0.0.1 only, and answers only to a Host of 127.0.0.1:PORT or localhost:PORT \
      (421 otherwise: a page whose own name was made to resolve to 127.0.0.1 is refused). Port 0 \
      picks a free port; the URL is printed when the server is ready. A connection that sends no \
      complete request for 10 s is closed; /echo takes at most 1 MiB (413 beyond).
      OAuth2: POST /oauth/token takes grant_type=password (username, password, client_id, \
      client_secret) or grant_type=refresh_token (refresh_token, client_id, client_secret), as a \
      JSON body (as BDModules sends them) or a form, and answers \
      {"access_token":...,"refresh_token":...,"code":"OK"}. Tokens are \
      random and kept in memory; a refresh token is used up by its refresh. GET /users/me needs \
      'Authorization: Bearer TOKEN' and answers 401 {"code":"Unauthorized"} without one; so do \
      GET /users/me/locations and /users/{id}/locations, which page through the user's favourite \
      locations: offset and limit (Standard paging), or since_id or max_id with order=asc|desc \
      (Realtime paging), with info{offset,count,total}.
      The demo account is \(Accounts.demoEmail) with the password \(Accounts.demoPassword); the \
      client is \(Accounts.clientID) with the secret \(Accounts.clientSecret). --user adds accounts.
      """,
    signature: Signature([
      servePortOption, serveCatalogSizeOption, serveUserOption, serveTokenLifetimeOption,
      serveLocationsOption,
    ]),
    examples: [
      "serve", "serve --port 0 --catalog-size 10000",
      "serve --user grace@example.com:cobol --token-lifetime 30s",
    ],
    result: .record(["url", "stopped"])
  ) { invocation in
    let accounts = Accounts(tokenLifetime: invocation[serveTokenLifetimeOption] ?? 3600)
    guard accounts.tokenLifetime > 0 else {
      throw ShellError(
        "the token lifetime must be longer than 0", hint: "for example 30s or 1h",
        at: invocation.word(for: serveTokenLifetimeOption)?.offset)
    }
    for word in invocation[serveUserOption] {
      let parts = word.text.split(separator: ":", maxSplits: 1)
      guard parts.count == 2, parts[0].contains("@") else {
        throw ShellError(
          "--user needs EMAIL:PASSWORD", hint: "for example --user grace@example.com:cobol",
          at: word.offset)
      }
      accounts.add(email: String(parts[0]), password: String(parts[1]))
    }
    let server: DemoAPI
    let port = invocation[servePortOption] ?? 8080
    do {
      guard port == 0 || LoopbackPort.isFree(port) else {
        throw DemoAPIError.couldNotStart(port: port)
      }
      server = try DemoAPI.start(
        port: port,
        catalogSize: invocation[serveCatalogSizeOption] ?? 100, accounts: accounts,
        locations: LocationCatalog(count: invocation[serveLocationsOption] ?? 100))
    } catch {
      throw ShellError(String(describing: error), hint: "is the port in use? try --port 0")
    }
    invocation.context.announce(
      "serving the demo API at \(server.baseURL.absoluteString) (Ctrl-C stops it)")
    while !invocation.context.interruptRequested() { Thread.sleep(forTimeInterval: 0.1) }
    server.stop()
    return .sentence(
      "stopped",
      [Field("url", .string(server.baseURL.absoluteString)), Field("stopped", .bool(true))])
  }
}
