import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("store and workspace through the binary", .serialized)
struct StoreEndToEndTests {
  private func workspace() throws -> (directory: String, db: String) {
    let directory = try Binary.makeTemporaryDirectory()
    return (directory, directory + "/workspace.sqlite")
  }

  /// Entries per store, read back through `db info --json`.
  private func entries(_ db: String, store: String = "generalCache") throws -> Int {
    let result = try Binary.run(["--db", db, "--json", "-c", "db info"])
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    let counts = object?["entries"] as? [String: Int]
    return counts?[store] ?? -1
  }

  /// Runs `lines` as one -c line on a workspace in memory.
  private func run(_ lines: String) throws -> Binary.Result {
    try Binary.run(["--no-rc", "--db", ":memory:", "-c", lines])
  }

  /// Whether `user` (this user when nil) could change `path`'s mode to `mode`.
  private func chmodAs(_ user: String?, _ mode: String, _ path: String) -> Bool {
    (try? NonRootUser.run(user, ["/bin/chmod", mode, path]).status) == 0
  }

  @Test("state survives restarts: persist in one process, retrieve in the next")
  func survivesRestart() throws {
    let (_, db) = try workspace()
    #expect(
      try Binary.run(["--db", db, "-c", "store persist bookmarks home 'https://example.com'"])
        .status == 0)
    let read = try Binary.run(["--db", db, "-c", "store retrieve bookmarks home"])
    #expect(read.stdout == "https://example.com\n")
    // The read's access count, written behind, reached the file before the process ended.
    let entries = try Binary.run(["--db", db, "--json", "-c", "store entries bookmarks"])
    #expect(entries.stdout.contains(#""key":"home","bytes":19,"#))
    #expect(entries.stdout.contains(#""count":1,"#))
    let attributes = try FileManager.default.attributesOfItem(atPath: db)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
  }

  @Test("the workspace comes from --db, then ARCHSH_DB, then XDG_DATA_HOME")
  func workspaceChoice() throws {
    let home = try Binary.makeTemporaryDirectory()
    let byDefault = try Binary.run(["-c", "db path"], home: home)
    #expect(byDefault.stdout == home + "/data/archsh/workspace.sqlite\n")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Binary.path)
    process.arguments = ["-c", "db path"]
    var environment = Binary.environment(home: home)
    environment["ARCHSH_DB"] = home + "/from-env.sqlite"
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    process.waitUntilExit()
    #expect(
      String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == home
        + "/from-env.sqlite\n")
  }

  @Test("bad input gets its exact one-line error, and what was persisted stays")
  func badInput() throws {
    let (directory, db) = try workspace()
    #expect(
      try Binary.run(["--db", db, "-c", "store persist bookmarks keep 'kept value'"]).status == 0)
    try "not a database".write(
      toFile: directory + "/corrupt.sqlite", atomically: false, encoding: .utf8)
    try "{\n  \"name\": \"Ada\",\n  \"plan\": \"pro\",\n}\n".write(
      toFile: directory + "/trailing.json", atomically: false, encoding: .utf8)
    try #"[{"rows":["a",{"type":"G","n":tru}]}]"#.write(
      toFile: directory + "/sections.json", atomically: false, encoding: .utf8)
    let cases: [([String], String)] = [
      (
        ["--db", db, "-c", "store persist bookmarks k @missing.json"],
        "-c:1:27: error: cannot read the value file 'missing.json': no such file (a relative path starts in the current directory, '\(directory)'; write @@ for a value that starts with @)"
      ),
      (
        ["--db", db, "-c", "store persist bookmarks k '{bad' --json"],
        "-c:1:27: error: the value is not valid JSON: column 2: expected '\"' to start a member name or '}' to close the object, found 'bad' (member names need double quotes) (wrap the whole value in single quotes, so that the shell keeps its double quotes)"
      ),
      (
        // Foundation's parser takes a trailing comma; RFC 8259 does not. No quoting hint: the
        // quotes are there.
        ["--db", db, "-c", #"store persist bookmarks k '{"a":1,}' --json"#],
        "-c:1:27: error: the value is not valid JSON: column 8: expected '\"' to start a member name, found '}' (a trailing comma?)"
      ),
      (
        // In a file, the place is a line and column of the file, and there is no quoting hint.
        ["--db", db, "-c", "store persist bookmarks k @trailing.json --json"],
        "-c:1:27: error: 'trailing.json' is not valid JSON: line 4, column 1: expected '\"' to start a member name, found '}' (a trailing comma?)"
      ),
      (
        ["--db", db, "-c", #"ds new menu --sections @sections.json"#],
        "-c:1:24: error: 'sections.json' is not valid JSON: line 1, column 31 (at $[0].rows[1]): invalid literal 'tru' (did you mean 'true'?)"
      ),
      (
        ["--db", db, "-c", #"ds new menu --rows '{"type":"Game",}'"#],
        "-c:1:20: error: the row is not valid JSON: column 16: expected '\"' to start a member name, found '}' (a trailing comma?)"
      ),
      (
        ["--db", db, "-c", #"net fault GET /x --status 500 --body '{"code":"E",}'"#],
        "-c:1:38: error: the body is not valid JSON: column 13: expected '\"' to start a member name, found '}' (a trailing comma?)"
      ),
      (
        ["--db", db, "-c", "store persist bookmarks k @/dev/zero"],
        "-c:1:27: error: cannot read the value file '/dev/zero': it is a device"
      ),
      (
        ["--db", db, "-c", "store limits user --bytes 4; store persist user k 12345"],
        "-c:1:51: error: the value (5 bytes) is larger than the byte limit of store 'user' (4 bytes) (raise it with 'store limits user --bytes N')"
      ),
      (
        ["--db", db, "-c", "store retrieve bookmark keep"],
        "-c:1:16: error: unknown store 'bookmark' (did you mean 'bookmarks'?)"
      ),
      (
        ["--db", db, "-c", "store retrieve bookmarks nope"],
        "-c:1:26: error: no key 'nope' in store 'bookmarks'"
      ),
      (
        ["--db", directory + "/corrupt.sqlite", "-c", "store keys bookmarks"],
        "-c:1:1: error: '\(directory)/corrupt.sqlite' is not an archsh workspace: file is not a database (SQLite error 26); the file was left untouched"
      ),
    ]
    for (arguments, expected) in cases {
      let result = try Binary.run(arguments, directory: directory)
      #expect(result.status == 1, "\(arguments)")
      #expect(result.stderr == expected + "\n", "\(arguments)")
    }
    #expect(
      try Binary.run(["--db", db, "-c", "store retrieve bookmarks keep"]).stdout == "kept value\n")
    #expect(
      try String(contentsOfFile: directory + "/corrupt.sqlite", encoding: .utf8) == "not a database"
    )
  }

  @Test("an empty name or key is refused at its column, and nothing is created")
  func emptyNames() throws {
    let dataSource = try run("ds new '' --rows a")
    #expect(dataSource.status == 1)
    #expect(dataSource.stdout == "")
    #expect(dataSource.stderr == "-c:1:8: error: NAME cannot be empty (give a name)\n")

    let key = try run("store persist bookmarks '' x")
    #expect(key.status == 1)
    #expect(key.stderr == "-c:1:25: error: KEY cannot be empty (give a name)\n")

    // The same line with a real key works, and no blank key was ever stored.
    let kept = try run(
      "store persist bookmarks '' x; expect fails 'KEY cannot be empty'; store bytes bookmarks")
    #expect(kept.status == 0, "\(kept.stderr)")
    #expect(kept.stdout == "store: bookmarks\nbytes: 0\n")
    #expect(try run("store create ''").stderr.contains("NAME cannot be empty"))
    #expect(try run("source ''").stderr.contains("FILE cannot be empty (give a file's path)"))
  }

  @Test("a read-only workspace: reads work, writes say why")
  func readOnly() throws {
    let (_, db) = try workspace()
    #expect(try Binary.run(["--db", db, "-c", "store persist user name ann"]).status == 0)
    chmod(db, 0o444)
    let read = try Binary.run(["--db", db, "-c", "store retrieve user name"])
    #expect(read.stdout == "ann\n")
    let write = try Binary.run(["--db", db, "-c", "store persist user name bob"])
    #expect(
      write.stderr
        == "-c:1:1: error: the workspace '\(db)' is read-only, so 'store persist' cannot write; reads still work (make the file and its folder writable, or choose another workspace with --db)\n"
    )
  }

  @Test("a workspace made read-only and writable again can be written: no 0400 -shm stays behind")
  func readOnlyThenWritable() throws {
    let user = try NonRootUser.name()
    let directory = try Binary.makeTemporaryDirectory()
    chmod(directory, 0o777)
    let database = directory + "/ws.sqlite"
    func run(_ line: String) throws -> Binary.Result {
      try NonRootUser.run(user, [Binary.path, "--no-rc", "--db", database, "-c", line])
    }
    #expect(try run("store persist bookmarks a 1").status == 0)
    #expect(chmodAs(user, "400", database))
    let readOnly = try run("store retrieve bookmarks a")
    #expect(readOnly.stdout == "1\n", "\(readOnly.stderr)")
    #expect(chmodAs(user, "600", database))
    let written = try run("store persist bookmarks b 2")
    #expect(written.status == 0, "\(written.stderr)")
    #expect(try run("store keys bookmarks").stdout == "key\n---\na\nb\n")
  }

  @Test("--atomic: a failure rolls everything back and the error line says so")
  func atomicRollback() throws {
    let (directory, db) = try workspace()
    try
      "store persist user a 1\nstore persist user b 2\nstore retrieve user nope\nstore persist user c 3\n"
      .write(toFile: directory + "/atomic.ash", atomically: false, encoding: .utf8)
    let result = try Binary.run(["--db", db, "--atomic", "-f", "atomic.ash"], directory: directory)
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "atomic.ash:3:21: error: no key 'nope' in store 'user'\n"
        + "archsh: the run ended with status 1; rolled back: nothing this run did was saved (--atomic)\n"
    )
    #expect(try entries(db, store: "user") == 0)
    let ok = try Binary.run([
      "--db", db, "--atomic", "-c", "store persist user a 1; store persist user b 2",
    ])
    #expect(ok.status == 0)
    #expect(try entries(db, store: "user") == 2)
  }

  @Test("--atomic: a failure an expect examines leaves nothing behind and the run commits")
  func atomicExpect() throws {
    let home = try Binary.makeTemporaryDirectory()
    let database = home + "/work.sqlite"
    let passing = try Binary.run(
      [
        "--no-rc", "--db", database, "--atomic", "-c", "store persist bookmarks kept 1",
        "-c", "store persist bookmarks huge 12345678901 --age nonsense", "-c", "expect fails",
        "-c", "store persist bookmarks later 2",
      ], home: home)
    #expect(passing.status == 0, "\(passing.stderr)")
    let keys = try Binary.run(
      ["--no-rc", "--db", database, "-c", "store keys bookmarks"], home: home)
    #expect(keys.stdout == "key\n-----\nkept\nlater\n", "\(keys.stdout)")
    let failing = try Binary.run(
      [
        "--no-rc", "--db", database, "--atomic", "-c", "store persist bookmarks lost 3",
        "-c", "store retrieve bookmarks nope",
      ], home: home)
    #expect(failing.status == 1)
    #expect(
      failing.stderr
        == "-c#2:1:26: error: no key 'nope' in store 'bookmarks'\narchsh: the run ended with status 1; rolled back: nothing this run did was saved (--atomic)\n",
      "\(failing.stderr)")
    let after = try Binary.run(
      ["--no-rc", "--db", database, "-c", "store keys bookmarks"], home: home)
    #expect(after.stdout == keys.stdout)
  }

  @Test(
    "kill -9 during an --atomic script of 100,000 persists leaves all or none, and a sound file")
  func crash() throws {
    let (directory, db) = try workspace()
    let script = (0..<100_000).map { "store persist generalCache key\($0) value\($0)\n" }.joined()
    try script.write(toFile: directory + "/big.ash", atomically: false, encoding: .utf8)
    // One full run gives the time scale; kills then land from early in the script to past its
    // commit, so both outcomes occur.
    let started = Date()
    let full = try Binary.run([
      "--db", directory + "/timing.sqlite", "--atomic", "-f", directory + "/big.ash",
    ])
    #expect(full.status == 0)
    let duration = Date().timeIntervalSince(started)
    var outcomes: [Int] = []
    for trial in 0..<10 {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: Binary.path)
      process.arguments = ["--db", db, "--atomic", "-f", directory + "/big.ash"]
      process.environment = Binary.environment(home: directory)
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      let fraction = [0.02, 0.1, 0.25, 0.5, 0.75, 0.9, 0.97, 1.02, 1.2, 2.0][trial]
      usleep(UInt32(duration * fraction * 1_000_000))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      let count = try entries(db)
      outcomes.append(count)
      #expect(count == 0 || count == 100_000, "trial \(trial): \(count) keys")
      #expect(try Binary.run(["--db", db, "-c", "db check"]).stdout == "ok\n")
      if count == 100_000 {
        let trimmed = try Binary.run(["--db", db, "-c", "store trim generalCache --to-bytes 0"])
        #expect(trimmed.status == 0)
        #expect(try entries(db) == 0)
      }
    }
    #expect(outcomes.contains(0), "no trial was killed before the commit: \(outcomes)")
    #expect(outcomes.contains(100_000), "no trial reached the commit: \(outcomes)")
  }

  @Test("4 processes persisting 2,000 keys each into one workspace: 8,000 keys, no errors")
  func concurrency() throws {
    // A new file: the four writers also race to create and migrate it.
    let (directory, db) = try workspace()
    var processes: [(Process, Pipe)] = []
    for writer in 0..<4 {
      let script = (0..<2000).map { "store persist generalCache w\(writer)-\($0) v\($0)\n" }
        .joined()
      try script.write(toFile: directory + "/w\(writer).ash", atomically: false, encoding: .utf8)
      let process = Process()
      process.executableURL = URL(fileURLWithPath: Binary.path)
      process.arguments = ["--db", db, "-f", directory + "/w\(writer).ash"]
      process.environment = Binary.environment(home: directory)
      let errors = Pipe()
      process.standardError = errors
      process.standardOutput = FileHandle.nullDevice
      processes.append((process, errors))
    }
    for (process, _) in processes { try process.run() }
    for (process, errors) in processes {
      let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
      #expect(text.isEmpty, "\(text)")
    }
    #expect(try entries(db) == 8000)
    #expect(try Binary.run(["--db", db, "-c", "db check"]).stdout == "ok\n")
  }

  @Test("'store limits --bytes' says which entries it trimmed and how many bytes they held")
  func limitsReportTrims() throws {
    let result = try Binary.run(
      ["--no-rc", "--db", ":memory:"],
      input: """
        store persist bookmarks a 0123456789
        store persist bookmarks b 0123456789
        store limits bookmarks --bytes 5
        store keys bookmarks
        """, merge: true)
    #expect(result.status == 0)
    #expect(
      result.stdout == """
        store:      bookmarks
        byte_limit: 5
        age_limit:  30d
        ttl:        no
        ~ trimmed 2 entries, 20 bytes, to stay within the byte limit: a (10 bytes), b (10 bytes)
        key
        ---
        (no rows)

        """, "\(result.stdout)")
  }

  @Test("store drop removes a created store with its entries; the seed's stores are refused")
  func storeDrop() throws {
    let db = try Binary.makeTemporaryDirectory() + "/workspace.sqlite"
    let made = try Binary.run([
      "--no-rc", "--db", db, "-c",
      "store create scratch; store persist scratch a 1234; store persist scratch b 56",
    ])
    #expect(made.status == 0, "\(made.stderr)")
    let dropped = try Binary.run(["--no-rc", "--db", db, "-c", "store drop scratch"])
    #expect(dropped.status == 0, "\(dropped.stderr)")
    #expect(dropped.stdout == "dropped store 'scratch' with 2 entries, 6 bytes\n")
    // Gone in the next process, with its entries: a store of that name starts empty.
    let after = try Binary.run([
      "--no-rc", "--db", db, "-c", "store stores; store create scratch; store keys scratch",
    ])
    #expect(after.status == 0, "\(after.stderr)")
    #expect(!after.stdout.contains("scratch  "))
    #expect(after.stdout.contains("key\n---\n"))
    #expect(!after.stdout.contains("\na\n"))

    let seed = try Binary.run(["--no-rc", "--db", db, "-c", "store drop bookmarks"])
    #expect(seed.status == 1)
    #expect(
      seed.stderr
        == "-c:1:12: error: 'bookmarks' is one of the seed's stores, which cannot be dropped ('store trim bookmarks --to-bytes 0' removes its entries)\n"
    )
    let unknown = try Binary.run(["--no-rc", "--db", db, "-c", "store drop scratc"])
    #expect(unknown.stderr.contains("unknown store 'scratc' (did you mean 'scratch'?)"))
    #expect(
      try Binary.run(["--no-rc", "--db", db, "help", "store", "drop"]).stdout.contains(
        "usage: store drop NAME"))
  }
}

