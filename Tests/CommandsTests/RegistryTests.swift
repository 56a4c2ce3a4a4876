import Domain
import Foundation
import TestSupport
import Testing

@testable import Commands

@Suite("Registry and help")
struct RegistryTests {
  private func run(_ line: String) -> (stdout: String, stderr: String) {
    let harness = Harness()
    harness.script([line])
    return (harness.sink.stdout, harness.sink.stderr)
  }

  @Test("help for one command is generated from its declaration, word for word")
  func commandHelp() {
    #expect(
      run("help trace export").stdout == """
        usage: trace export [FILE] [--format FORMAT] [--last N] [--no-timings] [--force]

        Write what was traced since 'trace on' as a sequence diagram.

        Each span becomes a call from its caller to its component and a reply with its
        attributes and duration; events become notes. SVG is drawn by archsh itself, one
        lifeline per controller, and opens in any browser; Mermaid is text for a
        Markdown renderer. Without --format, a FILE ending in .svg gets SVG and anything
        else Mermaid. Without FILE, the diagram is printed. The file is created with
        mode 0600. An existing FILE is replaced only with --force, as 'record start'
        does.

        arguments:
          FILE   where to write the diagram

        options:
          --format FORMAT   svg or mermaid; by default FILE's extension decides
          --last N          only the last N commands that were traced
          --no-timings      leave durations out, so that the diagram is the same on every run
          --force           replace FILE when it exists

        examples:
          trace export trace.svg
          trace export --last 1 update.svg
          trace export --format mermaid
          trace export --format mermaid trace.mmd
          trace export trace.svg --force

        """)
  }

  @Test("help for a group lists its verbs with summaries")
  func groupHelp() {
    #expect(
      run("help factory").stdout == """
        factory: the composition root that builds every controller (BDModules factories)

        ApplicationFactory creates the other factories (APIFactory, ModelFactory,
        JSONFactory, DataSourceFactory, EntryFactory, MainFactory), and they build every
        controller the shell drives, down to each DataSourceController,
        NavigationController, TableViewProvider, translator and JSON coder. As in
        BDModules, a singleton (a lazy var there, a property here) is built on first use
        and shared; a prototype (a method) is built on every request. Each product is
        declared once, typed by what it builds, and its type's name is the Swift type's
        own. What a product is injected with is not declared anywhere: the factories
        record what each builder asks them for, so the graph shows the real
        architecture.

        commands:
          factory list    every product: its factory, scope, type, times built, what it is
          factory graph   who builds what and who is injected into whom; as text, Mermaid or Graphviz
          factory get     ask the factory for a product, as a controller would, and show its identity

        'help factory VERB' shows one command.

        """)
  }

  @Test("help for a builtin shows its usage, arguments and secret flag")
  func builtinHelp() {
    #expect(
      run("help set").stdout == """
        usage: set NAME [VALUE] [--secret]

        Set a variable, used later as $NAME or ${NAME}.

        Values are text. With --secret, `vars` masks the value and the line is kept out
        of the history file, for passwords and tokens. `set NAME --secret` without a
        value takes it from $ARCHSH_SECRET_NAME, else asks for it on the terminal,
        without echo (or reads standard input's next line when that is not a terminal):
        a recorded walkthrough asks this way for the secrets typed while recording, so
        '--check' can take them from standard input in order, or from the environment.

        Where a secret's value is shown: at the terminal, what a command prints shows it
        ('echo $token' prints the value). Everywhere else it is <redacted>: the board, a
        recording's .ash and .out, a file written by 'trace export', and the log. Values
        shorter than 4 characters are not looked for.

        arguments:
          NAME    ASCII letters, digits and '_', not starting with a digit
          VALUE   the value; quote it when it contains spaces; with --secret it may be left out

        options:
          --secret   mask the value in 'vars' and keep the line out of history (secret: kept out of history and traces)

        examples:
          set product 42
          set greeting 'hello there'
          set token s3cr3t --secret
          set password --secret

        """)
  }

  @Test("the overview lists every builtin and group")
  func overview() {
    let text = run("help").stdout
    for name in AllGroups.registry.topLevelNames {
      #expect(text.contains("\n  \(name) "), "\(name)")
    }
  }

  @Test("unknown names get a did-you-mean for commands, verbs and help topics")
  func didYouMean() {
    #expect(
      run("factroy graph").stderr
        == "test.ash:1:1: error: unknown command 'factroy' (did you mean 'factory'?)\n")
    #expect(
      run("trace of").stderr
        == "test.ash:1:7: error: unknown verb 'of' for 'trace' (did you mean 'off'?)\n")
    #expect(
      run("help trace expotr").stderr
        == "test.ash:1:12: error: unknown verb 'expotr' for 'trace' (did you mean 'export'?)\n")
    #expect(
      run("help echo x").stderr
        == "test.ash:1:11: error: 'echo' is a builtin and has no verbs (try 'help echo')\n")
    #expect(run("xyzzy").stderr == "test.ash:1:1: error: unknown command 'xyzzy' (try 'help')\n")
  }

  @Test("options accept --name=value, -- ends options, and quoted words stay positional")
  func optionSyntax() throws {
    let harness = Harness()
    harness.script(["history --limit=1", "echo -- --not-an-option", "echo \"--quoted\""])
    #expect(
      harness.sink.stdout == "number  line\n------  ----\n(no rows)\n--not-an-option\n--quoted\n")
    #expect(harness.sink.stderr.isEmpty)
  }

  @Test("the Markdown reference covers every command")
  func markdown() {
    let text = Help.markdown(AllGroups.registry)
    for group in AllGroups.groups {
      for command in group.commands {
        let name = group.isBuiltins ? command.name : "\(group.name) \(command.name)"
        #expect(text.contains("### `\(name)`"), "\(name)")
      }
    }
  }
}

