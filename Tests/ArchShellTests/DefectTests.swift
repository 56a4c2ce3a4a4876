import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Defects found by using archsh as a new user would (issue 20), each driven through the binary.
@Suite("defects a new user met, through the binary", .serialized)
struct DefectTests {
  private func terminalEnvironment(home: String) -> [String: String] {
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    return environment
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
    for line in [
      "set tok supersecret999 --secret",
      "session request GET /echo -H 'Authorization:Bearer literalsecret777'",
      "session request GET /echo -H \"Authorization:Bearer $tok\"",
    ] {
      let mark = terminal.mark
      terminal.type(line + "\r")
      try terminal.waitFor("archsh> ", after: terminal.waitFor("\r\n", after: mark))
    }
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

  @Test("every walkthrough passes with --atomic, and prints what it prints without it")
  func walkthroughsAtomic() throws {
    for example in TranscriptTests.examples {
      let result = try Binary.run(
        ["--atomic", "--echo", "--no-rc", "--db", ":memory:", "-f", "examples/" + example],
        merge: true)
      let expected = try String(
        contentsOfFile: Binary.root + "/examples/" + example.dropLast(4) + ".out", encoding: .utf8)
      #expect(result.status == 0, "\(example): \(result.stdout.suffix(600))")
      // An atomic run opens the workspace before the script's first line, so the factory shows
      // that one singleton as built earlier ('factory graph', 'factory get workspace'); nothing
      // else may differ.
      // A replay names the walkthrough and its files from the walkthrough's folder; this plain
      // run names them from the repository's root.
      func unbuilt(_ text: String) -> String {
        normalizeDurations(text)
          .replacingOccurrences(
            of: #"examples/([A-Za-z0-9_-]+\.ash):(\d)"#, with: "$1:$2", options: .regularExpression
          )
          .replacingOccurrences(of: "'examples/", with: "'")
          .replacingOccurrences(of: "script's folder, 'examples')", with: "script's folder)")
          .replacingOccurrences(of: "comes from examples/lib/", with: "comes from lib/")
          .replacingOccurrences(
            of: "workspace: Workspace (singleton, built)", with: "workspace: Workspace (singleton)"
          )
          .replacingOccurrences(
            of: "type:     Workspace\nscope:    singleton\n"
              + "instance: built now, shared from here on",
            with: "type:     Workspace\nscope:    singleton\ninstance: the shared instance")
      }
      #expect(unbuilt(result.stdout) == unbuilt(expected), "\(example)")
    }
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

  @Test("several -c options form one script: an expect in the next -c examines the failure")
  func expectAcrossLines() throws {
    let passing = try Binary.run(
      ["--no-rc", "--db", ":memory:", "-c", "store retrieve bookmarks zz", "-c", "expect fails"])
    #expect(passing.status == 0, "\(passing.stderr)")
    #expect(passing.stderr == "-c#1:1:26: error: no key 'zz' in store 'bookmarks'\n")
    let failing = try Binary.run(
      ["--no-rc", "--db", ":memory:", "-c", "store retrieve bookmarks zz", "-c", "echo next"])
    #expect(failing.status == 1)
    #expect(failing.stdout == "")
  }

  @Test("the embedded API keeps its address across runs, and finds what an old address stored")
  func embeddedAddressIsStable() throws {
    let home = try Binary.makeTemporaryDirectory()
    let database = home + "/work.sqlite"
    for _ in 0..<3 {
      let run = try Binary.run(
        ["--no-rc", "--db", database, "-c", "product update 2"], home: home)
      #expect(run.status == 0, "\(run.stderr)")
    }
    let keys = try Binary.run(
      ["--no-rc", "--db", database, "-c", "store keys productCache"], home: home)
    let lines = keys.stdout.split(separator: "\n").dropFirst(2)
    #expect(lines.count == 1, "\(keys.stdout)")
    let key = try #require(lines.first)
    let port = try #require(
      key.split(separator: ":").dropFirst(2).first?.split(separator: "/").first)

    // The last port is taken now: the next run listens elsewhere and moves the entry there.
    let blocker = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(blocker) }
    // The earlier runs' connections may still be in TIME_WAIT on that port.
    var reuse: Int32 = 1
    setsockopt(blocker, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port) ?? 0).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(blocker, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    #expect(bound == 0)
    listen(blocker, 1)
    let shown = try Binary.run(
      [
        "--no-rc", "--db", database, "-c", "product show 2", "-c", "product update 2", "-c",
        "store keys productCache",
      ], home: home)
    #expect(shown.status == 0, "\(shown.stderr)")
    #expect(shown.stdout.contains("cached_as: \(key)"), "\(shown.stdout)")
    let moved = shown.stdout.split(separator: "\n").filter { $0.hasPrefix("http://") }
    #expect(moved.count == 1 && moved.first != key, "\(shown.stdout)")
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

  @Test("'repo fetch --all' shows its progress at a terminal; Ctrl-C says what was kept")
  func repositoryFetchProgressAndCancel() throws {
    let home = try Binary.makeTemporaryDirectory()
    let terminal = try PseudoTerminal(
      [Binary.path, "--no-rc", "--db", home + "/work.sqlite"],
      environment: terminalEnvironment(home: home))
    try terminal.waitFor("archsh> ")
    for line in [
      "auth login ada@example.com lovelace", "net locations 1000000",
      "repo new all /users/me/locations --limit 50",
    ] {
      let mark = terminal.mark
      terminal.type(line + "\r")
      try terminal.waitFor("archsh> ", after: terminal.waitFor("\r\n", after: mark))
    }
    var mark = terminal.mark
    terminal.type("repo fetch all --all\r")
    mark = try terminal.waitFor("repo fetch all: ", after: mark, seconds: 10)
    mark = try terminal.waitFor(" of 1000000 elements, ", after: mark)
    try terminal.waitFor("pages/s", after: mark)
    try terminal.interrupt()
    mark = try terminal.waitFor("error: the fetch of 'all' was cancelled after ", after: mark)
    mark = try terminal.waitFor("elements stored are kept", after: mark)
    try terminal.waitFor("archsh> ", after: mark)
    #expect(!terminal.transcript.contains("token request failed"))
    mark = terminal.mark
    terminal.type("repo state all\r")
    mark = try terminal.waitFor("state:           Fetched", after: mark)
    try terminal.waitFor("archsh> ", after: mark)
    let state = terminal.transcript[mark...]
    #expect(!state.contains("Error"), "\(state)")
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
  }

  @Test("'ds new --products' builds the whole catalog, whatever else is cached")
  func productsDataSourceIsWhole() throws {
    let result = try Binary.run(
      [
        "--no-rc", "--db", ":memory:", "-c", "product update 42", "-c", "ds new shop --products",
      ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.hasSuffix("created shop: 4 sections, 15 rows\n"), "\(result.stdout)")
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

  @Test("a writer blocked by an --atomic run is told which workspace is busy and why")
  func busyWorkspace() throws {
    let home = try Binary.makeTemporaryDirectory()
    let database = home + "/work.sqlite"
    _ = try Binary.run(["--no-rc", "--db", database, "-c", "store persist bookmarks a 1"])
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: Binary.path)
    holder.arguments = [
      "--no-rc", "--db", database, "--atomic", "-c", "store persist bookmarks b 2", "-c",
      "echo holding", "-c", "set release --secret",
    ]
    holder.environment = Binary.environment(home: home)
    let output = Pipe()
    holder.standardOutput = output
    // The holder waits on its standard input ('set NAME --secret' reads the next line), so the
    // lock is held until this test lets it go: no sleep decides how long.
    let release = Pipe()
    holder.standardInput = release
    try holder.run()
    defer {
      release.fileHandleForWriting.write(Data("go\n".utf8))
      try? release.fileHandleForWriting.close()
      holder.waitUntilExit()
    }
    // Each command's output is written when it ends: 'holding' means the write is in, and the
    // atomic run holds the workspace's write lock until it reads its release.
    #expect(Binary.firstLine(of: output) == "holding")
    let blocked = try Binary.run(
      ["--no-rc", "--db", database, "-c", "store persist bookmarks c 3"], home: home)
    #expect(blocked.status == 1)
    #expect(
      blocked.stderr.contains("the workspace '\(database)' is busy: another archsh process"),
      "\(blocked.stderr)")
    #expect(!blocked.stderr.contains("SQLite error 5"))
  }

  @Test("a decoding error names the JSON kind it expected, not a Swift type")
  func jsonKindsInErrors() throws {
    let result = try Binary.run(
      [
        "--no-rc", "--db", ":memory:", "-c",
        "net fault GET /products/3 --status 200 --body '{\"code\":\"OK\",\"data\":[1]}'",
        "-c", "product update 3",
      ])
    #expect(result.stderr.contains("expected an object"), "\(result.stderr)")
    #expect(!result.stderr.contains("Dictionary<"))
  }

  @Test("'help app' and 'help auth' say that their two sessions are kept apart")
  func sessionsExplained() throws {
    for group in ["app", "auth"] {
      let help = try Binary.run(["--no-rc", "--db", ":memory:", "-c", "help \(group)"])
      let text = help.stdout.replacingOccurrences(of: "\n", with: " ")
      #expect(text.contains("'app login EMAIL'"), "\(group)")
      #expect(text.contains("'auth login'"), "\(group)")
    }
  }

  @Test("'model parse' shows each element's own warnings: data[1]'s are not data[10]'s")
  func parseWarningsPerElement() throws {
    let items = (0...10).map { index in
      let subtitle = index == 10 ? "" : #","subtitle":"S""#
      return #"{"type":"Location","id":"\#(index)","title":"T\#(index)""#
        + subtitle + #","latitude":1,"longitude":2,"image_url":null}"#
    }
    let response =
      #"{"code":"OK","data":["# + items.joined(separator: ",")
      + #"],"info":{"total":11}}"#
    let result = try Binary.run(["--no-rc", "--db", ":memory:", "-c", "model parse '\(response)'"])
    #expect(result.status == 0, "\(result.stderr)")
    let warnings = result.stdout.split(separator: "\n").filter { $0.hasPrefix("warning:") }
    // Every element warns of its own missing imageUrl; only data[10] of its subtitle.
    #expect(warnings.count == 12, "\(result.stdout)")
    #expect(
      warnings.filter { $0.contains("subtitle") } == [
        "warning: data[10].subtitle: required field 'subtitle' is missing"
      ])
    #expect(warnings.filter { $0.hasPrefix("warning: data[1].") }.count == 1)
  }

  private func chmodAs(_ user: String?, _ mode: String, _ path: String) -> Bool {
    (try? NonRootUser.run(user, ["/bin/chmod", mode, path]).status) == 0
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
