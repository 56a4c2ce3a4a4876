import Domain
import Foundation
import Testing

@testable import Commands

@Suite("walkthroughs: steps and chapters, transcripts, recording")
struct WalkthroughTests {
  @Test("a walkthrough reads as chapters and steps: narration above, expectations after")
  func steps() {
    let script = WalkthroughScript(
      contents: """
        # What this shows. More about it.
        # Run it with archsh.

        ## Start
        # Narration of the first step,
        # on two lines.
        echo one
        expect equals one
        echo \\
          two

        # Not narration: a blank line follows.

        ## Second chapter
        # Its own narration.
        echo three
        """)
    #expect(script.summary == "What this shows.")
    #expect(script.chapters == ["Start", "Second chapter"])
    #expect(script.steps.count == 3)
    #expect(script.steps[0].narration == ["Narration of the first step,", "on two lines."])
    #expect(script.steps[0].lines.map(\.number) == [7, 8])
    #expect(script.steps[1].narration == [])
    #expect(script.steps[1].lines.map(\.text) == ["echo \\", "  two"])
    #expect(script.steps[2].chapter == 1)
    #expect(script.steps[2].narration == ["Its own narration."])
    #expect(script.chapter(named: "second") == 1)
    #expect(script.chapter(named: "2") == 1)
    #expect(script.chapter(named: "third") == nil)
  }

  @Test("after a step back, the next command's number follows the ones the board has seen")
  func numbersAfterBack() {
    let script = WalkthroughScript(contents: "# One.\necho one\n# Two.\necho two\n")
    let runner = StepRunner(
      script: script, path: "tour.ash", options: SessionOptions(databasePath: ":memory:"),
      settings: InterpreterSettings(), sink: TranscriptSink())
    let commands = CommandNumbers()
    runner.session.tracer.events.subscribe(commands, to: .command)
    runner.runCurrent()
    runner.runCurrent()
    _ = runner.back()
    // The board follows the rebuilt session from here, as Board.move does.
    runner.session.tracer.events.subscribe(commands, to: .command)
    runner.runCurrent()
    #expect(runner.current == 2)
    // Each command publishes when it begins and when it ends.
    #expect(commands.numbers == [1, 1, 2, 2, 3, 3])
  }

