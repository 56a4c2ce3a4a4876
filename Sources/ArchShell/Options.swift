import ArgumentParser
import CBuildInfo
import Commands

/// The process options, parsed by swift-argument-parser.
struct Options: ParsableCommand {
  static let version = "0.1.0"

  /// The version and the commit it was built from: `archsh 0.1.0 (81d3e70a1b2c)`, with `-dirty`
  /// when the tree had changes.
  static var versionLine: String {
    "archsh \(version) (\(String(cString: archsh_build_commit())))"
  }

  static let configuration = CommandConfiguration(
    commandName: "archsh",
    abstract: "A shell for exploring a classic iOS app architecture.",
    discussion: """
      With a terminal on standard input, archsh starts the interactive shell; otherwise it reads \
      standard input as a script. -c and -f run in the order given. Words after the options, \
      without -f, run as one command: 'archsh help --markdown'. Exit status: 0 when everything \
      succeeded, 1 when a command failed, 2 for a usage error.
      """,
    version: versionLine
  )

  @ArgumentParser.Option(
    name: .customShort("f"),
    help: ArgumentHelp("Run a script; the words after it are its $1…$9.", valueName: "file"),
    completion: .file(extensions: ["ash"]))
  var file: [String] = []

  @ArgumentParser.Option(
    name: .customShort("c"),
    help: ArgumentHelp(
      "Run one line (repeatable; with several, an error names its line: -c#2:1:9).",
      valueName: "line"))
  var command: [String] = []

  @ArgumentParser.Option(
    help: ArgumentHelp(
      "The workspace database (':memory:' keeps it in memory).", valueName: "path"),
    completion: .file())
  var db: String?

  @ArgumentParser.Option(
    help: ArgumentHelp(
      "Another server for the networking commands (default: the embedded demo API).",
      valueName: "url"))
  var api: String?

  @ArgumentParser.Option(
    help: ArgumentHelp(
      "A PEM file of CA certificates to trust for https:// besides the system's (a private or self-signed server).",
      valueName: "file"),
    completion: .file())
  var cacert: String?

  @ArgumentParser.Flag(help: "Print results as JSON, one document per command.")
  var json = false

  @ArgumentParser.Flag(
    name: .customLong("keep-going"), help: "Keep running a script after a failed command.")
  var keepGoing = false

  @ArgumentParser.Flag(help: "Print each command line, with the prompt, before its output.")
  var echo = false

  @ArgumentParser.Flag(
    help: "Run the whole script in one transaction: any failure rolls everything back.")
  var atomic = false

  @ArgumentParser.Flag(
    name: .customLong("no-rc"), help: "Do not source ~/.config/archsh/rc.ash at interactive start.")
  var noRC = false

  @ArgumentParser.Flag(
    help: "Open the live board (a page on 127.0.0.1) before anything runs, and print its address.")
  var board = false

  @ArgumentParser.Flag(
    help: """
      Step through a script (-f FILE or --tour NAME) one command at a time: its narration, then \
      Enter runs, s skips, b goes back, j jumps to the next chapter, q quits. Needs a terminal.
      """)
  var step = false

  @ArgumentParser.Option(
    help: ArgumentHelp(
      "With --step: start at this chapter (its title, or its number), after replaying the ones before.",
      valueName: "chapter"))
  var from: String?

  @ArgumentParser.Option(
    help: ArgumentHelp(
      "Run the walkthrough NAME wherever archsh's walkthroughs are installed ('help walkthroughs'), in a fresh in-memory workspace unless --db is given.",
      valueName: "name"),
    completion: .custom { _, _, _ in Walkthroughs.all().map(\.name) })
  var tour: String?

  @ArgumentParser.Option(
    help: ArgumentHelp(
      "Add a teacher's course: a folder with walkthroughs/, exercises/ and commands/ (repeatable; ARCHSH_COURSES adds more, separated by ':').",
      valueName: "dir"),
    completion: .directory)
  var course: [String] = []

  @ArgumentParser.Flag(
    help:
      "Run each walkthrough given and compare it with its .out transcript; print a unified diff.")
  var check = false

  @ArgumentParser.Flag(help: "Like --check, and write each run as the new transcript.")
  var accept = false

  @ArgumentParser.Argument(
    parsing: .captureForPassthrough,
    help: ArgumentHelp("A script's arguments, or a command to run.", valueName: "word"))
  var words: [String] = []

  func validate() throws {
    var launch = LaunchOptions(self, arguments: [])
    launch.actions = command.map { .line($0) } + file.map { .file($0) }
    if let problem = launch.problem {
      throw ValidationError(problem)
    }
    // Passthrough capture stops at the first word it does not know, so an unknown option, and
    // the automatic --help and --version, arrive here as the first captured word.
    // `--` ends the options: the words after it are a command, whatever they look like.
    guard file.isEmpty, let first = words.first, first.hasPrefix("-"), first != "--" else {
      return
    }
    switch first {
    case "--help", "-h": throw CleanExit.helpRequest(self)
    case "--version": throw CleanExit.message(Options.versionLine)
    // ArgumentParser's model of these options as JSON, which scripts/option-table reads.
    case "--experimental-dump-help": throw CleanExit.message(Options._dumpHelp())
    default:
      let known =
        OptionTable.valued.sorted() + OptionTable.flags.sorted() + ["--help", "--version"]
      let name = String(first.prefix { $0 != "=" })
      let hint = ShellError.didYouMean(name, among: known).map { " (\($0))" } ?? ""
      throw ValidationError("unknown option '\(name)'\(hint)")
    }
  }

  /// What to run, in the order the options were given.
  enum Action: Equatable {
    case line(String)
    case file(String)
  }

