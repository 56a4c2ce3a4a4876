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

  /// Runs `sql` on `database` with the sqlite3 program, as someone changing the file by hand.
  private func changeOutsideArchsh(_ database: String, _ sql: String) throws {
    let sqlite = Process()
    sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    sqlite.arguments = [database, sql]
    try sqlite.run()
    sqlite.waitUntilExit()
    #expect(sqlite.terminationStatus == 0, "\(sql)")
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
    try changeOutsideArchsh(
      database,
      "CREATE TABLE loot(stolen TEXT); CREATE TRIGGER steal AFTER INSERT ON entry BEGIN "
        + "INSERT INTO loot VALUES (NEW.key); END;")
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

  @Test(
    "a data source change that the workspace refuses leaves the session showing what the workspace holds"
  )
  func refusedDataSourceChange() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let database = directory + "/w.sqlite"
    let made = try Binary.run(["--no-rc", "--db", database, "-c", "ds new t --rows a b"])
    #expect(made.status == 0, "\(made.stderr)")
    try changeOutsideArchsh(
      database,
      "CREATE TRIGGER refuse BEFORE UPDATE ON ds_block BEGIN SELECT RAISE(ABORT, 'no'); END;")
    let session = try Binary.run([
      "--no-rc", "--keep-going", "--db", database, "-c", "ds row add t 0 0 x --quiet", "-c",
      "ds row remove t 0 1 --quiet", "-c", "ds count t", "-c", "ds model t 0 0",
    ])
    #expect(session.status == 1)
    #expect(session.stderr.split(separator: "\n").count == 2, "\(session.stderr)")
    #expect(
      session.stdout
        == "total_row_count:  2\nsections:         1\nrows_per_section: 2\n"
        + "index_path: 0-0\nmodel_type: Text\nvalue:      a\ncell:       errorCell\n")
  }

  @Test(
    "values of the wrong type, written outside archsh, fail the commands that read them in one line, and db check names them"
  )
  func mistypedValues() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let database = directory + "/w.sqlite"
    let made = try Binary.run([
      "--no-rc", "--db", database, "-c", "store persist generalCache k v", "-c",
      "store persist user u v", "-c", "repo new items /users/me/locations", "-c",
      "log level API Verbose", "-c", "ds new d --rows a b",
    ])
    #expect(made.status == 0, "\(made.stderr)")
    try changeOutsideArchsh(
      database,
      "UPDATE entry SET created_at = 'x\u{1B}[31m' WHERE key = 'k'; UPDATE store SET ttl = 'maybe' "
        + "WHERE name = 'bookmarks'; UPDATE repositories SET total = x'00ff'; "
        + "UPDATE logger_settings SET threshold = 'high'; "
        + "UPDATE entry SET access_count = -1 WHERE key = 'u'; UPDATE ds_block SET count = -3; "
        + #"CREATE TABLE "x"" WHERE 1 --" (a INTEGER); INSERT INTO "x"" WHERE 1 --" VALUES ('t');"#)
    let hint =
      " ('db check' looks for more; mend the file with sqlite3, or use another workspace with --db)\n"
    let damaged = "-c:1:1: error: the workspace '\(database)' is damaged: "
    for (command, error) in [
      ("store entries generalCache", #"entry.created_at of 'k' holds "x\e[31m", not a number"#),
      ("store stores", "store.ttl of 'bookmarks' holds \"maybe\", not a boolean"),
      ("repo list", "repositories.total of 'items' holds a blob of 2 bytes, not an integer"),
      ("log tags", "logger_settings.threshold of 'API' holds \"high\", not an integer"),
      ("store entries user", "entry.access_count of 'u' holds -1, not a count from 0 to 2^53"),
      ("ds list", "ds_block.rows of 'd' holds -3, not a count from 0 to 2^53"),
    ] {
      let run = try Binary.run(["--no-rc", "--db", database, "-c", command])
      #expect(run.status == 1, "\(command)")
      #expect(run.stdout == "", "\(command): \(run.stdout)")
      #expect(run.stderr == damaged + error + hint, "\(command)")
    }
    // What is sound stays readable.
    let read = try Binary.run(["--no-rc", "--db", database, "-c", "store retrieve generalCache k"])
    #expect(read.status == 0, "\(read.stderr)")
    #expect(read.stdout == "v\n")
    let check = try Binary.run(["--no-rc", "--db", database, "-c", "db check"])
    #expect(check.status == 1)
    #expect(
      check.stdout == """
        ds_block.count: 1 row holds a count below 0 or above 2^53
        entry.created_at: 1 row holds text, where archsh keeps a number
        entry.access_count: 1 row holds a count below 0 or above 2^53
        logger_settings.threshold: 1 row holds text, where archsh keeps an integer
        repositories.total: 1 row holds blob, where archsh keeps an integer
        store.ttl: 1 row holds text, where archsh keeps an integer
        x" WHERE 1 --.a: 1 row holds text, where archsh keeps an integer

        """)
    #expect(
      check.stderr
        == "-c:1:1: error: integrity check failed: 7 problems (copy the file aside before changing it)\n"
    )
  }

  @Test(
    "a saved app state changed outside archsh is named by its place in the JSON, and 'app reset' clears it"
  )
  func damagedAppState() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let database = directory + "/w.sqlite"
    let made = try Binary.run(["--no-rc", "--db", database, "-c", "app start"])
    #expect(made.status == 0, "\(made.stderr)")
    for (snapshot, error) in [
      (#"{"flow":"#, "app_state.snapshot: it is not valid JSON"),
      (
        #"{"flow":"login","stacks":{"login":[5]}}"#,
        "app_state.snapshot at 'stacks.login[0]': expected a string"
      ),
    ] {
      try changeOutsideArchsh(
        database, "UPDATE app_state SET snapshot = '\(snapshot)'")
      let run = try Binary.run(["--no-rc", "--db", database, "-c", "app start"])
      #expect(run.status == 1)
      #expect(
        run.stderr
          == "-c:1:1: error: the saved app state cannot be read (\(error)) ('app reset' clears it)\n"
      )
    }
    let reset = try Binary.run(["--no-rc", "--db", database, "-c", "app reset", "-c", "app start"])
    #expect(reset.status == 0, "\(reset.stderr)")
    #expect(reset.stdout.contains("LoginFlowCoordinator"), "\(reset.stdout)")
  }

  @Test(
    "sections whose positions a file changed to infinities are numbered again when one is inserted between them, in order"
  )
  func infinitePositions() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let database = directory + "/w.sqlite"
    let made = try Binary.run([
      "--no-rc", "--db", database, "-c", "ds new t --rows a b", "-c", "ds section add t --rows x y",
    ])
    #expect(made.status == 0, "\(made.stderr)")
    // Between -inf and +inf the midpoint is NaN, which SQLite stores as NULL.
    try changeOutsideArchsh(
      database,
      "UPDATE ds_section SET ord = -9e999 WHERE id = 1; UPDATE ds_section SET ord = 9e999 WHERE id = 2;"
    )
    let added = try Binary.run([
      "--no-rc", "--db", database, "-c", "ds section add t --rows m n --at 1 --quiet",
    ])
    #expect(added.status == 0, "\(added.stderr)")
    let shown = try Binary.run([
      "--no-rc", "--db", database, "-c", "ds model t 0 0", "-c", "ds model t 1 0", "-c",
      "ds model t 2 0",
    ])
    #expect(shown.status == 0, "\(shown.stderr)")
    let values = shown.stdout.split(separator: "\n").filter { $0.hasPrefix("value:") }
    #expect(values == ["value:      a", "value:      m", "value:      x"], "\(shown.stdout)")
  }

  @Test(
    "a model type with a line break is refused, since it would come back from the workspace split in two"
  )
  func modelTypeWithLineBreak() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let database = directory + "/w.sqlite"
    let refused = try Binary.run([
      "--no-rc", "--db", database, "-c", "ds new t", "-c",
      #"ds row add t 0 0 '{"type":"Game\nCell","n":1}'"#,
    ])
    #expect(refused.status == 1)
    #expect(
      refused.stderr
        == #"-c#2:1:18: error: a JSON model's 'type' is a type name, such as Game, with no line break or other control character: {"type":"Game\nCell","n":1}"#
        + "\n")
    let kept = try Binary.run([
      "--no-rc", "--db", database, "-c", #"ds row add t 0 0 '{"type":"Game","n":1}' --quiet"#,
      "-c", "ds model t 0 0",
    ])
    #expect(kept.status == 0, "\(kept.stderr)")
    let reloaded = try Binary.run(["--no-rc", "--db", database, "-c", "ds model t 0 0"])
    let model = "model_type: Game\nvalue:      {\"type\":\"Game\",\"n\":1}\n"
    #expect(kept.stdout.contains(model), "\(kept.stdout)")
    #expect(reloaded.stdout.contains(model), "\(reloaded.stdout)")
  }

  @Test("a sections file is checked field by field, each error naming its place in the file")
  func sectionsFile() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let cases: [(String, String)] = [
      (
        #"[{"header": 5, "rows": "notarray"}]"#,
        "at $[0].header: expected text or null, found a number"
      ),
      (
        #"[{"header": "A", "rows": "notarray"}]"#,
        "at $[0].rows: expected an array of rows, found text"
      ),
      (
        #"[{"rows": ["a"]}, {"rows": ["b", 7]}]"#,
        "at $[1].rows[1]: expected a row (text or a model object), found a number"
      ),
      (#"[{"row": []}]"#, "at $[0].row: unknown field"),
      (#"{"rows": []}"#, "at $: expected an array of sections, found an object"),
    ]
    for (index, (json, message)) in cases.enumerated() {
      try json.write(toFile: directory + "/s\(index).json", atomically: true, encoding: .utf8)
      let run = try Binary.run(
        [
          "--no-rc", "--db", ":memory:", "-c", "ds new menu --sections @s\(index).json", "-c",
          "ds list",
        ],
        directory: directory)
      #expect(run.status == 1)
      #expect(run.stderr.contains("'s\(index).json' \(message)"), "\(json): \(run.stderr)")
      #expect(run.stdout.isEmpty)
    }
    try
      #"[{"header": "Fruit", "footer": null, "rows": ["Apple", {"type": "Note", "text": "ripe"}]}]"#
      .write(toFile: directory + "/good.json", atomically: true, encoding: .utf8)
    let good = try Binary.run(
      ["--no-rc", "--db", ":memory:", "-c", "ds new menu --sections @good.json"],
      directory: directory)
    #expect(good.stdout == "created menu: 1 section, 2 rows\n", "\(good.stderr)")
  }

  @Test("a list too long for one line shows its first items and its length; --json has it all")
  func longList() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let sections = (0..<300).map { #"{"rows":["r\#($0)"]}"# }.joined(separator: ",")
    try "[\(sections)]".write(toFile: directory + "/many.json", atomically: true, encoding: .utf8)
    let db = directory + "/w.sqlite"
    let made = try Binary.run(
      ["--no-rc", "--db", db, "-c", "ds new many --sections @many.json"], directory: directory)
    #expect(made.status == 0, "\(made.stderr)")
    let text = try Binary.run(["--no-rc", "--db", db, "-c", "ds count many"])
    let ones = Array(repeating: "1", count: 20).joined(separator: ", ")
    #expect(
      text.stdout == """
        total_row_count:  300
        sections:         300
        rows_per_section: \(ones), … (300 in all; --json lists every one)

        """, "\(text.stdout)")
    let json = try Binary.run(["--no-rc", "--json", "--db", db, "-c", "ds count many"])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    #expect((object["rows_per_section"] as? [Int])?.count == 300)
  }

  @Test("in a folder that cannot be written, reads work and a write says why it cannot")
  func readOnlyFolder() throws {
    let directory = try Binary.makeTemporaryDirectory() + "/locked"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    let db = directory + "/w.sqlite"
    let made = try Binary.run(["--no-rc", "--db", db, "-c", "store persist generalCache k v"])
    #expect(made.status == 0, "\(made.stderr)")
    chmod(directory, 0o555)
    defer { chmod(directory, 0o755) }
    let read = try Binary.run(["--no-rc", "--db", db, "-c", "store retrieve generalCache k"])
    #expect(read.status == 0, "\(read.stderr)")
    #expect(read.stdout.contains("v"))
    let write = try Binary.run(["--no-rc", "--db", db, "-c", "store persist generalCache k2 v2"])
    #expect(write.status == 1)
    #expect(
      write.stderr.contains(
        "the workspace '\(db)' is read-only, so 'store persist' cannot write; reads still work (make the file and its folder writable"
      ),
      "\(write.stderr)")
  }

  @Test("Ctrl-C stops 'ds new --generate', in the making or the writing, and keeps nothing")
  func interruptedGenerate() throws {
    let home = try Binary.makeTemporaryDirectory()
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    let terminal = try PseudoTerminal(
      [Binary.path, "--no-rc", "--db", home + "/w.sqlite"], environment: environment)
    var mark = try terminal.waitFor("archsh> ")
    // Early, the rows are being made; later, the statements writing them run.
    for (name, delay) in [("early", 200_000), ("late", 1_600_000)] {
      terminal.type("ds new \(name) --generate 10000000\r")
      usleep(useconds_t(delay))
      terminal.type("\u{03}")
      let before = mark
      mark = try terminal.waitFor("archsh> ", after: mark, seconds: 30)
      let said = String(terminal.transcript[before..<mark])
      #expect(said.contains("interrupted"), "\(name): \(said)")
      #expect(!said.contains("created \(name)"), "\(name): \(said)")
    }
    let before = mark
    terminal.type("ds list\r")
    mark = try terminal.waitFor("archsh> ", after: mark)
    let listed = String(terminal.transcript[before..<mark])
    #expect(!listed.contains("early") && !listed.contains("late"), "\(listed)")
    terminal.type("quit\r")
    #expect(try terminal.waitForExit() == 0)

    // SIGTERM stops a script in its statements, and the workspace holds nothing of them.
    let script = try PseudoTerminal(
      [
        Binary.path, "--no-rc", "--db", home + "/w.sqlite", "-c", "ds new term --generate 10000000",
      ],
      environment: environment)
    usleep(1_600_000)
    let sent = Date()
    kill(script.pid, SIGTERM)
    #expect(try script.waitForExit() == 143, "\(script.transcript)")
    #expect(Date().timeIntervalSince(sent) < 3)
    let after = try Binary.run([
      "--no-rc", "--db", home + "/w.sqlite", "-c", "ds list", "-c", "db check",
    ])
    #expect(!after.stdout.contains("term"), "\(after.stdout)")
    #expect(after.status == 0, "\(after.stderr)")
  }

  @Test(
    "archsh serve answers only to its own Host, takes at most 1 MiB at /echo, and closes a connection that sends no request for 10 s"
  )
  func serveBounds() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Binary.path)
    process.arguments = ["serve", "--port", "0"]
    process.environment = Binary.environment(home: try Binary.makeTemporaryDirectory())
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    var text = ""
    let deadline = Date().addingTimeInterval(20)
    while !text.contains("\n"), Date() < deadline {
      text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
    }
    let port = try #require(text.firstMatch(of: /127\.0\.0\.1:([0-9]+)/).flatMap { Int($0.1) })

    // A page whose own name was made to resolve to 127.0.0.1 sends that name: it is refused.
    let rebound = try BoardTests.get("/products?limit=1", port: port, host: "evil.example:\(port)")
    let refused = rebound.read(until: "}")
    #expect(refused.hasPrefix("HTTP/1.1 421"), "\(refused)")
    #expect(refused.contains(#""code":"MISDIRECTED""#))
    let own = try BoardTests.get("/products?limit=1", port: port)
    #expect(own.read(until: "}").hasPrefix("HTTP/1.1 200"))

    // 2 MiB to /echo is refused; 512 KiB is echoed.
    let posted = Process()
    posted.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    posted.arguments = [
      "python3", "-c",
      """
      import sys, urllib.request, urllib.error
      for size in (2 << 20, 512 << 10):
          request = urllib.request.Request(sys.argv[1] + "/echo", b"x" * size, method="POST")
          try:
              status = urllib.request.urlopen(request, timeout=10).status
          except urllib.error.HTTPError as error:
              status = error.code
          except (ConnectionError, urllib.error.URLError):
              status = "closed"
          sys.stdout.write(f"{size}:{status} ")
      """,
      "http://127.0.0.1:\(port)",
    ]
    let postedOutput = Pipe()
    posted.standardOutput = postedOutput
    try posted.run()
    let statuses = String(
      decoding: postedOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    posted.waitUntilExit()
    #expect(statuses == "2097152:413 524288:200 ", "\(statuses)")

    // A head never finished is closed after 10 s of nothing.
    let started = Date()
    let stalled = try BoardTests.Connection(
      port: port, request: "GET /products HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n")
    _ = stalled.read(until: "never sent", seconds: 20)
    let waited = Date().timeIntervalSince(started)
    #expect(waited > 9 && waited < 16, "closed after \(waited) s")
  }
}
