import Foundation
import Testing

@Suite("archsh binary", .serialized)
struct EndToEndTests {
  /// Runs `lines` as one -c line on a workspace in memory.
  private func run(_ lines: String) throws -> Binary.Result {
    try Binary.run(["--no-rc", "--db", ":memory:", "-c", lines])
  }

  @Test("-c runs one line; several -c and -f run in the order given")
  func commandLines() throws {
    let directory = try Binary.makeTemporaryDirectory()
    try "echo script $1 $#\nset from_script yes".write(
      toFile: directory + "/s.ash", atomically: false, encoding: .utf8)
    let result = try Binary.run(
      [
        "-c", "echo first; set x 1", "-c", "echo second $x", "-f", "s.ash", "arg", "-c",
        "not-an-option",
      ],
      directory: directory)
    #expect(result.status == 0)
    #expect(result.stdout == "first\nsecond 1\nscript arg 3\n")
    #expect(result.stderr.isEmpty)
  }

  @Test("-f runs a script with $1…$9 and $#; the script's lines run in order")
  func script() throws {
    let result = try Binary.run([
      "-f", "Tests/ArchShellTests/Fixtures/args.ash", "one", "two words",
    ])
    #expect(result.status == 0)
    #expect(result.stdout == "count 2\nfirst one\nsecond two words\n")
  }

