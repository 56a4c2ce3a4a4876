import Foundation
import Testing

@Suite("interactive details on a pseudo-terminal", .serialized)
struct InteractiveDetailTests {
  private func start(_ extra: [String: String] = [:]) throws -> PseudoTerminal {
    let home = try Binary.makeTemporaryDirectory()
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    environment.removeValue(forKey: "NO_COLOR")
    for (key, value) in extra { environment[key] = value }
    let terminal = try PseudoTerminal([Binary.path, "--no-rc"], environment: environment)
    try terminal.waitFor("archsh> ")
    return terminal
  }

  @Test(
    "auth login asks for the password without echo, and neither it nor a token is saved in history")
  func passwordPrompt() throws {
    let home = try Binary.makeTemporaryDirectory()
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    let terminal = try PseudoTerminal(
      [Binary.path, "--no-rc", "--db", home + "/work.sqlite"], environment: environment)
    try terminal.waitFor("archsh> ")
    let mark = terminal.mark
    terminal.type("auth login ada@example.com\r")
    try terminal.waitFor("password for ada@example.com: ", after: mark)
    let typed = terminal.mark
    try terminal.press("lovelace\r")
    let shown = try terminal.waitFor("stored_in:", after: typed)
    try terminal.waitFor("archsh> ", after: shown)
    #expect(!terminal.transcript[typed...].contains("lovelace"), "\(terminal.transcript)")
    terminal.type("auth login ada@example.com lovelace\r")
    try terminal.waitFor("archsh> ", after: terminal.waitFor("stored_in:", after: shown))
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
    let saved = try String(contentsOfFile: home + "/state/archsh/history", encoding: .utf8)
    #expect(saved.contains("auth\\040login\\040ada@example.com\n"))
    #expect(!saved.contains("lovelace"))
  }

  @Test(
    "a password typed the moment its prompt shows is read; what is typed after its Enter is discarded, not run"
  )
  func passwordTypedAhead() throws {
    let home = try Binary.makeTemporaryDirectory()
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    let terminal = try PseudoTerminal(
      [Binary.path, "--no-rc", "--db", home + "/work.sqlite"], environment: environment)
    var mark = try terminal.waitFor("archsh> ")
    for round in 1...5 {
      terminal.type("auth login ada@example.com\r")
      mark = try terminal.waitFor("password for ada@example.com: ", after: mark)
      // No pause: the password, and the password again (typed twice, without echo), in one write.
      terminal.type("lovelace\rlovelace\r")
      mark = try terminal.waitFor("stored_in:", after: mark)
      mark = try terminal.waitFor("archsh> ", after: mark)
      try terminal.press("echo round \(round)\r")
      mark = try terminal.waitFor("\nround \(round)\r\n", after: mark)
    }
    #expect(!terminal.transcript.contains("lovelace"), "\(terminal.transcript)")
    #expect(!terminal.transcript.contains("unknown command"), "\(terminal.transcript)")
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
    let saved = try String(contentsOfFile: home + "/state/archsh/history", encoding: .utf8)
    #expect(!saved.contains("lovelace"))
  }

  @Test("Ctrl-C at the password prompt cancels the login and the prompt comes back")
  func passwordPromptInterrupt() throws {
    let home = try Binary.makeTemporaryDirectory()
    let terminal = try PseudoTerminal(
      [Binary.path, "--no-rc", "--db", home + "/work.sqlite"],
      environment: terminalEnvironment(home: home))
    try terminal.waitFor("archsh> ")
    var mark = terminal.mark
    terminal.type("auth login ada@example.com\r")
    mark = try terminal.waitFor("password for ada@example.com: ", after: mark)
    try terminal.press("half\u{03}")
    mark = try terminal.waitFor(
      "error: the login was cancelled (Ctrl-C at the password prompt; nothing was sent)",
      after: mark, seconds: 5)
    try terminal.waitFor("archsh> ", after: mark)
    // The session goes on, with echo back on: what is typed is shown.
    mark = terminal.mark
    terminal.type("echo alive-after-cancel\r")
    mark = try terminal.waitFor("echo alive-after-cancel\r\n", after: mark)
    mark = try terminal.waitFor("alive-after-cancel\r\n", after: mark)
    try terminal.waitFor("archsh> ", after: mark)
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
    #expect(!terminal.transcript.contains("half"))
  }