@Suite("the lazy registry")
struct LazyRegistryTests {
  @Test("each lazily declared group builds the group of that name, and resolves as the eager one")
  func namesMatch() throws {
    for lazy in AllGroups.lazyGroups {
      #expect(lazy.make().name == lazy.name)
    }
    // Each group is listed once.
    #expect(Set(AllGroups.lazyGroups.map(\.name)).count == AllGroups.lazyGroups.count)
    #expect(
      AllGroups.lazyGroups.prefix(5).map(\.name) == ["", "trace", "factory", "db", "store"])
    let eager = CommandRegistry(groups: AllGroups.groups)
    #expect(AllGroups.registry.topLevelNames == eager.topLevelNames)
    #expect(AllGroups.registry.groups.map(\.name) == eager.groups.map(\.name))
    let line = try Lexer.lex("ds section add shop --at 0")[0].words.map { Word($0.text) }
    #expect(try AllGroups.registry.resolve(line).name == "ds section add")
  }

  @Test("every group file's group is in AllGroups' list, once, and the list names no other")
  func everyGroupFileIsListed() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Sources/Commands/Groups").standardized.path
    var declared: [String] = []
    for file in try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    where file.hasSuffix(".swift") {
      let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
      // `enum StoreGroup {` followed, before the next type, by `static let group = CommandGroup(`.
      let pattern =
        #"enum (\w+) \{\n(?:(?!\n(?:enum|struct|final class|extension) )[\s\S])*?static let group = CommandGroup\("#
      let regex = try NSRegularExpression(pattern: pattern)
      for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
        if let range = Range(match.range(at: 1), in: text) { declared.append(String(text[range])) }
      }
    }
    let list = try String(contentsOfFile: folder + "/AllGroups.swift", encoding: .utf8)
    let listed = try NSRegularExpression(pattern: #"\{ (\w+)\.group \}"#)
      .matches(in: list, range: NSRange(list.startIndex..., in: list))
      .compactMap { Range($0.range(at: 1), in: list).map { String(list[$0]) } }
    #expect(declared.count > 20, "\(declared)")
    #expect(listed.sorted() == declared.sorted(), "a group file's group is missing from AllGroups")
    #expect(listed.count == AllGroups.lazyGroups.count)
  }

  @Test("a lookup that repeats the last command's words finds it again; any other word does not")
  func repeatedLookups() throws {
    let registry = CommandRegistry(groups: AllGroups.groups)
    func name(_ line: String) -> String {
      let words = line.split(separator: " ").map { Word(String($0)) }
      switch registry.lookup(words) {
      case .found(let resolution): return "\(resolution.name) @\(resolution.argumentStart)"
      case .incomplete(let error, _): return "incomplete: \(error.message)"
      case .unknown(let error): return "unknown: \(error.message)"
      }
    }
    let lines = [
      "store retrieve generalCache a", "store retrieve generalCache b", "store persist c k v",
      "store", "store retrieve", "store retreive x", "ds section add shop",
      "ds section remove shop",
      "ds section", "echo hi", "echo", "store retrieve generalCache a",
    ]
    let answers = lines.map(name)
    #expect(
      answers == [
        "store retrieve @2", "store retrieve @2", "store persist @2",
        "incomplete: 'store' needs a verb: \(registry.group(named: "store")?.verbs.joined(separator: ", ") ?? "")",
        "store retrieve @2", "unknown: unknown verb 'retreive' for 'store'", "ds section add @3",
        "ds section remove @3",
        "incomplete: 'ds section' needs a verb: \(registry.group(named: "ds")?.subverbs(of: "section").joined(separator: ", ") ?? "")",
        "echo @1", "echo @1", "store retrieve @2",
      ])
    // Each answer is the one a registry that remembers nothing gives.
    for (line, answer) in zip(lines, answers) {
      let fresh = CommandRegistry(groups: AllGroups.groups)
      let words = line.split(separator: " ").map { Word(String($0)) }
      if case .found(let resolution) = fresh.lookup(words) {
        #expect(answer == "\(resolution.name) @\(resolution.argumentStart)", "\(line)")
      } else {
        #expect(!answer.hasSuffix("@1") && !answer.hasSuffix("@2") && !answer.hasSuffix("@3"))
      }
    }
  }
}

