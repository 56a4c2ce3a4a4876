import Foundation
import Testing

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

  @Test("each walkthrough prints exactly its expected transcript", arguments: examples)
  func transcript(_ example: String) throws {
    let script = "examples/" + example
    let expectedPath = Binary.root + "/examples/" + example.dropLast(4) + ".out"
    let result = try Binary.run(
      ["--echo", "--no-rc", "--db", ":memory:", "-f", script], merge: true)
    if ProcessInfo.processInfo.environment["ARCHSH_RECORD"] == "1" {
      try result.stdout.write(toFile: expectedPath, atomically: true, encoding: .utf8)
    }
    let expected = try String(contentsOfFile: expectedPath, encoding: .utf8)
    #expect(result.status == 0, "\(script) exited with \(result.status)")
    #expect(
      normalizeDurations(result.stdout) == normalizeDurations(expected),
      "\(script) differs from \(expectedPath); re-record with ARCHSH_RECORD=1 and review the diff")
  }
}

/// Durations, clock times, the embedded API's port and its random tokens vary from run to run;
/// transcripts compare them as `#.## ms`, `<time>`, `<clock>`, `<http-date>`, `127.0.0.1:PORT`
/// (a Linux ephemeral port has five digits, so column widths stay the same) and `…XXXX` (a token
/// redacted to its last four hex digits); the rule under a table's last column is compared as
/// `---`.
func normalizeDurations(_ text: String) -> String {
  text.replacingOccurrences(of: #"\d+\.\d+ (ms|s)\b"#, with: "#.## $1", options: .regularExpression)
    .replacingOccurrences(
      of: #"127\.0\.0\.1:\d{5}\b"#, with: "127.0.0.1:PORT", options: .regularExpression
    )
    .replacingOccurrences(
      of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"#, with: "<time>", options: .regularExpression
    )
    .replacingOccurrences(
      of: #"\b\d\d:\d\d:\d\d\.\d{3}\b"#, with: "<clock>", options: .regularExpression
    )
    .replacingOccurrences(
      of: #"[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT"#, with: "<http-date>",
      options: .regularExpression
    )
    .replacingOccurrences(of: #"…[0-9a-f]{4}\b"#, with: "…XXXX", options: .regularExpression)
    // A table's last column is as wide as its longest value, which may hold a duration.
    .replacingOccurrences(of: #"(?m)-{3,}$"#, with: "---", options: .regularExpression)
}
