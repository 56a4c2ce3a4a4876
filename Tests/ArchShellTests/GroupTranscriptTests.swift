import Commands
import Domain
import Foundation
import Plumbing
import Testing

/// One transcript per command group, `Tests/Transcripts/GROUP.txt`, in the style of cockroachdb's
/// datadriven files: each `archsh> ` line is input, and what follows it, up to the next one, is
/// that line's exact output, errors included.
///
/// The input is read back from the transcript itself, so a transcript is one file. It is checked
/// by the binary's own `--check`, as a walkthrough is, and `ARCHSH_RECORD=1` re-records it with
/// `--accept`: the same comparison, the same normalisation, the same review of a diff.
@Suite("one transcript per group", .serialized)
struct GroupTranscriptTests {
  static let folder = Binary.root + "/Tests/Transcripts"
  static let prompt = "archsh> "
  static let continuation = "...> "

  static let transcripts: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.filter { $0.hasSuffix(".txt") }.sorted()
  }()

  /// The script a transcript holds: its input lines, with their continuations.
  static func script(of transcript: String) -> String {
    var lines: [String] = []
    for line in transcript.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix(prompt) {
        lines.append(String(line.dropFirst(prompt.count)))
      } else if line.hasPrefix(continuation), let last = lines.last, last.hasSuffix("\\") {
        lines.append(String(line.dropFirst(continuation.count)))
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  @Test("every group has its transcript")
  func everyGroupHasOne() {
    let names = Set(Self.transcripts.map { String($0.dropLast(4)) })
    for group in AllGroups.registry.groups {
      let name = group.isBuiltins ? "builtins" : group.name
      #expect(names.contains(name), "no Tests/Transcripts/\(name).txt")
    }
  }

  /// A fresh folder holding the transcript's script, `STEM.ash`, and the files its lines read,
  /// where the walkthroughs have them; with the script's stem and the transcript itself.
  static func prepare(_ name: String) throws -> (
    directory: String, stem: String, transcript: String
  ) {
    let stem = String(name.dropLast(4))
    let transcript = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
    let directory = try Binary.makeTemporaryDirectory()
    try script(of: transcript).write(
      toFile: directory + "/\(stem).ash", atomically: false, encoding: .utf8)
    let examples = Binary.root + "/examples"
    for entry in try FileManager.default.contentsOfDirectory(atPath: examples)
    where !entry.hasSuffix(".ash") && !entry.hasSuffix(".out") {
      try FileManager.default.createSymbolicLink(
        atPath: directory + "/" + entry, withDestinationPath: examples + "/" + entry)
    }
    return (directory, stem, transcript)
  }

  /// What each command of an input line resolves to; nothing for a line that does not lex.
  static func resolutions(of line: Substring) -> [CommandRegistry.Resolution] {
    guard let lexed = try? Lexer.lex(String(line)) else { return [] }
    return lexed.compactMap { command in
      try? AllGroups.registry.resolve(command.words.map { Word($0.text, offset: $0.offset) })
    }
  }

  @Test("each group's transcript is exactly what its lines print", arguments: transcripts)
  func transcript(_ name: String) throws {
    let (directory, stem, expected) = try Self.prepare(name)
    try expected.write(toFile: directory + "/\(stem).out", atomically: false, encoding: .utf8)
    let record = ProcessInfo.processInfo.environment["ARCHSH_RECORD"] == "1"
    let result = try Binary.run(
      [record ? "--accept" : "--check", "\(stem).ash"], directory: directory, merge: true)
    #expect(result.status == 0, "\(result.stdout)")
    #expect(
      result.stdout.hasPrefix("\(stem).ash: \(record ? "" : "matches")"),
      "re-record with ARCHSH_RECORD=1 and review the diff:\n\(result.stdout)")
    // Only a real change is written back: ports, times and tokens differ on every run.
    if record, result.stdout.contains("accepted:") {
      let recorded = try String(contentsOfFile: directory + "/\(stem).out", encoding: .utf8)
      try recorded.write(toFile: Self.folder + "/" + name, atomically: false, encoding: .utf8)
    }
  }

  @Test(
    "in --json mode, what each transcript line prints has the shape its command declares",
    arguments: transcripts)
  func shapes(_ name: String) throws {
    let (directory, stem, _) = try Self.prepare(name)
    // Under --json the echo goes to standard error: merged, the lines keep their order.
    let result = try Binary.run(
      ["--db", ":memory:", "--json", "--echo", "--keep-going", "-f", "\(stem).ash"],
      directory: directory, merge: true)
    var command: Command?
    var checked = 0
    for line in result.stdout.split(separator: "\n") {
      if line.hasPrefix(Self.prompt) {
        // A line of several commands prints several documents: only one-command lines are read.
        let found = Self.resolutions(of: line.dropFirst(Self.prompt.count))
        command = found.count == 1 ? found[0].command : nil
        continue
      }
      // An error is a document of its own, on standard error: not the command's result.
      guard let command, let shape = command.result, !line.hasPrefix(#"{"error":"#),
        let parsed = try? StrictJSON.parse(String(line))
      else { continue }
      checked += 1
      #expect(
        shape.admits(JSONRenderer.value(fromJSON: parsed)),
        "\(command.name): \(shape.summary) does not admit \(line.prefix(300))")
    }
    #expect(checked > 0 || stem == "record", "\(stem): no JSON result was checked")
  }

  /// The commands each input line of a transcript runs, by their full names.
  static func commands(in transcript: String) -> Set<String> {
    var names: Set<String> = []
    for line in transcript.split(separator: "\n") where line.hasPrefix(prompt) {
      names.formUnion(resolutions(of: line.dropFirst(prompt.count)).map(\.name))
    }
    return names
  }

  @Test("every registered command appears in a group transcript or a walkthrough")
  func everyCommandAppears() throws {
    var seen: Set<String> = []
    let outs =
      (try? FileManager.default.contentsOfDirectory(atPath: Binary.root + "/examples"))?
      .filter { $0.hasSuffix(".out") }.map { Binary.root + "/examples/" + $0 } ?? []
    for path in Self.transcripts.map({ Self.folder + "/" + $0 }) + outs {
      seen.formUnion(Self.commands(in: try String(contentsOfFile: path, encoding: .utf8)))
    }
    var missing: [String] = []
    for group in AllGroups.registry.groups {
      for command in group.commands {
        let name = group.isBuiltins ? command.name : "\(group.name) \(command.name)"
        if !seen.contains(name) { missing.append(name) }
      }
    }
    #expect(seen.count > 100)
    #expect(missing == [], "no transcript runs: \(missing.joined(separator: ", "))")
  }
}