@Suite("help reaches every command")
struct HelpTests {
  @Test("help NAME VERB [SUBVERB] prints the usage of every command, two-word verbs included")
  func everyCommand() {
    // Given every command of every group
    for group in AllGroups.groups {
      for command in group.commands {
        // When its help is asked for by its full name
        let harness = Harness()
        let name = group.isBuiltins ? command.name : "\(group.name) \(command.name)"
        harness.script(["help \(name)"])
        // Then it prints that command's usage, and nothing goes wrong
        #expect(harness.sink.stderr == "", "help \(name)")
        #expect(harness.sink.stdout.hasPrefix("usage: \(name)"), "help \(name)")
      }
    }
  }

  @Test("a misspelt second word gets a did-you-mean at its column")
  func misspelt() {
    let harness = Harness()
    harness.prompt(["help ds section sett", "help ds render table", "help echo x"])
    #expect(
      harness.sink.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") } == [
        "error: unknown verb 'sett' for 'ds section' (did you mean 'set'?)",
        "error: 'ds render' has no second word (try 'help ds render')",
        "error: 'echo' is a builtin and has no verbs (try 'help echo')",
      ])
  }
}

@Suite("Completer")
struct CompleterTests {
  private let session = Session()
  private var completer: Completer { Completer(session: session) }

  @Test("the first word completes builtins and groups")
  func firstWord() {
    #expect(completer.complete("he") == ["help"])
    #expect(completer.complete("t") == ["time", "trace"])
    #expect(completer.complete("echo a; fa") == ["factory"])
  }

  @Test("the second word completes a group's verbs")
  func verbs() {
    #expect(completer.complete("trace ") == ["export", "off", "on", "show"])
    #expect(completer.complete("trace o") == ["off", "on"])
  }

