import Foundation
import Testing

@Suite("archsh binary", .serialized)
struct EndToEndTests {
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
    #expect(version.stdout == "archsh 0.1.0\n")
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

  @Test("docs/commands.md is what 'archsh help --markdown' prints")
  func docsUpToDate() throws {
    let result = try Binary.run(["help", "--markdown"])
    let checkedIn = try String(contentsOfFile: Binary.root + "/docs/commands.md", encoding: .utf8)
    #expect(result.stdout == checkedIn, "run 'make docs' to regenerate docs/commands.md")
  }
}

@Suite("script details through the binary", .serialized)
struct ScriptDetailTests {
  @Test("after a failure, the script stops before the next line is echoed or read")
  func stopsBeforeEcho() throws {
    let directory = try Binary.makeTemporaryDirectory()
    try "echo one\nech two\necho 'three\n".write(
      toFile: directory + "/s.ash", atomically: false, encoding: .utf8)
    let result = try Binary.run(["--echo", "-f", "s.ash"], directory: directory, merge: true)
    #expect(result.status == 1)
    #expect(
      result.stdout == """
        archsh> echo one
        one
        archsh> ech two
        s.ash:2:1: error: unknown command 'ech' (did you mean 'echo'?)

        """)
  }

  @Test("--keep-going prints every error once and runs every other line")
  func keepGoingExact() throws {
    let result = try Binary.run(
      ["--keep-going", "-f", "Tests/ArchShellTests/Fixtures/outer.ash"], merge: true)
    #expect(result.status == 1)
    #expect(
      result.stdout == """
        outer starts
        inner runs with hello
        Tests/ArchShellTests/Fixtures/lib/inner.ash:3:6: error: unknown option '--loud' for 'echo' ('echo' takes no options); in file included from Tests/ArchShellTests/Fixtures/outer.ash:2
        after the error
        outer ends

        """)
  }

  @Test("a line break inside -c separates commands and counts lines")
  func newlinesInLine() throws {
    let result = try Binary.run(["-c", "set a 1\necho $a\nech"], merge: true)
    #expect(result.stdout == "1\n-c:3:1: error: unknown command 'ech' (did you mean 'echo'?)\n")
  }

  @Test(
    "small things: echo \"\" prints an empty line, $3 says it is an argument, time cannot time itself"
  )
  func smallThings() throws {
    #expect(try Binary.run(["-c", "echo ''; echo x"]).stdout == "\nx\n")
    #expect(
      try Binary.run(["-c", "echo $3"]).stderr
        == "-c:1:6: error: undefined variable '3' (the script was given fewer arguments; $# counts them)\n"
    )
    #expect(
      try Binary.run(["-c", "time time echo"]).stderr
        == "-c:1:6: error: 'time' cannot time itself (write 'time COMMAND')\n")
    #expect(
      try Binary.run(["-c", "unset \"a\\nb\""]).stderr
        == "-c:1:7: error: no variable 'a\\nb' ('vars' lists the variables)\n")
  }
}

@Suite("networking through the binary", .serialized)
struct NetworkEndToEndTests {
  @Test("net fault, fault clear and timeout answer --json with fields; their sentences stay")
  func faultFields() throws {
    let result = try Binary.run([
      "--no-rc", "--db", ":memory:", "-c", "output json", "-c",
      "net fault GET /products/42 --status 503 --times 2", "-c",
      "net fault GET /products/43 --drop",
      "-c", "net fault clear /products/42", "-c", "net fault clear", "-c", "net timeout 2s",
      "-c", "output table", "-c", "net fault GET /x --status 500", "-c", "net fault clear",
      "-c", "net timeout",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stdout == """
        {}
        {"method":"GET","path":"/products/42","fault":"status 503","times":2,"after":0}
        {"method":"GET","path":"/products/43","fault":"drop the connection","times":1,"after":0}
        {"removed":[{"method":"GET","path":"/products/42"}],"count":1}
        {"removed":[{"method":"GET","path":"/products/43"}],"count":1}
        {"timeout_seconds":2}
        fault added: GET /x → status 500, for the next request
        removed 1 fault
        requests time out after 2s

        """)
  }

  /// GETs `url` with Python's urllib, as curl would, and returns the body as text.
  ///
  /// Another program on purpose: the server must answer any HTTP client, not only archsh's.
  private func fetch(_ url: URL) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "python3", "-c",
      "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())",
      url.absoluteString,
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let body = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    return String(decoding: body, as: UTF8.self)
  }

