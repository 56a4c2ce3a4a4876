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
}
