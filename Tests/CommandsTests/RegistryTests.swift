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
        from: BDModules (003)

        ApplicationFactory creates the other factories (APIFactory, ModelFactory,
        JSONFactory, DataSourceFactory, EntryFactory, MainFactory), and they build every
        controller the shell drives, down to each DataSourceController,
        NavigationController, TableViewProvider, translator and JSON coder. As in
        BDModules, a singleton (a lazy var there, a property here) is built on first use
        and shared; a prototype (a method) is built on every request. The rule, from
        BDModules' README (Scope): public lazy instance variables are retained for the
        factory's lifetime and are how singletons are kept and injected throughout the
        application; public methods return prototypes, new with each call. So, wiring a
        new API: what every user must share one of (a logger, the JSON serializer, the
        token's OAuth2Authorization) is a lazy var; what each user configures or owns
        alone (a view controller, a request's session manager) is a method. Each product
        is declared once, typed by what it builds, and its type's name is the Swift
        type's own. What a product is injected with is not declared anywhere: the
        factories record what each builder asks them for, so the graph shows the real
        architecture.

        commands:
          factory list    every product: its factory, scope, origin, type, times built, what it is
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