  @Test("Ctrl-C at the password prompt of a -c run ends archsh with the terminal restored")
  func passwordPromptInterruptInScript() throws {
    let home = try Binary.makeTemporaryDirectory()
    let line =
      "\"$0\" --no-rc --db :memory: -c 'auth login ada@example.com'; echo \"status=$?\"; stty -a"
    let terminal = try PseudoTerminal(
      ["/bin/sh", "-c", line, Binary.path], environment: terminalEnvironment(home: home))
    let mark = try terminal.waitFor("password for ada@example.com: ")
    try terminal.press("\u{03}")
    let ended = try terminal.waitFor("status=130", after: mark, seconds: 5)
    try terminal.waitFor("icanon", after: ended)
    #expect(try terminal.waitForExit() == 0)
    let settings = terminal.transcript[ended...]
    let flags = Set(settings.split(whereSeparator: \.isWhitespace).map(String.init))
    for flag in ["echo", "icanon", "isig"] {
      #expect(flags.contains(flag) && !flags.contains("-" + flag), "\(flag): \(settings)")
    }
  }

  @Test("non-ASCII input arrives intact, and a continued line shows the ...> prompt")
  func unicodeAndContinuation() throws {
    let terminal = try start()
    var mark = terminal.mark
    terminal.type("echo café ☕ \\\r")
    mark = try terminal.waitFor("...> ", after: mark)
    terminal.type("naïve\r")
    try terminal.waitFor("café ☕ naïve\r\n", after: mark)
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
  }

  @Test("colour on a terminal: bold table headers and a red error label; NO_COLOR turns it off")
  func colour() throws {
    let coloured = try start()
    var mark = coloured.mark
    coloured.type("set a 1; vars; ech\r")
    mark = try coloured.waitFor("\u{1B}[1mname  value\u{1B}[0m", after: mark)
    try coloured.waitFor("\u{1B}[1;31merror:\u{1B}[0m unknown command 'ech'", after: mark)
    try coloured.press("\u{04}")
    #expect(try coloured.waitForExit() == 0)

    let plain = try start(["NO_COLOR": "1"])
    mark = plain.mark
    plain.type("set a 1; vars; ech\r")
    try plain.waitFor("error: unknown command 'ech'", after: mark)
    #expect(!plain.transcript.contains("\u{1B}[1m"))
    try plain.press("\u{04}")
    #expect(try plain.waitForExit() == 0)
  }

  @Test("Ctrl-R searches the history")
  func reverseSearch() throws {
    let terminal = try start()
    var mark = terminal.mark
    terminal.type("echo first-entry\r")
    mark = try terminal.waitFor("archsh> ", after: terminal.waitFor("first-entry\r\n", after: mark))
    terminal.type("echo second\r")
    mark = try terminal.waitFor("archsh> ", after: terminal.waitFor("second\r\n", after: mark))
    try terminal.press("\u{12}")
    terminal.type("first")
    try terminal.waitFor("echo first-entry", after: mark)
    terminal.type("\r")
    mark = try terminal.waitFor("first-entry\r\n", after: mark)
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
  }

  @Test("Tab quotes a name with a space, and completes the file names of @FILE and source")
  func quotedCompletion() throws {
    // A short folder, so that the typed lines fit the terminal's 80 columns.
    let folder = "/tmp/ash-" + UUID().uuidString.prefix(6)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try FileManager.default.createDirectory(
      atPath: folder + "/sub dir", withIntermediateDirectories: true)
    try "hello notes".write(toFile: folder + "/my notes.txt", atomically: false, encoding: .utf8)
    try "echo sourced-from-sub-dir\n".write(
      toFile: folder + "/sub dir/inner.ash", atomically: false, encoding: .utf8)
    let terminal = try start()

    // "App" completes to the tag, quoted, so that the next word is the level.
    var mark = terminal.mark
    try terminal.press("log level App\t")
    mark = try terminal.waitFor("'Application Lifecycle' ", after: mark)
    terminal.type("Warning\r")
    mark = try terminal.waitFor(
      "Application Lifecycle: lines at Warning and above are kept", after: mark)
    try terminal.waitFor("archsh> ", after: mark)

    // @FILE completes a file name with a space, quoting the whole word.
    mark = terminal.mark
    try terminal.press("store persist generalCache note @\(folder)/my\t")
    mark = try terminal.waitFor(" notes.txt' ", after: mark)
    terminal.type("\r")
    try terminal.waitFor("archsh> ", after: mark)
    mark = terminal.mark
    terminal.type("store retrieve generalCache note\r")
    mark = try terminal.waitFor("hello notes\r\n", after: mark)
    try terminal.waitFor("archsh> ", after: mark)

    // source: a directory keeps its quote open, and the next Tab goes on inside it.
    mark = terminal.mark
    try terminal.press("source \(folder)/su\t")
    mark = try terminal.waitFor("b dir/", after: mark)
    try terminal.press("in\t")
    mark = try terminal.waitFor("ner.ash' ", after: mark)
    terminal.type("\r")
    mark = try terminal.waitFor("sourced-from-sub-dir\r\n", after: mark)
    try terminal.waitFor("archsh> ", after: mark)
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
  }

