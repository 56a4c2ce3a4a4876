import Foundation
import Testing

/// What arrives as data (a server's fields, a stored value, a script's words, the environment)
/// cannot drive the terminal, and mistakes about files are caught before anything is made.
@Suite("data from outside is shown safely", .serialized)
struct HostileDataTests {
  /// Whether `text` holds a byte that a terminal would act on: a C0 control but a line feed or a
  /// tab, ESC, DEL, or a C1 control.
  private func holdsControls(_ text: String) -> Bool {
    text.unicodeScalars.contains {
      ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value)
    }
  }

  @Test("a server's fields with escape sequences are shown escaped, and exact in --json")
  func serverFields() throws {
    let server = try HostileServerTests.Server()
    defer { server.stop() }
    let shown = try Binary.run(
      [
        "--no-rc", "--db", ":memory:", "--api", server.url, "-c", "product update 66", "-c",
        "product list --cached",
      ])
    #expect(shown.status == 0, "\(shown.stderr)")
    #expect(!holdsControls(shown.stdout), "\(shown.stdout.debugDescription)")
    #expect(shown.stdout.contains("\\e[31mRED\\e]2;pwned\\a"), "\(shown.stdout)")
    #expect(shown.stdout.contains("\\e]52;c;cHduZWQ=\\aclip"), "\(shown.stdout)")
    #expect(shown.stdout.contains("\\e]8;;http://evil.example\\e\\link"), "\(shown.stdout)")
    let json = try Binary.run(
      ["--no-rc", "--db", ":memory:", "--api", server.url, "--json", "-c", "product update 66"])
    #expect(json.status == 0, "\(json.stderr)")
    #expect(json.stdout.contains("\\u001b[31mRED\\u001b]2;pwned\\u0007"), "\(json.stdout)")
  }

  @Test("a stored value and a key with escape sequences are shown escaped")
  func storedValues() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let file = directory + "/value.txt"
    try Data("title:\u{1B}]0;pwned\u{07} red:\u{1B}[31mRED\u{9B}".utf8).write(
      to: URL(fileURLWithPath: file))
    let run = try Binary.run(
      [
        "--no-rc", "--db", directory + "/w.sqlite", "-c", "store persist generalCache k @\(file)",
        "-c", "store retrieve generalCache k", "-c", "store keys generalCache",
      ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(!holdsControls(run.stdout), "\(run.stdout.debugDescription)")
    #expect(run.stdout.contains("title:\\e]0;pwned\\a red:\\e[31mRED\\u{9b}"), "\(run.stdout)")
  }

  @Test(
    "an error echoes a script's word escaped, and a word longer than 200 characters cut, with its length"
  )
  func errorsEchoWordsSafely() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let script = directory + "/bad.ash"
    try "\u{1B}[31mRED\u{07}\u{9B}x\n".write(
      toFile: script, atomically: true, encoding: .utf8)
    let escaped = try Binary.run(["--no-rc", "--db", ":memory:", "-f", script])
    #expect(escaped.status == 1)
    #expect(!holdsControls(escaped.stderr), "\(escaped.stderr.debugDescription)")
    #expect(
      escaped.stderr.hasPrefix("\(script):1:1: error: unknown command '\\e[31mRED\\a\\u{9b}x'"),
      "\(escaped.stderr)")
    let long = String(repeating: "x", count: 5000)
    let cut = try Binary.run(["--no-rc", "--db", ":memory:", "-c", long])
    #expect(cut.status == 1)
    #expect(
      cut.stderr
        == "-c:1:1: error: unknown command '\(String(repeating: "x", count: 200))…' (5000 characters) (try 'help')\n",
      "\(cut.stderr)")
  }

  @Test("a script that starts with a UTF-8 byte-order mark runs")
  func byteOrderMark() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let script = directory + "/bom.ash"
    try Data([0xEF, 0xBB, 0xBF] + Array("echo hi\n".utf8)).write(to: URL(fileURLWithPath: script))
    let run = try Binary.run(["--no-rc", "--db", ":memory:", "-f", script])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout == "hi\n")
    let piped = try Binary.run(["--no-rc", "--db", ":memory:"], input: "\u{FEFF}echo piped\n")
    #expect(piped.status == 0, "\(piped.stderr)")
    #expect(piped.stdout == "piped\n")
  }

  @Test("'>' and '|' are refused with what to use instead; quoted, they are words")
  func noRedirection() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let run = try Binary.run(
      ["--no-rc", "--db", ":memory:", "-c", "echo hi > out.txt"], directory: directory)
    #expect(run.status == 1)
    #expect(run.stdout.isEmpty)
    #expect(
      run.stderr
        == "-c:1:9: error: archsh has no redirection or pipes: '>' would be a word of 'echo' (quote it to mean the word; write a file with 'trace export FILE', or redirect archsh itself from your shell: archsh --json -c 'LINE' > FILE)\n",
      "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: directory + "/out.txt"))
    let piped = try Binary.run(["--no-rc", "--db", ":memory:", "-c", "store keys | grep a"])
    #expect(piped.status == 1)
    #expect(piped.stderr.contains("archsh has no redirection or pipes: '|'"), "\(piped.stderr)")
    let quoted = try Binary.run(["--no-rc", "--db", ":memory:", "-c", "echo a '>' b"])
    #expect(quoted.stdout == "a > b\n")
  }

  @Test("--db in a folder that does not exist is a usage error that creates nothing")
  func missingFolder() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let path = directory + "/no/such/dir/w.sqlite"
    let run = try Binary.run(["--no-rc", "--db", path, "-c", "echo hi"])
    #expect(run.status == 2)
    #expect(run.stdout.isEmpty)
    #expect(
      run.stderr
        == "archsh: error: the folder '\(directory)/no/such/dir' of the workspace given to --db does not exist (create it first; archsh creates only its default location's folders)\n"
    )
    #expect(!FileManager.default.fileExists(atPath: directory + "/no"))
    // The default location's folders are made.
    let home = try Binary.makeTemporaryDirectory()
    let fresh = try Binary.run(["--no-rc", "-c", "store stores"], home: home)
    #expect(fresh.status == 0, "\(fresh.stderr)")
    #expect(FileManager.default.fileExists(atPath: home + "/data/archsh/workspace.sqlite"))
  }

  @Test("with no HOME and no XDG_DATA_HOME archsh says so, and writes nothing where it runs")
  func noHome() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Binary.path)
    process.arguments = ["--no-rc", "-c", "echo hi"]
    process.environment = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1"]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 2)
    #expect(
      text
        == "archsh: error: neither HOME nor XDG_DATA_HOME is set, so archsh has no default workspace (give one with --db PATH, or --db :memory:)\n"
    )
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
  }

  @Test("~ in a file path is the home folder")
  func tilde() throws {
    let home = try Binary.makeTemporaryDirectory()
    try "echo from home\n".write(toFile: home + "/x.ash", atomically: true, encoding: .utf8)
    let run = try Binary.run(
      [
        "--no-rc", "--db", ":memory:", "-c", "source ~/x.ash", "-c", "trace on", "-c",
        "store stores", "-c", "trace export ~/t.mmd",
      ], home: home)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.hasPrefix("from home\n"), "\(run.stdout)")
    #expect(FileManager.default.fileExists(atPath: home + "/t.mmd"))
  }

  @Test(
    "a workspace with a trigger archsh did not create is refused for writing, with its name; reads work and db check reports it"
  )
  func plantedTrigger() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let database = directory + "/w.sqlite"
    let made = try Binary.run(
      ["--no-rc", "--db", database, "-c", "store persist generalCache k v"])
    #expect(made.status == 0, "\(made.stderr)")
    let sqlite = Process()
    sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    sqlite.arguments = [
      database,
      "CREATE TABLE loot(stolen TEXT); CREATE TRIGGER steal AFTER INSERT ON entry BEGIN "
        + "INSERT INTO loot VALUES (NEW.key); END;",
    ]
    try sqlite.run()
    sqlite.waitUntilExit()
    #expect(sqlite.terminationStatus == 0)
    let read = try Binary.run(["--no-rc", "--db", database, "-c", "store retrieve generalCache k"])
    #expect(read.status == 0, "\(read.stderr)")
    #expect(read.stdout.contains("v"), "\(read.stdout)")
    let write = try Binary.run(
      ["--no-rc", "--db", database, "-c", "store persist generalCache k2 v2"])
    #expect(write.status == 1)
    #expect(
      write.stderr.contains(
        "the workspace '\(database)' holds SQL that archsh did not write (trigger 'steal')"),
      "\(write.stderr)")
    let check = try Binary.run(["--no-rc", "--db", database, "-c", "db check"], merge: true)
    #expect(check.status == 1)
    #expect(
      check.stdout.contains(
        "trigger 'steal' was not created by archsh: the workspace is refused for writing"),
      "\(check.stdout)")
    let count = Process()
    count.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    count.arguments = [database, "SELECT count(*) FROM loot"]
    let output = Pipe()
    count.standardOutput = output
    try count.run()
    let stolen = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    count.waitUntilExit()
    #expect(stolen == "0\n")
  }
}
