import Foundation
import Testing

/// A recording at the prompt keeps every secret out of its files, survives leaving archsh, and is
/// checkable without a terminal.
@Suite("recordings keep secrets out and survive leaving", .serialized)
struct RecordingSecretsTests {
  @Test(
    "secrets typed on the line or at a password prompt are named, never written, and given to --check from standard input or the environment; Ctrl-D writes the recording"
  )
  func secretsAndLeaving() throws {
    let home = try Binary.makeTemporaryDirectory()
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    let terminal = try PseudoTerminal(
      [Binary.path, "--no-rc", "--db", ":memory:"], environment: environment)
    var mark = try terminal.waitFor("archsh> ")
    func run(_ line: String) throws {
      terminal.type(line + "\r")
      mark = try terminal.waitFor("archsh> ", after: mark)
    }
    try run("record start \(home)/tour.ash")
    try run("set apikey s3cr3t-value --secret")
    // The terminal may show a secret's value; the recording never holds it.
    try run("echo $apikey")
    terminal.type("auth login ada@example.com\r")
    mark = try terminal.waitFor("password for ada@example.com: ", after: mark)
    try terminal.press("lovelace\r")
    mark = try terminal.waitFor("archsh> ", after: mark)
    try run("echo done")
    // Leaving while recording writes the recording, and says so.
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
    #expect(terminal.transcript.contains("a recording was running: it is written"))
    let script = try String(contentsOfFile: home + "/tour.ash", encoding: .utf8)
    let transcript = try String(contentsOfFile: home + "/tour.out", encoding: .utf8)
    for text in [script, transcript] {
      #expect(!text.contains("s3cr3t-value") && !text.contains("lovelace"), "\(text)")
    }
    #expect(script.contains("set apikey --secret\n"), "\(script)")
    #expect(script.contains("set password --secret\nauth login ada@example.com \"${password}\"\n"))
    #expect(
      script.contains("# Secrets this walkthrough asks for, in this order: apikey, password."))
    #expect(transcript.contains("<redacted>"))

    // Checked without a terminal: the secrets in order on standard input...
    let piped = try Binary.run(
      ["--check", home + "/tour.ash"], input: "s3cr3t-value\nlovelace\n", home: home)
    #expect(piped.status == 0, "\(piped.stdout)\(piped.stderr)")
    #expect(piped.stdout.contains("matches"))
    // ...or from the environment, named after them.
    let named = try Binary.run(
      ["--check", home + "/tour.ash"], input: "", home: home,
      environment: ["ARCHSH_SECRET_apikey": "s3cr3t-value", "ARCHSH_SECRET_password": "lovelace"])
    #expect(named.status == 0, "\(named.stdout)\(named.stderr)")
  }

  @Test("--check and --accept on a file that cannot be read say so, exit 2 and write nothing")
  func unreadableWalkthrough() throws {
    let directory = try Binary.makeTemporaryDirectory()
    for mode in ["--check", "--accept"] {
      let run = try Binary.run([mode, "typo.ash"], directory: directory)
      #expect(run.status == 2, "\(mode)")
      #expect(run.stdout.isEmpty)
      #expect(
        run.stderr
          == "archsh: error: cannot read 'typo.ash': no such file (check the walkthrough's path)\n")
      #expect(!FileManager.default.fileExists(atPath: directory + "/typo.out"))
    }
  }

  @Test("the board's token is shown at the terminal and never written into a recording")
  func boardToken() throws {
    let home = try Binary.makeTemporaryDirectory()
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    let terminal = try PseudoTerminal(
      [Binary.path, "--no-rc", "--db", ":memory:"], environment: environment)
    var mark = try terminal.waitFor("archsh> ")
    func run(_ line: String) throws {
      terminal.type(line + "\r")
      mark = try terminal.waitFor("archsh> ", after: mark)
    }
    try run("record start \(home)/board.ash")
    let before = mark
    try run("board open --port 0")
    let shown = String(terminal.transcript[before..<mark])
    let token = try #require(
      shown.range(of: "token=").map { String(shown[$0.upperBound...].prefix(32)) })
    #expect(token.count == 32, "\(shown)")
    try run("board close")
    try run("record stop")
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
    let transcript = try String(contentsOfFile: home + "/board.out", encoding: .utf8)
    #expect(!transcript.contains(token), "\(transcript)")
    #expect(transcript.contains("token=<redacted>"), "\(transcript)")
  }

  @Test(
    "a line stopped with Ctrl-C is kept as narration, not replayed; record stop names the secrets --check asks for"
  )
  func interruptedLine() throws {
    let home = try Binary.makeTemporaryDirectory()
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    let terminal = try PseudoTerminal(
      [Binary.path, "--no-rc", "--db", ":memory:"], environment: environment)
    var mark = try terminal.waitFor("archsh> ")
    func run(_ line: String) throws {
      terminal.type(line + "\r")
      mark = try terminal.waitFor("archsh> ", after: mark, seconds: 30)
    }
    try run("record start \(home)/tour.ash")
    try run("set apikey s3cr3t-value --secret")
    terminal.type("sleep 30s\r")
    try terminal.interrupt()
    mark = try terminal.waitFor("archsh> ", after: mark)
    try run("echo after")
    let before = mark
    try run("record stop")
    let said = String(terminal.transcript[before..<mark])
    #expect(
      said.contains("it asks for a secret, which it does not hold: apikey"), "\(said)")
    #expect(said.contains("it reproduces its transcript"), "\(said)")
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
    let script = try String(contentsOfFile: home + "/tour.ash", encoding: .utf8)
    #expect(
      script.contains(
        "# Interrupted with Ctrl-C while recording, so not replayed:\n#   sleep 30s\necho after\n"),
      "\(script)")
    #expect(!script.contains("expect fails"), "\(script)")
  }
}