  @Test("Tab completes coordinator names, the screen's events and their product ids")
  func coordinatorCompletion() throws {
    let terminal = try start()
    var mark = terminal.mark
    terminal.type("app start --session s3cr3t\r")
    mark = try terminal.waitFor("ProfileFlowCoordinator [profile]  Profile", after: mark)
    try terminal.waitFor("archsh> ", after: mark)

    // "disc" completes to the coordinator, "media" to Discover's event
    mark = terminal.mark
    try terminal.press("event send disc\t")
    mark = try terminal.waitFor("over ", after: mark)
    try terminal.press("media\t")
    mark = try terminal.waitFor("ItemSelected ", after: mark)
    // Its argument is a product id: Tab twice lists the ids Discover shows
    try terminal.press("1\t\t")
    mark = try terminal.waitFor("15", after: mark)
    // The listing is followed by the line drawn again; Ctrl-C then discards it
    mark = try terminal.waitFor("archsh> event send discover mediaItemSelected 1", after: mark)
    try terminal.press("\u{03}")
    mark = try terminal.waitFor("archsh> ", after: mark)

    terminal.type("event send discover mediaItemSelected 4\r")
    mark = try terminal.waitFor(
      "~ DiscoverFlowCoordinator stack: Discover › MediaItem(4)", after: mark)
    try terminal.waitFor("archsh> ", after: mark)
    // Now the top screen is MediaItem(4): its events complete, and Discover's no longer do
    mark = terminal.mark
    try terminal.press("event send discover ba\t")
    mark = try terminal.waitFor("ckTapped ", after: mark)
    terminal.type("\r")
    mark = try terminal.waitFor("~ DiscoverFlowCoordinator pops MediaItem(4)", after: mark)
    try terminal.waitFor("archsh> ", after: mark)
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
    // The half-typed line discarded by Ctrl-C never ran
    #expect(!terminal.transcript.contains("pushes MediaItem(1)"))
  }

  @Test("Ctrl-C during a slow request cancels it and returns to the prompt; Tab offers product ids")
  func cancelRequest() throws {
    let home = try Binary.makeTemporaryDirectory()
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    let terminal = try PseudoTerminal(
      [Binary.path, "--no-rc", "--db", ":memory:"], environment: environment)
    try terminal.waitFor("archsh> ")
    var mark = terminal.mark
    terminal.type("net fault GET /products/4 --delay 30s\r")
    mark = try terminal.waitFor("fault added", after: mark)
    try terminal.waitFor("archsh> ", after: mark)

    mark = terminal.mark
    let start = Date()
    terminal.type("product update 4\r")
    try terminal.waitFor("product update 4\r\n", after: mark)
    try terminal.interrupt()
    mark = try terminal.waitFor(
      "error: cannot update 4: the request to http://127.0.0.1:", after: mark, seconds: 5)
    mark = try terminal.waitFor("/products/4 was cancelled (nothing is cached for it)", after: mark)
    try terminal.waitFor("archsh> ", after: mark)
    #expect(Date().timeIntervalSince(start) < 10)

    // The session goes on; the ids of the last listing complete.
    mark = terminal.mark
    terminal.type("product list --offset 40 --limit 2\r")
    mark = try terminal.waitFor("products 41–42 of 100", after: mark)
    try terminal.waitFor("archsh> ", after: mark)
    mark = terminal.mark
    try terminal.press("product show 4\t\t")
    mark = try terminal.waitFor("41", after: mark)
    // The listing is followed by the line drawn again; Ctrl-C discards it for a new prompt.
    mark = try terminal.waitFor("archsh> product show 4", after: mark)
    try terminal.press("\u{03}")
    try terminal.waitFor("\r\narchsh> ", after: mark)
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
  }

  @Test("Ctrl-C ends 'sleep' at once, and it fails")
  func sleepInterrupt() throws {
    let home = try Binary.makeTemporaryDirectory()
    let terminal = try PseudoTerminal(
      [Binary.path, "--no-rc", "--db", ":memory:"], environment: terminalEnvironment(home: home))
    try terminal.waitFor("archsh> ")
    var mark = terminal.mark
    terminal.type("sleep 6s\r")
    mark = try terminal.waitFor("sleep 6s\r\n", after: mark)
    let started = Date()
    try terminal.interrupt()
    mark = try terminal.waitFor("error: 'sleep' was interrupted", after: mark, seconds: 4)
    try terminal.waitFor("archsh> ", after: mark)
    #expect(Date().timeIntervalSince(started) < 3)
    mark = terminal.mark
    terminal.type("echo status $?\r")
    try terminal.waitFor("status 1\r\n", after: mark)
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
  }
}