  @Test("options, choice values and live values complete from the declarations")
  func arguments() {
    #expect(
      completer.complete("trace export --") == [
        "--force", "--format", "--help", "--last", "--no-timings",
      ])
    #expect(completer.complete("trace export --format ") == ["mermaid", "svg"])
    #expect(completer.complete("output ") == ["json", "table"])
    #expect(
      completer.complete("factory get ") == ApplicationFactory.components.map(\.name).sorted())
    #expect(
      completer.complete("factory get app") == [
        "appConfigurator", "appDelegate", "appDependencies", "appStateStore",
      ])
    #expect(completer.complete("help ").contains("factory"))
    #expect(completer.complete("help trace e") == ["export"])
    #expect(completer.complete("help ds sec") == ["section"])
    #expect(
      completer.complete("help ds section ") == ["add", "clear", "data", "remove", "set", "update"])
    #expect(completer.complete("help ds section s") == ["set"])
    #expect(completer.complete("help trace export ") == [])
    #expect(completer.complete("time factory g") == ["get", "graph"])
    #expect(completer.complete("set x y --") == ["--help", "--secret"])
    #expect(completer.complete("set x y --secret --") == ["--help"])
  }

  @Test("store names and keys complete live from the workspace, by prefix")
  func storeValues() throws {
    let harness = Harness()
    harness.script([
      "store persist bookmarks home a", "store persist bookmarks help b",
      "store persist bookmarks work c",
    ])
    let completer = Completer(session: harness.session)
    #expect(completer.complete("store retrieve bo") == ["bookmarks"])
    #expect(completer.complete("store retrieve bookmarks h") == ["help", "home"])
    #expect(completer.complete("store retrieve bookmarks home w") == ["work"])
    #expect(completer.complete("store limits bookmarks --ttl ") == ["off", "on"])
    #expect(completer.complete("store keys nosuchstore ") == [])
  }

  @Test("request paths complete from the demo API's routes, the network log and known products")
  func requestPaths() {
    #expect(completer.complete("net get /pro") == ["/products", "/products/1"])
    #expect(
      completer.complete("session request GET /users/me/") == [
        "/users/me/locations", "/users/me/trips",
      ])
    session.listedProductIDs = [7, 42]
    #expect(completer.complete("net get /products/4") == ["/products/42"])
    let harness = Harness()
    harness.script(["net get '/products?offset=0&limit=2'"])
    #expect(
      Completer(session: harness.session).complete("net get '/products?") == [
        "/products?offset=0&limit=2"
      ])
    // Another server's routes are not the demo API's: only what was requested is offered.
    let other = Session(options: SessionOptions(apiURL: "http://127.0.0.1:9"))
    #expect(Completer(session: other).complete("net get /") == [])
  }

  @Test("$ completes variable names")
  func variables() {
    session.variables["product"] = Variable("42")
    #expect(completer.complete("echo $pr") == ["$product"])
    #expect(completer.complete("unset p") == ["product"])
  }

  @Test("completion reads the line with the interpreter's lexer: quotes, separators, time")
  func lexedLikeExecution() {
    #expect(completer.complete("echo 'a;b' ; tr") == ["trace"])
    #expect(completer.complete("echo a;") == completer.complete(""))
    #expect(completer.complete("output 'js") == ["json"])
    #expect(completer.complete("output \"ta") == ["table"])
    #expect(completer.complete("time time factory g") == ["get", "graph"])
    #expect(completer.complete("time ") == completer.complete(""))
    #expect(completer.complete("trace export -- --") == [])
    #expect(
      completer.complete("trace export --format=mermaid --") == [
        "--force", "--help", "--last", "--no-timings",
      ])
  }

  @Test("Tab quotes a candidate that needs quoting, in the quotes the word was started with")
  func quoting() {
    // Given the tag 'Application Lifecycle', which has a space
    // Then a bare word is single-quoted as a whole, from where it starts
    #expect(
      completer.completion("log level App")
        == Completion(start: 10, replacements: ["'Application Lifecycle'"]))
    #expect(
      completer.completion("log level 'Application L")
        == Completion(start: 10, replacements: ["'Application Lifecycle'"]))
    #expect(completer.completion("log level \"App").replacements == ["\"Application Lifecycle\""])
    #expect(
      completer.completion("log level Application\\ L").replacements == [
        "Application\\ Lifecycle"
      ])
    // When one candidate needs quotes, all get them, so that they keep a common prefix
    #expect(
      completer.completion("log level A").replacements == ["'API'", "'Application Lifecycle'"])
    // And a word that needs none stays bare
    #expect(completer.completion("log level AP") == Completion(start: 10, replacements: ["API"]))
    #expect(completer.completion("log level ").start == 10)
    #expect(completer.completion("echo $pr").replacements == [])
  }

  @Test("every quoting style reads back, through the lexer, as the value it quoted")
  func quotingRoundTrip() throws {
    let values = [
      "plain", "two words", "it's", #"say "hi""#, "a$b", "semi;colon", #"back\slash"#, "#hash",
    ]
    for style in [Quoting.single, .double, .backslash] {
      for value in values {
        let words = try Lexer.lex("echo " + style.quote(value)).first?.words ?? []
        #expect(words.count == 2, "\(style) \(value)")
        #expect(words.last?.text == value, "\(style) \(value)")
      }
    }
    // A directory keeps its quote open, so that the next Tab goes on inside it.
    #expect(Quoting.single.quote("my dir/") == "'my dir/")
  }

  @Test("a path, and a value after @ or NAME=@, complete file names; directories end in /")
  func fileNames() throws {
    let folder = try Scratch.directory("complete")
    try FileManager.default.createDirectory(
      atPath: folder + "/sub dir", withIntermediateDirectories: true)
    try Data("{}".utf8).write(to: URL(fileURLWithPath: folder + "/my notes.json"))
    try Data().write(to: URL(fileURLWithPath: folder + "/.hidden"))
    #expect(
      completer.complete("source \(folder)/") == [
        "\(folder)/my notes.json", "\(folder)/sub dir/",
      ])
    #expect(completer.complete("source \(folder)/.") == ["\(folder)/.hidden"])
    #expect(
      completer.completion("source \(folder)/my").replacements == ["'\(folder)/my notes.json'"])
    #expect(
      completer.completion("store persist bookmarks k @\(folder)/my").replacements == [
        "'@\(folder)/my notes.json'"
      ])
    #expect(
      completer.completion("session request POST /echo --file a=@\(folder)/s").replacements == [
        "'a=@\(folder)/sub dir/"
      ])
    #expect(completer.complete("store persist bookmarks k @@\(folder)/") == [])
    #expect(completer.complete("parse acknowledgements \(folder)/sub") == ["\(folder)/sub dir/"])
  }
}

