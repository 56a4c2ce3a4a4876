import Foundation
import Testing

/// A secret's value, as it is and in every encoding a request gives it, stays out of everything
/// that leaves the terminal.
@Suite("a secret in any encoding stays out of everything kept or sent", .serialized)
struct SecretFormsTests {
  @Test(
    "a secret used in a query, a header, a JSON body and a form is found neither raw nor encoded in the log, the workspace file, trace export, a recording or the board's stream"
  )
  func everyEncoding() throws {
    let home = try Binary.makeTemporaryDirectory()
    let db = home + "/work.sqlite"
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    let terminal = try PseudoTerminal(
      [Binary.path, "--no-rc", "--db", db], environment: environment)
    var mark = try terminal.waitFor("archsh> ")
    func run(_ line: String, seconds: Double = 15) throws {
      terminal.type(line + "\r")
      mark = try terminal.waitFor("archsh> ", after: mark, seconds: seconds)
    }
    let before = mark
    try run("board open --port 0")
    let shown = String(terminal.transcript[before..<mark])
    let address = try #require(
      shown.firstMatch(of: /127\.0\.0\.1:([0-9]+)\/\?token=([0-9a-f]{32})/))
    let port = try #require(Int(address.1))
    let events = try BoardTests.get("/events?token=\(address.2)", port: port)
    _ = events.read(until: "event: snapshot")

