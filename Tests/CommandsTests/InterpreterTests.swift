import Foundation
import TestSupport
import Testing

@testable import Commands

/// A new empty directory under the system's temporary directory.
func temporaryDirectory() throws -> String {
  try Scratch.directory("tests")
}

/// Durations vary from run to run; transcripts compare them as `#.## ms`.
func normalizeDurations(_ text: String) -> String {
  text.replacingOccurrences(of: #"\d+\.\d+ (ms|s)\b"#, with: "#.## $1", options: .regularExpression)
}

@Suite("Interpreter")
struct InterpreterTests {
  @Test("variables interpolate in words and double quotes; $? is the last status")
  func variables() {
    let harness = Harness()
    let outcome = harness.prompt([
      "set name world; echo hello $name \"${name}!\" '$name'",
      "unset nothing",
      "echo status $?",
      "echo status $?",
    ])
    #expect(outcome == .finished)
    #expect(harness.sink.stdout == "hello world world! $name\nstatus 1\nstatus 0\n")
  }

  @Test("script arguments are $1…$9 and $#; $0 is the script")
  func positionals() {
    let harness = Harness()
    harness.script(["echo $# $1 $2 $0"], arguments: ["a", "b c"])
    #expect(harness.sink.stdout == "2 a b c test.ash\n")
  }

  @Test("an undefined variable is an error that names it, at its column")
  func undefinedVariable() {
    let harness = Harness()
    let outcome = harness.script(["echo ok", "echo a $nope"])
    #expect(outcome == .stopped)
    #expect(
      harness.sink.stderr
        == "test.ash:2:8: error: undefined variable 'nope' (define it with 'set nope VALUE')\n")
  }

  @Test("a script stops at its first error; later lines do not run")
  func stopsAtFirstError() {
    let harness = Harness()
    let outcome = harness.script(["echo one", "ech two", "echo three"])
    #expect(outcome == .stopped)
    #expect(
      harness.sink.combined
        == "one\ntest.ash:2:1: error: unknown command 'ech' (did you mean 'echo'?)\n")
    #expect(harness.interpreter.hadFailure)
  }

  @Test("with keep-going, every line runs and the failure is remembered")
  func keepGoing() {
    var settings = InterpreterSettings()
    settings.keepGoing = true
    let harness = Harness(settings: settings)
    let outcome = harness.script(["echo one", "ech two", "echo three"])
    #expect(outcome == .finished)
    #expect(harness.sink.stdout == "one\nthree\n")
    #expect(harness.interpreter.hadFailure)
  }

  @Test("at the prompt, an error never ends the session and a caret points at the word")
  func interactiveErrors() {
    let harness = Harness()
    let outcome = harness.prompt(["echo one", "factory gett tracer", "echo two"])
    #expect(outcome == .finished)
    #expect(
      harness.sink.combined == """
        one
                        ^
        error: unknown verb 'gett' for 'factory' (did you mean 'get'?)
        two

        """)
  }

  @Test("an error in a continued line reports the physical line and column")
  func continuationLocation() {
    let harness = Harness()
    harness.script(["echo a \\", "  b \\", "  $missing"])
    #expect(harness.sink.stderr.hasPrefix("test.ash:3:3: error: undefined variable 'missing'"))
  }

  @Test("expect checks the previous command's output or failure")
  func expectPasses() {
    let harness = Harness()
    let outcome = harness.script([
      "echo hello world",
      "expect contains world",
      "expect equals 'hello world'",
      "expect succeeds",
      "unset ghost",
      "expect fails \"no variable 'ghost'\"",
      "echo done",
    ])
    #expect(outcome == .finished)
    #expect(!harness.interpreter.hadFailure)
    #expect(harness.sink.stdout == "hello world\ndone\n")
    // The failure the next line expects is labelled as expected.
    #expect(
      harness.sink.stderr
        == "test.ash:5:7: expected error: no variable 'ghost' ('vars' lists the variables)\n")
  }

  @Test("a failed expectation is an error at its own line showing expected and actual")
  func expectFails() {
    let harness = Harness()
    #expect(harness.script(["echo hello", "expect contains bye", "echo not reached"]) == .stopped)
    #expect(
      harness.sink.stderr
        == "test.ash:2:1: error: expectation failed: expected output containing 'bye', got 'hello'\n"
    )

    let equals = Harness()
    equals.script(["echo \"a\nb\"", "expect equals a"])
    #expect(
      equals.sink.stderr
        == "test.ash:2:1: error: expectation failed: expected output 'a', got 'a\\nb'\n")

    let failsButSucceeded = Harness()
    failsButSucceeded.script(["echo fine", "expect fails"])
    #expect(
      failsButSucceeded.sink.stderr
        == "test.ash:2:1: error: expectation failed: expected the previous command to fail, but it succeeded with output 'fine'\n"
    )

    let wrongMessage = Harness()
    wrongMessage.script(["unset ghost", "expect fails 'unknown'"])
    #expect(
      wrongMessage.sink.stderr.hasSuffix(
        "test.ash:2:1: error: expectation failed: expected an error containing 'unknown', got \"no variable 'ghost' ('vars' lists the variables)\"\n"
      ))

    let succeededExpected = Harness()
    #expect(succeededExpected.script(["unset ghost", "expect contains x"]) == .stopped)
    #expect(
      succeededExpected.sink.stderr.hasSuffix(
        "test.ash:2:1: error: expectation failed: expected the previous command to succeed, but it failed with \"no variable 'ghost' ('vars' lists the variables)\"\n"
      ))
  }

  @Test("expect with no command before it says so")
  func expectFirst() {
    let harness = Harness()
    harness.script(["expect succeeds"])
    #expect(
      harness.sink.stderr
        == "test.ash:1:1: error: nothing to check: no command has run yet (put expect after a command)\n"
    )
  }

  @Test("argument errors are precise: missing, extra, unknown options, bad types")
  func argumentErrors() {
    let cases: [(String, String)] = [
      (
        "set x",
        "test.ash:1:5: error: 'set' needs a VALUE (write 'set x VALUE', or add --secret to be asked for it)"
      ),
      (
        "set x a b",
        "test.ash:1:9: error: too many arguments for 'set': unexpected 'b' (usage: set NAME [VALUE] [--secret]; quote a value that contains spaces)"
      ),
      (
        "set x a --secrte",
        "test.ash:1:9: error: unknown option '--secrte' for 'set' (did you mean '--secret'?)"
      ),
      ("exit 300", "test.ash:1:6: error: expected N between 0 and 255, not '300'"),
      ("exit x", "test.ash:1:6: error: expected a whole number for N, not 'x'"),
      (
        "output yaml",
        "test.ash:1:8: error: 'yaml' is not a valid MODE (choose one of: table, json)"
      ),
      ("output jsno", "test.ash:1:8: error: 'jsno' is not a valid MODE (did you mean 'json'?)"),
      (
        "vars extra",
        "test.ash:1:6: error: too many arguments for 'vars': unexpected 'extra' ('vars' takes no arguments)"
      ),
      (
        "trace",
        "test.ash:1:6: error: 'trace' needs a verb: on, off, show, export (try 'help trace')"
      ),
      (
        "set 9x y",
        "test.ash:1:5: error: bad variable name '9x' (names are ASCII letters, digits and '_', not starting with a digit)"
      ),
      (
        "factory get trcer",
        "test.ash:1:13: error: unknown component 'trcer' (did you mean 'tracer'?)"
      ),
      ("help xyzzy", "test.ash:1:6: error: no help for 'xyzzy' (try 'help')"),
      ("help stor", "test.ash:1:6: error: no help for 'stor' (did you mean 'store'?)"),
      ("help facotry", "test.ash:1:6: error: no help for 'facotry' (did you mean 'factory'?)"),
    ]
    for (line, expected) in cases {
      let harness = Harness()
      harness.script([line])
      #expect(harness.sink.stderr == expected + "\n", "\(line)")
    }
  }

  @Test("source runs a file relative to the including one, with arguments and an include chain")
  func source() throws {
    let directory = try temporaryDirectory()
    try "echo in lib $1\nsource deeper/inner.ash".write(
      toFile: directory + "/lib.ash", atomically: false, encoding: .utf8)
    try FileManager.default.createDirectory(
      atPath: directory + "/deeper", withIntermediateDirectories: true)
    try "echo inner\n\n  bogus".write(
      toFile: directory + "/deeper/inner.ash", atomically: false, encoding: .utf8)
    let harness = Harness()
    let outcome = harness.script(
      ["echo start", "source lib.ash first", "echo never"], directory: directory)
    #expect(outcome == .stopped)
    #expect(harness.sink.stdout == "start\nin lib first\ninner\n")
    #expect(
      harness.sink.stderr
        == "\(directory)/deeper/inner.ash:3:3: error: unknown command 'bogus' (try 'help'); in file included from \(directory)/lib.ash:2, from test.ash:2\n"
    )
  }

  @Test("a missing sourced file is an error at the path, saying where a relative path starts")
  func sourceMissing() {
    let harness = Harness()
    harness.script(["source nowhere.ash"])
    let here = FileManager.default.currentDirectoryPath
    #expect(
      harness.sink.stderr
        == "test.ash:1:8: error: cannot read 'nowhere.ash': no such file (a relative path starts in the current directory, '\(here)')\n"
    )
    let nested = Harness()
    nested.script(["source nowhere.ash"], directory: "scripts")
    #expect(
      nested.sink.stderr
        == "test.ash:1:8: error: cannot read 'scripts/nowhere.ash': no such file (a relative path starts in the script's folder, 'scripts')\n"
    )
  }

  @Test("a file that sources itself stops at 64 levels with an error, not a crash")
  func sourceDepth() throws {
    let directory = try temporaryDirectory()
    try "source self.ash".write(toFile: directory + "/self.ash", atomically: false, encoding: .utf8)
    let harness = Harness()
    #expect(harness.script(["source self.ash"], directory: directory) == .stopped)
    // The 63 identical frames are folded into one, with their count.
    #expect(
      harness.sink.stderr
        == "\(directory)/self.ash:1:8: error: 'source' is nested deeper than 64 files (does 'self.ash' source itself?); in file included from \(directory)/self.ash:1 (×63), from test.ash:1\n"
    )
  }

  @Test("exit ends the run with its status; quit uses the failure status")
  func exitStatus() {
    let harness = Harness()
    #expect(harness.script(["echo a", "exit 3", "echo b"]) == .exit(3))
    #expect(harness.sink.stdout == "a\n")
    var settings = InterpreterSettings()
    settings.keepGoing = true
    let failing = Harness(settings: settings)
    #expect(failing.script(["bogus", "quit"]) == .exit(1))
    #expect(Harness().script(["quit", "echo no"]) == .exit(0))
  }

  @Test("JSON output gives one document per command with stable keys")
  func json() {
    let harness = Harness()
    harness.script([
      "output json", "set b 2", "set a 1", "vars", "echo hi", "factory get tracer", "output",
    ])
    #expect(
      harness.sink.stdout == """
        {}
        {}
        {}
        [{"name":"a","value":"1"},{"name":"b","value":"2"}]
        {"message":"hi"}
        {"name":"tracer","factory":"ApplicationFactory","type":"Tracer","scope":"singleton","instance":"the shared instance","id":"#1","summary":"records the spans that controllers report"}
        {"output":"json"}

        """)
  }

  @Test("a command that answers in a sentence gives programs its fields instead")
  func sentencesHaveFields() {
    let harness = Harness()
    harness.script([
      "store create scratch", "store persist scratch k v", "output json", "store drop scratch",
      "log level API Warning", "log disable API", "trace on", "trace off",
      "ds new todo --rows a", "ds register todo Text BasicCell", "ds background todo 'Nothing yet'",
      "ds background todo", "ds drop todo", "output table", "store create scratch2",
      "log enable API", "ds new t --rows a", "ds register t Text BasicCell", "ds drop t",
    ])
    #expect(
      harness.sink.combined == """
        created store 'scratch'
        {}
        {"store":"scratch","dropped":true,"entries":1,"bytes":1}
        {"tag":"API","threshold":"Warning"}
        {"tag":"API","enabled":false}
        {"tracing":true}
        {"tracing":false}
        {"name":"todo","sections":1,"rows":1}
        {"model_type":"Text","cell_controller":"BasicCell"}
        {"background":"Nothing yet"}
        {"background":null}
        {"name":"todo","dropped":true}
        created store 'scratch2'
        API: enabled
        created t: 1 section, 1 row
        Text → BasicCell
        dropped t

        """)
  }

  @Test("repo drop, auth logout and trace export give their fields in JSON")
  func moreSentencesHaveFields() throws {
    let directory = NSTemporaryDirectory() + "archsh-fields-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let harness = Harness()
    harness.script(
      [
        "trace on", "repo new r /users/me/locations", "trace off", "output json",
        "repo drop r", "auth logout", "trace export --format mermaid t.mmd",
      ], directory: directory)
    let lines = harness.sink.combined.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.first == "tracing is on")
    #expect(lines.contains("tracing is off"))
    #expect(
      lines.drop { $0 != "tracing is off" }.dropFirst().joined(separator: "\n") == """
        {}
        {"repository":"r","dropped":true}
        {"logged_in":false}
        {"path":"\(directory)/t.mmd","format":"mermaid"}

        """)
  }

  @Test("ds new says what it made in a sentence, and in JSON its name and counts")
  func dataSourceNewJSON() {
    let harness = Harness()
    harness.script([
      "ds new shop --rows a b c", "output json", "ds new menu --rows x '{\"type\":\"Game\"}'",
    ])
    #expect(
      harness.sink.combined == """
        created shop: 1 section, 3 rows
        {}
        {"name":"menu","sections":1,"rows":2}

        """)
  }

  @Test("ds render draws cut text for people, and --json carries the window's rows whole")
  func renderJSON() {
    // Given a data source whose first row is longer than the drawing is wide
    let long = String(repeating: "long text ", count: 12)
    let harness = Harness()
    harness.script([
      "ds new menu --rows '\(long)' '{\"type\":\"Game\",\"name\":\"Tetris\",\"year\":1984}'",
      "ds register menu Text BasicCell", "ds render menu --width 30",
    ])
    // Then the drawing cuts it
    #expect(harness.sink.stdout.contains("│ long text long text long … │"))
    #expect(!harness.sink.stdout.contains(long))
    // When the same is asked for as JSON
    let json = Harness()
    json.script([
      "ds new menu --rows '\(long)' '{\"type\":\"Game\",\"name\":\"Tetris\",\"year\":1984}'",
      "ds register menu Text BasicCell", "output json", "ds render menu --width 30 --count 5",
    ])
    // Then every row is whole, with its model and cell
    #expect(json.sink.stderr == "")
    #expect(
      json.sink.stdout.split(separator: "\n").last
        == #"{"total_rows":2,"from":0,"sections":[{"section":0,"header":null,"footer":null,"rows":[{"row":0,"model_type":"Text","reuse_identifier":"basicCell","model":"\#(long)"},{"row":1,"model_type":"Game","reuse_identifier":"errorCell","model":{"type":"Game","name":"Tetris","year":1984}}]}]}"#
    )
  }

  @Test("secret values are masked, and their lines are recognised for history")
  func secrets() {
    let harness = Harness()
    harness.script(["set token abc --secret", "set user ann", "vars"])
    #expect(harness.sink.stdout.contains("token  ********"))
    #expect(!harness.sink.stdout.contains("abc"))
    #expect(harness.interpreter.lineContainsSecret("set token abc --secret"))
    #expect(harness.interpreter.lineContainsSecret("echo hi; time set token abc --secret"))
    #expect(!harness.interpreter.lineContainsSecret("set user ann"))
    #expect(!harness.interpreter.lineContainsSecret("echo 'unterminated"))
    #expect(harness.interpreter.lineContainsSecret("set token s3cr3t --secret extra"))
    #expect(harness.interpreter.lineContainsSecret("serve --port 0 --user a@b.c:pw"))
    #expect(!harness.interpreter.lineContainsSecret("serve --port 0"))
    #expect(harness.interpreter.lineContainsSecret("auth login ada@example.com lovelace"))
    #expect(!harness.interpreter.lineContainsSecret("auth login ada@example.com --password-stdin"))
  }

  @Test("time runs the command and reports its duration after the output")
  func time() {
    let harness = Harness()
    harness.script(["time echo hi"])
    let lines = harness.sink.stdout.split(separator: "\n")
    #expect(lines.count == 2)
    #expect(lines[0] == "hi")
    #expect(lines[1].hasPrefix("milliseconds: ") && lines[1].hasSuffix(" ms"))
  }

  @Test("with tracing on, a command that drives a controller is followed by its tree")
  func tracing() throws {
    let harness = Harness()
    let file = try temporaryDirectory() + "/trace.mmd"
    harness.script([
      "echo before", "trace on", "echo quiet", "factory get tracer",
      "trace export --format mermaid \(file)",
    ])
    let output = normalizeDurations(harness.sink.stdout)
    #expect(
      output == """
        before
        tracing is on
        quiet
        name:     tracer
        factory:  ApplicationFactory
        type:     Tracer
        scope:    singleton
        instance: the shared instance
        id:       #1
        summary:  records the spans that controllers report
        archsh factory get tracer  #.## ms
        └─ ApplicationFactory make tracer (lifetime: singleton, instance: shared)  #.## ms
        wrote a Mermaid sequence diagram to \(file)

        """)
    let diagram = normalizeDurations(try String(contentsOfFile: file, encoding: .utf8))
    #expect(
      diagram == """
        sequenceDiagram
          actor User
          participant archsh
          participant ApplicationFactory
          User->>archsh: factory get tracer
          archsh->>ApplicationFactory: make tracer
          ApplicationFactory-->>archsh: lifetime: singleton, instance: shared, #.## ms
          archsh-->>User: #.## ms

        """)
    let attributes = try FileManager.default.attributesOfItem(atPath: file)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
  }

  @Test("exporting before anything was traced is an error with a hint")
  func exportNothing() {
    let harness = Harness()
    harness.script(["trace export"])
    #expect(
      harness.sink.stderr
        == "test.ash:1:1: error: nothing has been traced (start with 'trace on')\n")
  }
}
