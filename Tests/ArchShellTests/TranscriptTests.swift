import Commands
import Foundation
import Testing

@testable import Runtime

/// Every `examples/*.ash` runs with `--echo`, and its whole output (results and errors, in order) is compared with the checked-in `examples/NAME.out`.
///
/// Durations are compared as `#.## ms`. Set `ARCHSH_RECORD=1` to re-record the expected files; the
/// change is then a reviewed diff.
@Suite("walkthrough transcripts", .serialized)
struct TranscriptTests {
  static let examples: [String] = {
    let directory = Binary.root + "/examples"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter { $0.hasSuffix(".ash") }.sorted()
  }()

  @Test("there are walkthroughs to check")
  func examplesExist() {
    #expect(Self.examples.contains("basics.ash"))
  }

  /// The check is archsh's own `--check` (`--accept` with `ARCHSH_RECORD=1`): the suite and a
  /// person reviewing a walkthrough run the same comparison, with the same normalisation.
  @Test("each walkthrough prints exactly its expected transcript", arguments: examples)
  func transcript(_ example: String) throws {
    let script = "examples/" + example
    let record = ProcessInfo.processInfo.environment["ARCHSH_RECORD"] == "1"
    let result = try Binary.run([record ? "--accept" : "--check", script], merge: true)
    #expect(result.status == 0, "\(result.stdout)")
    #expect(
      result.stdout.hasPrefix("\(script): \(record ? "" : "matches")"),
      "re-record with ARCHSH_RECORD=1 and review the diff:\n\(result.stdout)")
  }

  @Test("a walkthrough checks the same from its own folder, from the root, and by its full path")
  func checkedFromAnywhere() throws {
    // basics.ash sources a file and makes errors; parsing.ash and session.ash name missing
    // files, relative to their folder.
    let examples = Binary.root + "/examples"
    for name in ["basics", "parsing", "session"] {
      for (path, directory) in [
        ("\(name).ash", examples), ("examples/\(name).ash", Binary.root),
        ("\(examples)/\(name).ash", NSTemporaryDirectory()),
      ] {
        let result = try Binary.run(["--check", path], directory: directory)
        #expect(result.status == 0, "\(path) from \(directory): \(result.stdout)")
        #expect(
          result.stdout == "\(path): matches \(path.dropLast(4)).out\n",
          "\(path) from \(directory)")
      }
    }
  }

  @Test("--check finds a changed line and prints a unified diff; --accept re-records it")
  func checkFindsAChange() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let script = """
      # A tiny walkthrough.
      set greeting hello
      echo $greeting world
      echo took 1.25 ms
      """
    try script.write(toFile: directory + "/tour.ash", atomically: false, encoding: .utf8)
    let accepted = try Binary.run(["--accept", "tour.ash"], directory: directory)
    #expect(accepted.status == 0)
    #expect(
      accepted.stdout == "tour.ash: accepted: tour.out was re-recorded (the change is below)\n"
        + "--- tour.out\n+++ tour.ash (this run)\n@@ -0,0 +1,6 @@\n+# A tiny walkthrough.\n"
        + "+archsh> set greeting hello\n+archsh> echo $greeting world\n+hello world\n"
        + "+archsh> echo took #.## ms\n+took #.## ms\n")
    let transcript = try String(contentsOfFile: directory + "/tour.out", encoding: .utf8)
    #expect(transcript.hasSuffix("archsh> echo took 1.25 ms\ntook 1.25 ms\n"))
    // A duration is volatile: another value is no difference.
    try transcript.replacingOccurrences(of: "1.25 ms", with: "9.99 ms")
      .write(toFile: directory + "/tour.out", atomically: false, encoding: .utf8)
    let same = try Binary.run(["--check", "tour.ash"], directory: directory)
    #expect(same.stdout == "tour.ash: matches tour.out\n")
    #expect(same.status == 0)
    try transcript.replacingOccurrences(of: "hello world", with: "hello there")
      .write(toFile: directory + "/tour.out", atomically: false, encoding: .utf8)
    let changed = try Binary.run(["--check", "tour.ash"], directory: directory)
    #expect(changed.status == 1)
    #expect(
      changed.stdout
        == "tour.ash: differs from tour.out (re-record it after review: 'archsh --accept tour.ash')\n"
        + "--- tour.out\n+++ tour.ash (this run)\n@@ -1,6 +1,6 @@\n # A tiny walkthrough.\n"
        + " archsh> set greeting hello\n archsh> echo $greeting world\n-hello there\n+hello world\n"
        + " archsh> echo took #.## ms\n took #.## ms\n")
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
}

/// Durations, clock times, the embedded API's port and its random tokens vary from run to run;
/// transcripts compare them as `#.## ms`, `<time>`, `<clock>`, `<http-date>`, `127.0.0.1:PORT`
/// (a Linux ephemeral port has five digits, so column widths stay the same) and `…XXXX` (a token
/// redacted to its last four hex digits); the rule under a table's last column is compared as
/// `---`.
func normalizeDurations(_ text: String) -> String {
  Transcript.normalize(text)
}