  @Test("a diff is nil for transcripts that differ only in volatile values, and unified otherwise")
  func diff() {
    #expect(
      Transcript.unifiedDiff(
        expected: "took 1.20 ms\nat 127.0.0.1:40123\n",
        actual: "took 9.99 ms\nat 127.0.0.1:51234\n",
        expectedName: "a", actualName: "b") == nil)
    let diff = Transcript.unifiedDiff(
      expected: "1\n2\n3\n4\n5\n6\n7\n8\n9\n", actual: "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
      expectedName: "a.out", actualName: "b")
    #expect(diff == "--- a.out\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n")
    let first = Transcript.firstDifference(expected: "a\nb\n", actual: "a\n")
    #expect(first?.line == 2 && first?.expected == "b" && first?.actual == nil)
  }

  @Test("record stop says when the walkthrough does not reproduce, with the first difference")
  func notReproduced() throws {
    let directory = try temporaryDirectory()
    let harness = Harness()
    // The translator was built once before the recording, so the recording shows #2; a fresh
    // replay shows #1.
    harness.prompt([
      "factory get productTranslator", "record start \(directory)/tour.ash",
      "# The second translator.", "factory get productTranslator", "record stop",
    ])
    #expect(harness.sink.stdout.contains("it does NOT reproduce its transcript"))
    #expect(harness.sink.stdout.contains("the first difference is at line 8 of"))
    #expect(harness.sink.stdout.contains("  recorded: id:       #2\n  replayed: id:       #1"))
  }

  @Test("recording to another folder says where relative paths start, and why a replay differs")
  func otherFolder() throws {
    let (_, harness, directory) = try recorded(["store persist generalCache k @missing.txt"])
    let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
      .resolvingSymlinksInPath().path
    let folder = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
    let out = harness.sink.stdout
    #expect(
      out.contains(
        "\nnote: relative paths typed now start in the current directory, '\(here)'; the walkthrough's replay starts them in its own folder, '\(folder)': type absolute paths, or record in the current directory\n"
      ), "\(out)")
    #expect(out.contains("it does NOT reproduce its transcript"))
    #expect(
      out.contains(
        "\nnote: relative paths typed while recording started in '\(here)'; the replay starts them in '\(folder)'"
      ))
    // Recorded in the current directory, the two are one folder.
    #expect(SessionRecorder.folders(of: "tour.ash") == nil)
    #expect(
      SessionRecorder.folders(of: FileManager.default.currentDirectoryPath + "/./tour.ash") == nil)
  }

  /// What a walkthrough recorded of `lines`, typed at the prompt between `record start` and
  /// `record stop`: the script, the harness that ran it, and its directory.
  private func recorded(_ lines: [String], in folder: String? = nil) throws -> (
    script: String, harness: Harness, directory: String
  ) {
    let directory = try folder ?? temporaryDirectory()
    let harness = Harness()
    harness.prompt(["record start \(directory)/tour.ash"] + lines + ["record stop"])
    let script = try String(contentsOfFile: directory + "/tour.ash", encoding: .utf8)
    return (script, harness, directory)
  }

  @Test("a typed source that fails inside its file records the include chain and an expect fails")
  func sourceFailingInside() throws {
    let directory = try temporaryDirectory()
    try "echo in lib\nbogus\n".write(
      toFile: directory + "/lib.ash", atomically: false, encoding: .utf8)
    let (script, harness, _) = try recorded(
      ["echo hi", "source \(directory)/lib.ash", "echo after"], in: directory)
    let failure = "expect fails \"unknown command 'bogus'\""
    #expect(script == "echo hi\nsource \(directory)/lib.ash\n\(failure)\necho after\n")
    let transcript = try String(contentsOfFile: directory + "/tour.out", encoding: .utf8)
    #expect(
      transcript == """
        archsh> echo hi
        hi
        archsh> source \(directory)/lib.ash
        in lib
        \(directory)/lib.ash:2:1: error: unknown command 'bogus' (try 'help'); \
        in file included from tour.ash:2
        archsh> \(failure)
        archsh> echo after
        after

        """)
    #expect(harness.sink.stdout.contains("it reproduces its transcript"), "\(harness.sink.stdout)")
    // The screen names no include chain: the line was typed at the prompt.
    #expect(
      harness.sink.stderr
        == "\(directory)/lib.ash:2:1: error: unknown command 'bogus' (try 'help')\n")
  }

  @Test("a file a typed source names is named as the replay will name it, when it is the same file")
  func replayNames() {
    let here = FileManager.default.currentDirectoryPath
    let recorder = SessionRecorder(path: here + "/tour.ash", variables: [:])
    // The replay names a file as it was typed, from the walkthrough's folder.
    #expect(
      recorder.replayName(of: "Package.swift", openedAs: "./Package.swift") == "Package.swift")
    #expect(recorder.replayName(of: "/etc/hostname", openedAs: "/etc/hostname") == "/etc/hostname")
    // Elsewhere, the replay would open another file: the name stays the one it was opened by.
    let elsewhere = SessionRecorder(path: "/nonexistent/tour.ash", variables: [:])
    #expect(
      elsewhere.replayName(of: "Package.swift", openedAs: "./Package.swift") == "./Package.swift")
  }

  @Test("a replay names a missing sourced file from the walkthrough's folder, not from here")
  func replayNamesMissingSource() throws {
    let directory = try temporaryDirectory()
    try FileManager.default.createDirectory(
      atPath: directory + "/lib", withIntermediateDirectories: true)
    try "source lib/inner.ash\n".write(
      toFile: directory + "/tour.ash", atomically: false, encoding: .utf8)
    try "source missing.ash\n".write(
      toFile: directory + "/lib/inner.ash", atomically: false, encoding: .utf8)
    let run = WalkthroughReplay.run(path: directory + "/tour.ash")
    #expect(run.status == 1)
    #expect(
      run.output == """
        archsh> source lib/inner.ash
        lib/inner.ash:1:8: error: cannot read 'lib/missing.ash': no such file \
        (a relative path starts in the script's folder); in file included from tour.ash:1

        """)
  }

  @Test("secrets typed on a line become set NAME --secret, and the replay is given them")
  func secrets() throws {
    let (script, harness, _) = try recorded([
      "set token abc123 --secret",
      "echo \"token: $token\"",
    ])
    #expect(
      script == secretsHeader("token", first: "token")
        + "set token --secret\necho \"token: $token\"\n")
    #expect(harness.sink.stdout.contains("it reproduces its transcript"), "\(harness.sink.stdout)")
  }

  @Test("a secret given to a command as a variable keeps its variable, and the login replays")
  func secretVariable() throws {
    let (script, harness, _) = try recorded([
      "set pw lovelace --secret",
      "auth login ada@example.com $pw",
    ])
    #expect(
      script == secretsHeader("pw", first: "pw")
        + "set pw --secret\nauth login ada@example.com $pw\n")
    #expect(harness.sink.stdout.contains("it reproduces its transcript"), "\(harness.sink.stdout)")
    #expect(!script.contains("lovelace"))
  }

  @Test("words a mistyped line could not place are withheld when the command takes a secret")
  func secretsOnMistypedLines() throws {
    let (script, _, _) = try recorded([
      "set token s3cr3t --secert",
      "auth login ada@example.com pass word",
    ])
    let lines = script.split(separator: "\n").map(String.init).dropFirst()
    #expect(!script.contains("s3cr3t") && !script.contains("word\""), "\(script)")
    #expect(lines.first == "set secret --secret")
    #expect(lines.contains("set token \"${secret}\" --secert"), "\(script)")
    #expect(
      lines.contains("auth login ada@example.com \"${password}\" \"${secret2}\""), "\(script)")
  }

  @Test("a secret on a line with a typo is withheld, and the error keeps its column")
  func errorAfterSecret() throws {
    let (script, harness, directory) = try recorded([
      "  auth login ada@example.com lovelace --nosuch",
      "set  key  abc  --secret", "auth login s3cret",
    ])
    // The first line names the secrets the walkthrough asks for.
    let lines = Array(script.split(separator: "\n").map(String.init).dropFirst())
    #expect(!script.contains("lovelace") && !script.contains("abc"))
    try #require(lines.count == 6, "\(script)")
    #expect(
      lines.prefix(2) == [
        "set password --secret", "auth login ada@example.com \"${password}\" --nosuch",
      ])
    #expect(lines[2].hasPrefix("expect fails \"unknown option '--nosuch' for 'auth login'"))
    // The value goes with the blanks after it; the blanks typed elsewhere stay.
    #expect(lines[3] == "set  key  --secret")
    // A lone word is the email: no secret was typed, so the line stays as it was.
    #expect(
      lines[4...5] == ["auth login s3cret", "expect fails \"'auth login' needs a password\""])
    // The error's column is where --nosuch stands in the recorded line, not in the typed one.
    let transcript = try String(contentsOfFile: directory + "/tour.out", encoding: .utf8)
    #expect(
      transcript.contains("tour.ash:3:42: expected error: unknown option '--nosuch'"),
      "\(transcript)")
    #expect(harness.sink.stdout.contains("it reproduces its transcript"), "\(harness.sink.stdout)")
  }
}

/// The command numbers of the command events it receives.
private final class CommandNumbers: EventSubscriber, @unchecked Sendable {
  private let lock = NSLock()
  private var received: [Int] = []
  var numbers: [Int] { lock.withLock { received } }
  func receive(_ event: ArchEvent) { lock.withLock { received.append(event.command) } }
}

/// The line a recorded walkthrough starts with when it asks for secrets.
func secretsHeader(_ names: String, first: String) -> String {
  "# Secrets this walkthrough asks for, in this order: \(names). At a terminal it asks; without "
    + "one, give them as the lines of standard input, in this order, or as environment variables "
    + "ARCHSH_SECRET_NAME (for example ARCHSH_SECRET_\(first)).\n"
}