  /// Recovers the order of `-c` and `-f`, which the parsed properties lose.
  static func orderedActions(_ arguments: [String]) -> [Action] {
    var actions: [Action] = []
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      if argument == "--" { break }
      if argument == "-c" || argument == "-f" {
        guard index + 1 < arguments.count else { break }
        let value = arguments[index + 1]
        actions.append(argument == "-c" ? .line(value) : .file(value))
        index += 2
        continue
      }
      // ArgumentParser takes `-c=LINE` and `-f=FILE` too.
      if argument.hasPrefix("-c=") || argument.hasPrefix("-f=") {
        let value = String(argument.dropFirst(3))
        actions.append(argument.hasPrefix("-c") ? .line(value) : .file(value))
        index += 1
        continue
      }
      if OptionTable.valued.contains(argument) {
        index += 2
        continue
      }
      if !argument.hasPrefix("-") { break }
      index += 1
    }
    return actions
  }
}

/// What archsh was asked to do, as plain values, whichever parser read the arguments.
struct LaunchOptions: Equatable {
  /// `-c` lines and the `-f` script, in the order given.
  var actions: [Options.Action] = []
  /// The script's arguments with `-f`; otherwise a command to run.
  var words: [String] = []
  var database: String?
  var api: String?
  var cacert: String?
  var json = false
  var keepGoing = false
  var echo = false
  var atomic = false
  var noRC = false
  var board = false
  var step = false
  var from: String?
  var tour: String?
  var courses: [String] = []
  var check = false
  var accept = false

  /// Whether `-f` was given.
  var hasScript: Bool { actions.contains { if case .file = $0 { true } else { false } } }

  /// The options ArgumentParser parsed, with the order of `-c` and `-f` recovered from `arguments`.
  init(_ options: Options, arguments: [String]) {
    actions = Options.orderedActions(arguments)
    // Whatever form the order could not be recovered from, no line or file is dropped: they run
    // -c lines first, then the file.
    if actions.count != options.command.count + options.file.count {
      actions = options.command.map { .line($0) } + options.file.map { .file($0) }
    }
    // Without -f, a leading `--` only ends the options; with -f, the script's words are its own.
    words =
      options.file.isEmpty && options.words.first == "--"
      ? Array(options.words.dropFirst()) : options.words
    database = options.db
    api = options.api
    cacert = options.cacert
    json = options.json
    keepGoing = options.keepGoing
    echo = options.echo
    atomic = options.atomic
    noRC = options.noRC
    board = options.board
    step = options.step
    from = options.from
    tour = options.tour
    courses = options.course
    check = options.check || options.accept
    accept = options.accept
  }

  private init() {}

  /// Why these options cannot be combined, if they cannot: the rules ArgumentParser's `validate`
  /// and the scanner share.
  var problem: String? {
    if atomic && keepGoing {
      return "--atomic and --keep-going cannot be combined: --atomic stops at the first error"
    }
    if from != nil && !step {
      return "--from applies to --step: 'archsh --step --from CHAPTER -f FILE'"
    }
    if step && check {
      return "--step and --check cannot be combined: --check runs without a presenter"
    }
    let scripts = actions.filter { if case .file = $0 { true } else { false } }.count
    if tour != nil && scripts > 0 { return "--tour and -f both name a script; give one of them" }
    if scripts > 1 { return "-f may be given once; use 'source' inside the script for more files" }
    return nil
  }

  /// Sets the option `name` (as `OptionTable` lists it) to `value`, or the flag `name`.
  private mutating func set(_ name: String, _ value: String?) -> Bool {
    switch (name, value) {
    case ("-c", let line?): actions.append(.line(line))
    case ("-f", let file?): actions.append(.file(file))
    case ("--db", let path?): database = path
    case ("--api", let url?): api = url
    case ("--cacert", let file?): cacert = file
    case ("--from", let chapter?): from = chapter
    case ("--tour", let name?): tour = name
    case ("--course", let folder?): courses.append(folder)
    case ("--json", nil): json = true
    case ("--keep-going", nil): keepGoing = true
    case ("--echo", nil): echo = true
    case ("--atomic", nil): atomic = true
    case ("--no-rc", nil): noRC = true
    case ("--board", nil): board = true
    case ("--step", nil): step = true
    case ("--check", nil): check = true
    case ("--accept", nil):
      accept = true
      check = true
    default: return false
    }
    return true
  }

  /// Reads the common argument forms without ArgumentParser, or returns nil for anything else.
  ///
  /// ArgumentParser builds its model of the options through reflection and protocol-conformance
  /// lookups, which are slow in a static binary. This scanner knows the options from
  /// `OptionTable`, which `make docs` generates from ArgumentParser's own declarations (`archsh
  /// --experimental-dump-help`), and accepts only separate `-c LINE`, `--name VALUE` and `--flag`
  /// forms, each once but the repeatable ones, and bare words. An option value that starts with
  /// `-`, `--`, `--help`, `--version`, joined forms, a combination `problem` refuses, and every
  /// unknown or malformed input go to ArgumentParser, which stays the authority for help,
  /// versions and usage errors. A test checks that both agree for every option.
  static func scan(_ arguments: [String]) -> LaunchOptions? {
    var result = LaunchOptions()
    var seen = Set<String>()
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      if OptionTable.valued.contains(argument) {
        guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") else { return nil }
        guard seen.insert(argument).inserted || OptionTable.repeating.contains(argument),
          result.set(argument, arguments[index + 1])
        else { return nil }
        index += 2
      } else if OptionTable.flags.contains(argument) {
        guard seen.insert(argument).inserted, result.set(argument, nil) else { return nil }
        index += 1
      } else {
        guard !argument.hasPrefix("-") else { return nil }
        result.words = Array(arguments[index...])
        break
      }
    }
    return result.problem == nil ? result : nil
  }
}
