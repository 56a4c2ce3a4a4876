import Foundation
import Testing

/// `archsh --step` and `record start`/`record stop`, on a real pseudo-terminal, against the binary
/// that ships.
@Suite("step mode and recording on a pseudo-terminal", .serialized)
struct StepModeTests {
  static let keysScript = """
    # A walkthrough to present.

    ## One
    # The first step says one.
    echo one
    # The second step is skipped.
    set skipped yes
    # The third step waits, until Ctrl-C cancels it.
    sleep 30s

    ## Two
    # The fourth step runs quietly when j jumps.
    echo four-ran
    # The fifth too.
    echo five-ran

    ## Three
    # The sixth step is where j lands.
    echo six
    """

  static func start(_ script: String, _ extra: [String] = []) throws -> (PseudoTerminal, String) {
    let home = try Binary.makeTemporaryDirectory()
    try script.write(toFile: home + "/tour.ash", atomically: false, encoding: .utf8)
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    let terminal = try PseudoTerminal(
      [Binary.path, "--step", "-f", home + "/tour.ash"] + extra, environment: environment)
    return (terminal, home)
  }

  @Test(
    "Enter runs a step, s skips it, Ctrl-C cancels the running command and not the demo, j jumps to the next chapter, q quits"
  )
  func keys() throws {
    let (terminal, _) = try Self.start(Self.keysScript)
    var mark = try terminal.waitFor("── step 1 of 6 · chapter 1/3: One ──")
    try terminal.waitFor("The first step says one.", after: mark)
    try terminal.waitFor("Enter run · s skip · b back · j next chapter · q quit", after: mark)
    mark = terminal.mark
    try terminal.press("\r")
    try terminal.waitFor("── step 2 of 6", after: terminal.waitFor("one\r\n", after: mark))
    mark = terminal.mark
    try terminal.press("s")
    try terminal.waitFor("── step 3 of 6", after: terminal.waitFor("skipped step 2", after: mark))
    mark = terminal.mark
    try terminal.press("\r")
    try terminal.interrupt()
    mark = try terminal.waitFor("Ctrl-C cancelled step 3; the demo goes on", after: mark)
    mark = try terminal.waitFor("── step 4 of 6 · chapter 2/3: Two ──", after: mark)
    try terminal.press("j")
    // Each step j replays is named before it runs, so a long one does not look like a hang.
    mark = try terminal.waitFor("replaying step 4 of 6: echo four-ran", after: mark)
    mark = try terminal.waitFor("replaying step 5 of 6: echo five-ran", after: mark)
    mark = try terminal.waitFor("ran the rest of the chapter quietly", after: mark)
    try terminal.waitFor("── step 6 of 6 · chapter 3/3: Three ──", after: mark)
    // The output of the steps j ran quietly is not shown; their lines were, in their headers.
    #expect(!terminal.transcript.components(separatedBy: "\r\n").contains("four-ran"))
    mark = terminal.mark
    try terminal.press("q")
    try terminal.waitFor("quit at step 6 of 6", after: mark)
    // The cancelled step counts as a failed one.
    #expect(try terminal.waitForExit() == 1)
  }

  static let backScript = """
    # Going back rebuilds the state.

    ## Rows
    # A list.
    ds new todo
    # One row.
    ds row add todo 0 0 a
    # Two.
    ds row add todo 0 1 b
    # Three.
    ds row add todo 0 2 c
    # Four.
    ds row add todo 0 3 d

    ## Counting
    # How many rows?
    ds count todo
    # The end.
    echo done
    """

  @Test("b from step 6 shows step 5 with the state of steps 1–4, rebuilt in a fresh workspace")
  func back() throws {
    let (terminal, home) = try Self.start(Self.backScript)
    var mark = try terminal.waitFor("── step 1 of 7")
    for step in 2...6 {
      try terminal.press("\r")
      mark = try terminal.waitFor(
        "Enter run", after: terminal.waitFor("── step \(step) of 7", after: mark))
    }
    // At step 6, b: step 5 again, with the state before it (steps 1–4).
    mark = terminal.mark
    try terminal.press("b")
    mark = try terminal.waitFor("back to step 5", after: mark)
    mark = try terminal.waitFor("── step 5 of 7", after: mark)
    // Skip step 5; counting then shows what steps 1–4 made.
    try terminal.press("s")
    mark = try terminal.waitFor("── step 6 of 7", after: mark)
    try terminal.press("\r")
    let counted = try terminal.waitFor("── step 7 of 7", after: mark)
    let shown = String(terminal.transcript[mark..<counted])
    try terminal.press("q")
    _ = try terminal.waitForExit()
    // The same steps run as a script give the same count.
    let lines = Self.backScript.split(separator: "\n").filter {
      !$0.hasPrefix("#") && !$0.isEmpty
    }.map(String.init)
    let plain = try Binary.run(
      ["--no-rc", "--db", ":memory:"] + (lines[0..<4] + [lines[5]]).flatMap { ["-c", $0] },
      directory: home)
    let count = plain.stdout.split(separator: "\n").last.map(String.init) ?? ""
    #expect(count.contains("3"), "\(plain.stdout)")
    #expect(shown.contains(count), "step mode showed \(shown.debugDescription), a script \(count)")
  }