    // Every encoded form of this value holds "hunter2": it is what is searched for.
    try run(#"set S 'hunter2 p@ss/"x' --secret"#)
    try run("record start \(home)/tour.ash")
    try run("trace on")
    let used = mark
    try run(#"session request GET /echo -p "q=$S" -H "X-Note:$S""#)
    try run(#"session request POST /echo -p "name=$S""#)
    try run("auth login ada@example.com \"$S\"")
    try run(#"net get "/echo?note=$S""#)
    // The terminal may show it (the user typed it): proof that it was sent.
    #expect(terminal.transcript[used...].contains("hunter2"))
    try run("log show")
    try run("trace export \(home)/trace.svg")
    try run("trace export --format mermaid \(home)/trace.mmd")
    try run("record stop", seconds: 60)
    try run("echo the-end")
    let stream = events.read(until: "the-end", seconds: 10)
    terminal.type("quit\r")
    #expect(try terminal.waitForExit() == 0)

    #expect(stream.contains(#""kind":"http""#) && stream.contains("<redacted>"))
    var kept: [(String, String)] = [("the board's stream", stream)]
    for name in [
      "work.sqlite", "work.sqlite-wal", "trace.svg", "trace.mmd", "tour.ash", "tour.out",
      "state/archsh/history",
    ] {
      guard let data = FileManager.default.contents(atPath: home + "/" + name) else {
        #expect(name == "work.sqlite-wal", "\(name) was not written")
        continue
      }
      kept.append((name, String(decoding: data, as: UTF8.self)))
    }
    #expect(kept.count >= 7)
    for (name, text) in kept {
      #expect(!text.contains("hunter2"), "\(name) holds the secret")
    }
    // The log kept the requests, redacted.
    let log = try Binary.run(["--no-rc", "--db", db, "-c", "log show"])
    #expect(log.stdout.contains("<redacted>") && !log.stdout.contains("hunter2"), "\(log.stdout)")
  }

  @Test("a URL with a password is refused wherever it is given, and the password is never shown")
  func urlPasswords() throws {
    let home = try Binary.makeTemporaryDirectory()
    let api = try Binary.run(
      ["--no-rc", "--api", "http://ada:s3cr3tpw@127.0.0.1:9/", "-c", "net api"], home: home)
    #expect(api.status == 2)
    #expect(
      api.stderr.contains(
        "'http://ada:***@127.0.0.1:9/' cannot be the API's base URL: it holds a password"),
      "\(api.stderr)")
    let lines = try Binary.run(
      [
        "--no-rc", "--keep-going", "--db", home + "/w.sqlite", "-c",
        "session base http://ada:s3cr3tpw@127.0.0.1:9/", "-c",
        "net get http://ada:s3cr3tpw@127.0.0.1:9/x", "-c", "log show", "-c", "session base",
      ], home: home)
    #expect(lines.status == 1)
    #expect(!(lines.stdout + lines.stderr).contains("s3cr3tpw"), "\(lines.stdout)\(lines.stderr)")
    #expect(lines.stderr.contains("cannot be the base URL: it holds a password"), "\(lines.stderr)")
    #expect(lines.stderr.contains("cannot be sent: it holds a password"), "\(lines.stderr)")
    let file = try #require(FileManager.default.contents(atPath: home + "/w.sqlite"))
    #expect(!String(decoding: file, as: UTF8.self).contains("s3cr3tpw"))
  }

  @Test("a secret, from a --secret variable or typed as an Authorization header, reaches no output")
  func secretsStayOut() throws {
    let home = try Binary.makeTemporaryDirectory()
    let database = home + "/work.sqlite"
    let export = home + "/trace.mmd"
    let script = """
      set tok supersecret999 --secret
      trace on
      session request GET /echo -H "Authorization:Bearer $tok"
      session request GET /echo -H 'Authorization: Bearer literalsecret777' -H X-Trace:on
      time session request GET /echo -H "Cookie:session=$tok"
      trace export --format mermaid --force \(export)
      trace off
      log show --tag API
      """
    for json in [false, true] {
      let result = try Binary.run(
        ["--no-rc", "--db", database] + (json ? ["--json"] : []), input: script, home: home)
      #expect(result.status == 0, "\(result.stderr)")
      for secret in ["supersecret999", "literalsecret777"] {
        #expect(!result.stdout.contains(secret), "\(result.stdout)")
        #expect(!result.stderr.contains(secret), "\(result.stderr)")
      }
      // The trace's root line names the command with the secret word redacted.
      #expect(
        json
          || result.stdout.contains(
            "archsh session request GET /echo -H <redacted>  "),
        "\(result.stdout)")
    }
    let exported = try String(contentsOfFile: export, encoding: .utf8)
    #expect(!exported.contains("supersecret999") && !exported.contains("literalsecret777"))
    #expect(exported.contains("<redacted>"), "\(exported)")
    // Nothing in the workspace file (the kept log included) holds either secret.
    let stored = try Data(contentsOf: URL(fileURLWithPath: database))
    let text = String(decoding: stored, as: UTF8.self)
    #expect(!text.contains("supersecret999") && !text.contains("literalsecret777"))
  }

  @Test("a line with a literal Authorization header stays out of history; one with $tok is kept")
  func secretsStayOutOfHistory() throws {
    let home = try Binary.makeTemporaryDirectory()
    let terminal = try PseudoTerminal(
      [Binary.path, "--no-rc", "--db", ":memory:"], environment: terminalEnvironment(home: home))
    try terminal.waitFor("archsh> ")
    try terminal.typeAtPrompt([
      "set tok supersecret999 --secret",
      "session request GET /echo -H 'Authorization:Bearer literalsecret777'",
      "session request GET /echo -H \"Authorization:Bearer $tok\"",
    ])
    var mark = terminal.mark
    terminal.type("history\r")
    mark = try terminal.waitFor("history\r\n", after: mark)
    try terminal.waitFor("archsh> ", after: mark)
    let listed = terminal.transcript[mark...]
    #expect(listed.contains("Bearer $tok"), "\(listed)")
    #expect(!listed.contains("literalsecret777") && !listed.contains("supersecret999"))
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
    let saved = try String(contentsOfFile: home + "/state/archsh/history", encoding: .utf8)
    #expect(!saved.contains("literalsecret777") && !saved.contains("supersecret999"), "\(saved)")
    #expect(saved.contains("$tok"), "\(saved)")
  }
}