  @Test("net get talks to the embedded API over real HTTP; net log lists the request")
  func embedded() throws {
    let result = try Binary.run(["--db", ":memory:", "-c", "net get /products/4", "-c", "net log"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("status:       200\n"))
    #expect(result.stdout.contains("code:         OK\n"))
    #expect(result.stdout.contains(#""name":"iPhone 14""#))
    #expect(result.stdout.contains("GET     http://127.0.0.1:"))
  }

  @Test("errors: an API error status, and a refused connection with --api")
  func errors() throws {
    let missing = try Binary.run(["--db", ":memory:", "-c", "net get /products/999"])
    #expect(missing.status == 1)
    #expect(missing.stderr == "-c:1:9: error: HTTP 404 ResourceNotFound: no product with id 999\n")
    let refused = try Binary.run([
      "--api", "http://127.0.0.1:9", "-c", "net api; net get /products/1",
    ])
    #expect(refused.status == 1)
    #expect(
      refused.stdout == "url:    http://127.0.0.1:9\nserver: external (--api or ARCHSH_API)\n")
    #expect(
      refused.stderr
        == "-c:1:18: error: connection refused: nothing listens at http://127.0.0.1:9/products/1\n")
  }

  @Test("archsh serve prints its URL and answers curl-like requests until it is stopped")
  func serve() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Binary.path)
    process.arguments = [
      "serve", "--port", "0", "--catalog-size", "30", "--user", "grace@example.com:cobol",
    ]
    process.environment = Binary.environment(home: try Binary.makeTemporaryDirectory())
    let output = Pipe()
    process.standardOutput = output
    // The server must not hold the test runner's own standard error open if the test fails.
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer {
      // SIGKILL: a child of the test runner may inherit a signal mask that blocks SIGTERM.
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    var text = ""
    let deadline = Date().addingTimeInterval(20)
    while !text.contains("\n"), Date() < deadline {
      text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
    }
    #expect(text.hasPrefix("serving the demo API at http://127.0.0.1:"))
    let url = try #require(
      text.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init))
    let body = try fetch(try #require(URL(string: url + "/products?limit=1&offset=29")))
    #expect(body.hasPrefix(#"{"code":"OK","data":[{"type":"product","id":30,"#))
    #expect(body.hasSuffix(#""info":{"offset":29,"count":1,"total":30}}"#))
    // An added account logs in with the documented client, and its token opens /users/me.
    let login = Process()
    login.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    login.arguments = [
      "python3", "-c",
      """
      import json, sys, urllib.parse, urllib.request
      form = urllib.parse.urlencode({"grant_type": "password", "username": "grace@example.com",
          "password": "cobol", "client_id": "archsh", "client_secret": "archsh-demo-secret"})
      grant = json.load(urllib.request.urlopen(sys.argv[1] + "/oauth/token", form.encode(), timeout=10))
      me = urllib.request.Request(sys.argv[1] + "/users/me",
          headers={"Authorization": "Bearer " + grant["access_token"]})
      user = json.load(urllib.request.urlopen(me, timeout=10))
      sys.stdout.write(grant["code"] + " " + user["data"]["email"])
      """,
      url,
    ]
    let loginOutput = Pipe()
    login.standardOutput = loginOutput
    try login.run()
    let loggedIn = loginOutput.fileHandleForReading.readDataToEndOfFile()
    login.waitUntilExit()
    #expect(String(decoding: loggedIn, as: UTF8.self) == "OK grace@example.com")
  }
}