  @Test("--step without a terminal is a usage error, as in psql; --from names a chapter")
  func usage() throws {
    let home = try Binary.makeTemporaryDirectory()
    try Self.keysScript.write(toFile: home + "/tour.ash", atomically: false, encoding: .utf8)
    let piped = try Binary.run(["--step", "-f", "tour.ash"], directory: home)
    #expect(piped.status == 2)
    #expect(
      piped.stderr
        == "archsh: error: --step needs a terminal on standard input, to read the presenter's keys (run the script with -f instead)\n"
    )
    // --db :memory: names what step mode uses anyway: it is accepted; a file is not.
    let memory = try Binary.run(["--step", "--db", ":memory:", "-f", "tour.ash"], directory: home)
    #expect(memory.stderr == piped.stderr)
    let file = try Binary.run(["--step", "--db", "w.sqlite", "-f", "tour.ash"], directory: home)
    #expect(file.status == 2 && file.stderr.contains("--db does not apply"))
    let unknown = try Binary.run(["--step", "--from", "Four", "-f", "tour.ash"], directory: home)
    #expect(unknown.status == 2)
    #expect(
      unknown.stderr.contains("has no chapter 'Four' (its chapters: 1 'One', 2 'Two', 3 'Three')"))
  }

  @Test("--from CHAPTER replays the chapters before it quietly and starts there")
  func from() throws {
    let (terminal, _) = try Self.start(
      Self.keysScript.replacingOccurrences(of: "sleep 30s", with: "echo three"), ["--from", "two"])
    let mark = try terminal.waitFor("replayed 3 steps quietly, to start at chapter 2, 'Two'")
    try terminal.waitFor("── step 4 of 6 · chapter 2/3: Two ──", after: mark)
    #expect(!terminal.transcript.contains("one\r\n"))
    try terminal.press("q")
    #expect(try terminal.waitForExit() == 0)
  }

  @Test("--step --tour NAME finds an installed walkthrough; help walkthroughs lists them all")
  func tour() throws {
    let home = try Binary.makeTemporaryDirectory()
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    let terminal = try PseudoTerminal(
      [Binary.path, "--step", "--tour", "emptystate"], environment: environment)
    try terminal.waitFor("chapter 1/5: An empty list")
    try terminal.press("q")
    #expect(try terminal.waitForExit() == 0)
    let listed = try Binary.run(["help", "walkthroughs"], directory: home)
    let names = try FileManager.default.contentsOfDirectory(atPath: Binary.root + "/examples")
      .filter { $0.hasSuffix(".ash") }.map { String($0.dropLast(4)) }
    #expect(names.count >= 15)
    for name in names { #expect(listed.stdout.contains("\n  \(name) "), "\(name)") }
  }

  @Test(
    "a recorded session with a failed line and a secret replays clean, and nothing secret is written"
  )
  func recording() throws {
    let home = try Binary.makeTemporaryDirectory()
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    let terminal = try PseudoTerminal(
      [Binary.path, "--no-rc", "--db", ":memory:"], environment: environment)
    var mark = try terminal.waitFor("archsh> ")
    let lines = [
      "record start \(home)/tour.ash",
      "# Log in, with a password typed on the line.",
      "auth login ada@example.com lovelace",
      "# A typo: the recording keeps the error.",
      "store retreive generalCache greeting",
      "set token s3cr3t-value --secret",
      "echo the token is set",
      "user me",
      "record stop",
    ]
    for line in lines.dropLast() {
      terminal.type(line + "\r")
      mark = try terminal.waitFor("archsh> ", after: terminal.waitFor(line, after: mark))
    }
    terminal.type("record stop\r")
    try terminal.waitFor(
      "it reproduces its transcript", after: terminal.waitFor("wrote ", after: mark))
    terminal.type("quit\r")
    _ = try terminal.waitForExit()
    let script = try String(contentsOfFile: home + "/tour.ash", encoding: .utf8)
    let transcript = try String(contentsOfFile: home + "/tour.out", encoding: .utf8)
    #expect(
      script == """
        # Secrets this walkthrough asks for, in this order: password, token. At a terminal it asks; without one, give them as the lines of standard input, in this order, or as environment variables ARCHSH_SECRET_NAME (for example ARCHSH_SECRET_password).
        # Log in, with a password typed on the line.
        set password --secret
        auth login ada@example.com "${password}"
        # A typo: the recording keeps the error.
        store retreive generalCache greeting
        expect fails "unknown verb 'retreive' for 'store'"
        set token --secret
        echo the token is set
        user me

        """)
    for secret in ["lovelace", "s3cr3t-value"] {
      #expect(!script.contains(secret) && !transcript.contains(secret))
    }
    // The transcript names the walkthrough from its own folder.
    #expect(
      transcript.contains("\ntour.ash:6:7: expected error: unknown verb 'retreive' for 'store'"))
    let mode = try FileManager.default.attributesOfItem(atPath: home + "/tour.out")[
      .posixPermissions]
    #expect(mode as? Int == 0o600)
    // Checked later, the walkthrough asks for its secrets: here on standard input.
    let checked = try Binary.run(
      ["--check", home + "/tour.ash"], input: "lovelace\ns3cr3t-value\n", directory: home)
    #expect(checked.stdout == "\(home)/tour.ash: matches \(home)/tour.out\n", "\(checked.stdout)")
  }
}