/// Runs programs as a user who is not root: as this user when it is not root, else as a user
/// made for the tests, because root writes a read-only file anyway.
enum NonRootUser {
  static let testUser = "archsh-test"

  /// The user to run as, or nil to run as this user; creates the test user when root.
  static func name() throws -> String? {
    guard geteuid() == 0 else { return nil }
    if getpwnam(testUser) == nil {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/sbin/useradd")
      process.arguments = [
        "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", testUser,
      ]
      try process.run()
      process.waitUntilExit()
    }
    return testUser
  }

  /// Runs `arguments` as `user` (through setpriv), or as this user when nil.
  static func run(_ user: String?, _ arguments: [String]) throws -> Binary.Result {
    let process = Process()
    let stdout = Pipe()
    let stderr = Pipe()
    if let user, let entry = getpwnam(user) {
      process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
      process.arguments =
        ["--reuid=\(entry.pointee.pw_uid)", "--regid=\(entry.pointee.pw_gid)", "--clear-groups"]
        + arguments
    } else {
      process.executableURL = URL(fileURLWithPath: arguments[0])
      process.arguments = Array(arguments.dropFirst())
    }
    let home = try Binary.makeTemporaryDirectory()
    chmod(home, 0o777)
    process.environment = Binary.environment(home: home)
    process.standardOutput = stdout
    process.standardError = stderr
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    let errors = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Binary.Result(
      status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
      stderr: String(decoding: errors, as: UTF8.self))
  }
}