  @Test("standard input that is not a terminal is read as a script")
  func standardInput() throws {
    let result = try Binary.run(
      [], input: "set a 1\necho got $a\nech oops\necho never\n", merge: true)
    #expect(result.status == 1)
    #expect(
      result.stdout == "got 1\n<stdin>:3:1: error: unknown command 'ech' (did you mean 'echo'?)\n")
  }

  @Test("exit statuses: 0 for success, 1 for a failed command, 2 for usage errors")
  func exitStatuses() throws {
    #expect(try Binary.run(["-c", "echo ok"]).status == 0)
    #expect(try Binary.run(["-c", "exit 7"]).status == 7)
    let failed = try Binary.run(["-c", "unset ghost"])
    #expect(failed.status == 1)
    #expect(failed.stderr == "-c:1:7: error: no variable 'ghost' ('vars' lists the variables)\n")
    let badOption = try Binary.run(["--jsno"])
    #expect(badOption.status == 2)
    #expect(
      badOption.stderr
        == "archsh: error: unknown option '--jsno' (did you mean '--json'?)\n"
    )
    let missingScript = try Binary.run(["-f", "no/such.ash"])
    #expect(missingScript.status == 2)
    #expect(
      missingScript.stderr
        == "archsh: error: cannot read 'no/such.ash': no such file (check the path given to -f)\n")
    let directory = try Binary.run(["-f", "Tests"])
    #expect(directory.status == 2)
    #expect(
      directory.stderr
        == "archsh: error: cannot read 'Tests': it is a directory (check the path given to -f)\n")
    let version = try Binary.run(["--version"])
    #expect(version.status == 0)
    // The commit it was built from, as git names it, and -dirty for a tree with changes.
    let git = Process()
    git.executableURL = URL(fileURLWithPath: "/usr/bin/git")
    git.arguments = [
      "-C", Binary.root, "-c", "safe.directory=*", "rev-parse", "--short=12", "HEAD",
    ]
    let head = Pipe()
    git.standardOutput = head
    try git.run()
    let commit = String(decoding: head.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    git.waitUntilExit()
    #expect(commit.count == 12)
    #expect(
      version.stdout == "archsh 0.1.0 (\(commit))\n"
        || version.stdout == "archsh 0.1.0 (\(commit)-dirty)\n", "\(version.stdout)")
  }

  @Test("with several -c lines, an error names its line (-c#2); with one, it is -c")
  func numberedLines() throws {
    let several = try Binary.run([
      "--no-rc", "--db", ":memory:", "--keep-going", "-c", "echo a", "-c", "store retreive x y",
      "-c", "echo b",
    ])
    #expect(several.status == 1)
    #expect(several.stdout == "a\nb\n")
    #expect(
      several.stderr
        == "-c#2:1:7: error: unknown verb 'retreive' for 'store' (did you mean 'retrieve'?)\n")
    let one = try Binary.run(["--no-rc", "--db", ":memory:", "-c", "store retreive x y"])
    #expect(
      one.stderr
        == "-c:1:7: error: unknown verb 'retreive' for 'store' (did you mean 'retrieve'?)\n")
  }

  @Test("script errors give file:line:col, also through source, and stop the script")
  func errorFormat() throws {
    let result = try Binary.run(["-f", "Tests/ArchShellTests/Fixtures/outer.ash"], merge: true)
    #expect(result.status == 1)
    #expect(
      result.stdout == """
        outer starts
        inner runs with hello
        Tests/ArchShellTests/Fixtures/lib/inner.ash:3:6: error: unknown option '--loud' for 'echo' ('echo' takes no options); in file included from Tests/ArchShellTests/Fixtures/outer.ash:2

        """)
  }

  @Test("--keep-going runs every line and still exits 1")
  func keepGoing() throws {
    let result = try Binary.run(
      ["--keep-going", "-f", "Tests/ArchShellTests/Fixtures/outer.ash"], merge: true)
    #expect(result.status == 1)
    #expect(result.stdout.hasSuffix("after the error\nouter ends\n"))
  }

  @Test("--json prints one JSON document per command")
  func json() throws {
    let result = try Binary.run(["--json", "-c", "set b 2; vars; echo hi; output"])
    #expect(result.status == 0)
    #expect(
      result.stdout
        == "{}\n[{\"name\":\"b\",\"value\":\"2\"}]\n{\"message\":\"hi\"}\n{\"output\":\"json\"}\n")
    for line in result.stdout.split(separator: "\n") {
      #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)")
    }
  }

  @Test("--json carries whole values where the table shows an excerpt")
  func jsonIsWhole() throws {
    // Given a licence text whose table cell is its first line, cut to 60 characters
    let plist = "examples/Pods-acknowledgements.plist"
    let table = try Binary.run(["-c", "parse acknowledgements \(plist)"])
    #expect(table.stdout.contains("Copyright (c) 2014-2022 Alamofire Software Foundation (http…"))
    // When it is asked for as JSON
    let json = try Binary.run(["--json", "-c", "parse acknowledgements \(plist)"])
    // Then every text is whole: the same as the plist's own FooterText
    let documents = try #require(
      JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [Any])
    let rows = try #require(documents.last as? [[String: Any]])
    let alamofire = try #require(rows.first { $0["title"] as? String == "Alamofire" })
    let text = try #require(alamofire["text"] as? String)
    #expect(text.hasPrefix("Copyright (c) 2014-2022 Alamofire Software Foundation"))
    #expect(text.contains("THE SOFTWARE IS PROVIDED \"AS IS\""))
    #expect(text.count > 1000)

    // And a binary value is whole in JSON, in base64, and a preview in the table
    let directory = try Binary.makeTemporaryDirectory()
    try Data((0..<40).map { UInt8($0 * 6) }).write(to: URL(fileURLWithPath: directory + "/b.bin"))
    let db = directory + "/w.sqlite"
    #expect(
      try Binary.run(["--db", db, "-c", "store persist generalCache b @\(directory)/b.bin"]).status
        == 0)
    #expect(
      try Binary.run(["--db", db, "-c", "store retrieve generalCache b"]).stdout
        == "<40 bytes of binary data: 00 06 0c 12 18 1e 24 2a 30 36 3c 42 48 4e 54 5a …>\n")
    let base64 = Data((0..<40).map { UInt8($0 * 6) }).base64EncodedString()
    #expect(
      try Binary.run(["--db", db, "--json", "-c", "store retrieve generalCache b"]).stdout
        == "{\"store\":\"generalCache\",\"key\":\"b\",\"value\":{\"bytes\":40,\"base64\":\"\(base64)\"}}\n"
    )
  }

  @Test("words after the options run as one command, so 'archsh help --markdown' works")
  func wordsAsCommand() throws {
    let result = try Binary.run(["echo", "it's", "$HOME"])
    #expect(result.stdout == "it's $HOME\n")
    let unknown = try Binary.run(["tour.ash"])
    #expect(unknown.status == 1)
    #expect(unknown.stderr == "archsh:1:1: error: unknown command 'tour.ash' (try 'help')\n")
  }

  @Test("--echo prints each command line with the prompt before its output")
  func echo() throws {
    let result = try Binary.run(["--echo", "-c", "echo hi"], input: nil)
    #expect(result.stdout == "archsh> echo hi\nhi\n")
  }

  @Test("--help after a command, a group, a two-word verb or a builtin shows its help")
  func helpOption() throws {
    for (line, help) in [
      ("store persist --help", "help store persist"),
      ("store persist bookmarks k --help", "help store persist"),
      ("factory --help", "help factory"),
      ("ds section --help", "help ds section"),
      ("ds section add --help", "help ds section add"),
      ("sleep --help", "help sleep"),
      ("time --help", "help time"),
    ] {
      let asked = try run(line)
      let expected = try run(help)
      #expect(asked.status == 0, "\(line): \(asked.stderr)")
      #expect(asked.stdout == expected.stdout, "\(line)")
      #expect(asked.stdout.contains("usage: ") || asked.stdout.contains("commands:"), "\(line)")
    }
    #expect(try run("store persist --help").stdout.hasPrefix("usage: store persist STORE KEY"))
    // Inside a command line that `time` runs, the help is that command's.
    #expect(try run("time store keys --help").stdout.hasPrefix("usage: store keys STORE"))
    // `--help` as a value, quoted, or after `--` is an argument like any other.
    let value = try run("store keys bookmarks --prefix --help")
    #expect(value.status == 0, "\(value.stderr)")
    #expect(value.stdout.hasPrefix("key\n---\n"))
    #expect(!value.stdout.contains("usage:"))
    #expect(try run("echo '--help'").stdout == "--help\n")
    #expect(try run("echo -- --help").stdout == "--help\n")
    // An unknown group is still an unknown command.
    #expect(try run("stor --help").stderr.contains("unknown command 'stor'"))
  }

  @Test(
    "docs/factory-graph.txt is what 'factory graph' prints: what each product is injected with, reviewed in its diff"
  )
  func factoryGraphUpToDate() throws {
    let result = try Binary.run(["--db", ":memory:", "-c", "factory graph"])
    let checkedIn = try String(
      contentsOfFile: Binary.root + "/docs/factory-graph.txt", encoding: .utf8)
    #expect(result.status == 0)
    #expect(result.stdout == checkedIn, "run 'make docs' to regenerate docs/factory-graph.txt")
  }

  @Test("docs/commands.md is what 'archsh help --markdown' prints")
  func docsUpToDate() throws {
    let result = try Binary.run(["help", "--markdown"])
    let checkedIn = try String(contentsOfFile: Binary.root + "/docs/commands.md", encoding: .utf8)
    #expect(result.stdout == checkedIn, "run 'make docs' to regenerate docs/commands.md")
  }
}
