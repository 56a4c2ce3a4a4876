import Foundation
import Testing

/// What commands print and the status they end with, as a user of the binary sees them.
@Suite("output through the binary", .serialized)
struct OutputEndToEndTests {
  @Test("'api lint' with findings prints them, one a line, and exits 1 as a linter does")
  func lintFails() throws {
    let file = "examples/files/bad-collection.json"
    let result = try Binary.run(["--db", ":memory:", "-c", "api lint @\(file)"])
    #expect(result.status == 1)
    let findings = result.stdout.split(separator: "\n")
    #expect(findings.count == 8)
    #expect(
      findings.contains(
        "data[0].paging_id: expected a whole number; the original's code keeps any string [the convention's text]"
      ))
    #expect(
      result.stderr
        == "-c:1:10: error: 8 findings: the response departs from the BDModules API convention\n")
    // A walkthrough examines the failure with expect, which then passes.
    let examined = try Binary.run([
      "--db", ":memory:", "-c", "api lint @\(file); expect fails '8 findings'",
    ])
    #expect(examined.status == 0)
    #expect(examined.stdout.split(separator: "\n").count == 8)
  }

  @Test("a singleton's first construction is traced once under 'factory get', not twice")
  func singletonTracedOnce() throws {
    let result = try Binary.run([
      "--db", ":memory:", "-c",
      "trace on; factory get repositoryStore; factory get repositoryStore",
    ])
    #expect(result.status == 0)
    let spans = result.stdout.split(separator: "\n").filter { $0.contains("make repositoryStore") }
    #expect(spans.count == 2, "one build, then one reuse: \(spans)")
    #expect(spans.first?.contains("(lifetime: singleton, instance: built)") == true, "\(spans)")
    #expect(spans.first?.hasPrefix("└─ APIFactory") == true, "\(spans)")
    #expect(spans.last?.contains("instance: shared") == true, "\(spans)")
  }

  @Test("'db check' on a damaged file prints each problem on its own line, and counts them")
  func damagedCheck() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let db = directory + "/damaged.sqlite"
    let keys = (0..<300).map { "store persist generalCache k\($0) v\($0)" }.joined(separator: "\n")
    #expect(try Binary.run(["--db", db], input: keys + "\n").status == 0)
    #expect(try Binary.run(["--db", db, "-c", "db check"]).stdout == "ok\n")
    // An index on the entries, added here, is pointed at another index's empty tree: every entry
    // is then missing from it, which SQLite reports one problem at a time.
    let damage = Process()
    damage.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    damage.arguments = [
      db,
      """
      CREATE INDEX entry_by_bytes ON entry(store, bytes);
      PRAGMA writable_schema = ON;
      UPDATE sqlite_schema SET rootpage = (SELECT rootpage FROM sqlite_schema
        WHERE name = 'ds_block_by_order') WHERE name = 'entry_by_bytes';
      """,
    ]
    try damage.run()
    damage.waitUntilExit()
    #expect(damage.terminationStatus == 0)

    let result = try Binary.run(["--db", db, "-c", "db check"])
    #expect(result.status == 1)
    let problems = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
      .dropLast()
    #expect(problems.count == 100)
    #expect(problems.contains("row 1 missing from index entry_by_bytes"))
    #expect(!result.stdout.contains("\\n"))
    #expect(!result.stdout.contains("*** in database"))
    #expect(
      result.stderr
        == "-c:1:1: error: integrity check failed: at least 100 problems (copy the file aside before changing it)\n"
    )
  }

  @Test("wide characters take two columns: CJK rows stay inside the 'ds render' boxes")
  func wideCharacters() throws {
    let result = try Binary.run([
      "--db", ":memory:", "-c",
      "ds new cjk --rows '東京タワーの夜景と富士山の朝焼け' 'café au lait' 'e\u{301}👍 한국어'; "
        + "ds register cjk Text BasicCell; ds render cjk --width 30",
    ])
    #expect(result.status == 0)
    let box = result.stdout.split(separator: "\n").filter { $0.hasPrefix("│") || $0.hasPrefix("┌") }
    #expect(
      box == [
        "┌────────────────────────────┐",
        "│ 東京タワーの夜景と富士山…  │",
        "│                ‹basicCell› │",
        "│ café au lait   ‹basicCell› │",
        "│ e\u{301}👍 한국어     ‹basicCell› │",
      ])
  }

  @Test("at a terminal, wide tables fit its width; through a pipe they never depend on it")
  func tablesFitTheTerminal() throws {
    // The pseudo-terminal is 100 columns wide; 'factory list' is about 190 and 'model types' 300.
    var environment = Binary.environment(home: try Binary.makeTemporaryDirectory())
    environment["TERM"] = "xterm"
    let terminal = try PseudoTerminal(
      [Binary.path, "--db", ":memory:", "--no-rc", "-c", "factory list; model types"],
      environment: environment)
    #expect(try terminal.waitForExit() == 0)
    let lines = terminal.transcript.components(separatedBy: "\r\n")
    #expect(lines.contains { $0.hasPrefix("name:") && $0.hasSuffix("tracer") })
    #expect(lines.contains { $0.hasPrefix("Trip ") })
    let widest = lines.max { $0.count < $1.count } ?? ""
    #expect(widest.count <= 100, "\(widest.count) columns: \(widest)")

    let process = Process()
    process.executableURL = URL(fileURLWithPath: Binary.path)
    process.arguments = ["--db", ":memory:", "--no-rc", "-c", "factory list"]
    environment["COLUMNS"] = "80"
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let piped = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let rows = piped.split(separator: "\n")
    #expect(rows.first?.hasPrefix("name ") == true, "one row per product, as before")
    #expect(rows.contains { $0.count > 150 })
  }

  @Test("at the prompt, the caret stands under the word it points at, after wide characters too")
  func caretAfterWideCharacters() throws {
    var environment = Binary.environment(home: try Binary.makeTemporaryDirectory())
    environment["TERM"] = "xterm"
    let terminal = try PseudoTerminal(
      [Binary.path, "--db", ":memory:", "--no-rc"], environment: environment)
    try terminal.waitFor("archsh> ")
    let mark = terminal.mark
    terminal.type("echo 東京 $nope\r")
    try terminal.waitFor("error:", after: mark)
    let lines = terminal.transcript[mark...].components(separatedBy: "\r\n")
    // "archsh> echo 東京 " takes 18 columns: the prompt 8, "echo " 5, two ideographs 2 each, 1.
    #expect(lines.contains(String(repeating: " ", count: 18) + "^"), "\(lines)")
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
  }

  @Test("an empty list prints as [], not as nothing")
  func emptyList() throws {
    let result = try Binary.run(["--db", ":memory:", "-c", "session request GET /echo"])
    #expect(result.status == 0)
    #expect(result.stdout.contains(#""parameters":{},"parts":[]}}"#), "\(result.stdout)")
  }

  @Test("messages say what happened: a directory, a command that needs the embedded API")
  func preciseMessages() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let parsed = try Binary.run(
      ["--no-rc", "--db", ":memory:", "-c", "parse acknowledgements \(directory)"])
    #expect(parsed.stderr.contains("it is a directory"), "\(parsed.stderr)")
    #expect(!parsed.stderr.contains("permission denied"))
    let remote = try Binary.run(
      ["--no-rc", "--db", ":memory:", "--api", "http://127.0.0.1:9", "-c", "net locations 5"])
    #expect(
      remote.stderr
        == "-c:1:1: error: 'net locations' needs the embedded demo API, and archsh is using http://127.0.0.1:9 (start archsh without --api and ARCHSH_API)\n",
      "\(remote.stderr)")
    let login = try Binary.run(
      [
        "--no-rc", "--db", ":memory:", "--api", "http://127.0.0.1:9", "-c",
        "auth login ada@example.com lovelace",
      ])
    #expect(login.status == 1)
    #expect(!login.stderr.contains("credential is kept"), "\(login.stderr)")
    #expect(login.stderr.contains("nothing was stored"), "\(login.stderr)")
  }
}