@Suite("Typed parameters")
struct TypedParameterTests {
  @Test("every example in the help parses against its command's signature")
  func examplesParse() throws {
    let registry = AllGroups.registry
    var count = 0
    for group in registry.groups {
      for command in group.commands {
        for example in command.examples {
          for raw in try Lexer.lex(example) {
            let words = raw.words.map { Word($0.text, offset: $0.offset, isQuoted: $0.isQuoted) }
            #expect(throws: Never.self, "\(example)") {
              try ParsedCommand.parse(words, registry: registry)
            }
            count += 1
          }
        }
      }
    }
    #expect(count > 100)
  }

  @Test("every help example runs reading only the parameters its command declares")
  func examplesReadDeclaredParameters() async throws {
    // Examples that would block, wait or leave the test: they are parsed above, not run here.
    let skipped: Set<String> = ["serve", "board", "exit", "quit", "sleep", "record", "wait"]
    let (ran, reads) = try await offPool {
      let directory = NSTemporaryDirectory() + "archsh-examples-" + UUID().uuidString
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let harness = Harness()
      var ran = 0
      let reads = UndeclaredReads.collect {
        for group in AllGroups.registry.groups {
          for command in group.commands
          where !skipped.contains(group.name) && !skipped.contains(command.name) {
            for example in command.examples {
              harness.script([example], directory: directory)
              ran += 1
            }
          }
        }
      }
      return (ran, reads)
    }
    #expect(ran > 150)
    #expect(reads == [])
  }

  @Test("a read of a parameter the signature does not declare is recorded, and reads as absent")
  func undeclaredReadIsRecorded() throws {
    let declared = Option("shown", .text, "declared")
    let stray = Option("stray", .text, "not declared")
    let signature = Signature([declared])
    let parsed = try signature.parse(ArraySlice([Word("--shown"), Word("x")]), command: "demo")
    let reads = UndeclaredReads.collect {
      #expect(parsed[declared]?.text == "x")
      #expect(parsed[stray] == nil)
    }
    #expect(reads == ["stray (declared: shown)"])
  }

  @Test("a choice reads as its enum's case, and refuses any other word")
  func typedChoice() throws {
    let order = Option("order", Kind<OrderWord>.choice, "the order")
    let signature = Signature([order])
    let parsed = try signature.parse(ArraySlice([Word("--order"), Word("desc")]), command: "demo")
    #expect(parsed[order] == .desc)
    #expect(throws: ShellError.self) {
      try signature.parse(ArraySlice([Word("--order"), Word("down")]), command: "demo")
    }
  }

  @Test("every declared default converts to its parameter's type")
  func defaultsConvert() {
    for group in AllGroups.registry.groups {
      for command in group.commands {
        let signature = command.signature
        for (slot, parameter) in signature.parameters.enumerated()
        where parameter.defaultValue != nil {
          #expect(signature.defaults[slot] != nil, "\(command.name) \(parameter.name)")
        }
      }
    }
  }

  @Test("values are converted once, while parsing, to the declared type")
  func converted() throws {
    let count = Argument("N", .integer(1...9), "a count")
    let age = Option("age", .duration, "an age")
    let size = Option("size", .bytes, "a size")
    let keys = Many.arguments("KEY", .text, "keys", optional: true)
    let json = Flag("json", "as JSON")
    let signature = Signature([count, keys, age, size, json])
    let words = ["3", "a", "--age", "2m", "b", "--size=2KB", "--json"].enumerated().map {
      Word($0.element, offset: $0.offset)
    }
    let arguments = try signature.parse(words[...], command: "demo")
    #expect(try arguments[count] == 3)
    #expect(arguments[age] == 120)
    #expect(arguments[size] == 2048)
    #expect(arguments[keys].map(\.text) == ["a", "b"])
    #expect(arguments[json])
    #expect(arguments.word(for: age)?.text == "2m")
    let undeclared = Argument("OTHER", .text, "not in the signature")
    #expect(throws: ShellError.self) { try arguments[undeclared] }
    #expect(throws: ShellError.self) {
      try signature.parse([Word("0")][...], command: "demo")
    }
  }
}
