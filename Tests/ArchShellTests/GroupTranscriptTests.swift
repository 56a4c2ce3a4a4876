import Commands
import Domain
import Foundation
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

  @Test("each group's transcript is exactly what its lines print", arguments: transcripts)
  func transcript(_ name: String) throws {
    let stem = String(name.dropLast(4))
    let expected = try String(contentsOfFile: Self.folder + "/" + name, encoding: .utf8)
    let directory = try Binary.makeTemporaryDirectory()
    try Self.script(of: expected).write(
      toFile: directory + "/\(stem).ash", atomically: true, encoding: .utf8)
    try expected.write(toFile: directory + "/\(stem).out", atomically: true, encoding: .utf8)
    // The files the lines read, where the walkthroughs have them.
    let examples = Binary.root + "/examples"
    for entry in try FileManager.default.contentsOfDirectory(atPath: examples)
    where !entry.hasSuffix(".ash") && !entry.hasSuffix(".out") {
      try FileManager.default.createSymbolicLink(
        atPath: directory + "/" + entry, withDestinationPath: examples + "/" + entry)
    }
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
      try recorded.write(toFile: Self.folder + "/" + name, atomically: true, encoding: .utf8)
    }
  }

  @Test(
    "in --json mode, what each transcript line prints has the shape its command declares",
    arguments: transcripts)
  func shapes(_ name: String) throws {
    let stem = String(name.dropLast(4))
    let transcript = try String(contentsOfFile: Self.folder + "/" + name, encoding: .utf8)
    let directory = try Binary.makeTemporaryDirectory()
    try Self.script(of: transcript).write(
      toFile: directory + "/\(stem).ash", atomically: true, encoding: .utf8)
    let examples = Binary.root + "/examples"
    for entry in try FileManager.default.contentsOfDirectory(atPath: examples)
    where !entry.hasSuffix(".ash") && !entry.hasSuffix(".out") {
      try FileManager.default.createSymbolicLink(
        atPath: directory + "/" + entry, withDestinationPath: examples + "/" + entry)
    }
    let result = try Binary.run(
      ["--db", ":memory:", "--json", "--echo", "--keep-going", "-f", "\(stem).ash"],
      directory: directory)
    var command: Command?
    var checked = 0
    for line in result.stdout.split(separator: "\n") {
      if line.hasPrefix(Self.prompt) {
        command = nil
        let text = String(line.dropFirst(Self.prompt.count))
        if let lexed = try? Lexer.lex(text), lexed.count == 1 {
          let words = lexed[0].words.map { Word($0.text, offset: $0.offset) }
          command = try? AllGroups.registry.resolve(words).command
        }
        continue
      }
      guard let command, let shape = command.result,
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
      guard let lexed = try? Lexer.lex(String(line.dropFirst(prompt.count))) else { continue }
      for command in lexed {
        let words = command.words.map { Word($0.text, offset: $0.offset) }
        if let resolution = try? AllGroups.registry.resolve(words) {
          names.insert(resolution.name)
        }
      }
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
