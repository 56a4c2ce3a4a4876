import Domain
import Foundation
import Plumbing
import TestSupport
import Testing

@testable import Commands

/// Every command's `--json` result carries fields, not sentences about them.
@Suite("--json results are fields")
struct JSONResultTests {
  /// Commands whose result is a message by nature: what they print is the whole of their data.
  static let messageCommands: Set<String> = [
    "echo",  // prints its words
    "help",  // prints the help text, which is prose
  ]

  /// Where in a JSON value a sentence stands in for fields: a `{"message": …}` document, an event
  /// given as its line, or a tree node given as a label.
  static func prose(in value: Value, at path: String = "$") -> [String] {
    switch value {
    case .object(let fields):
      let keys = fields.map(\.key)
      if keys == ["message"] { return [path] }
      if keys.contains("label"), keys.contains("children") {
        return ["\(path) (a tree node's label)"]
      }
      if case .list(let events)? = fields.first(where: { $0.key == "events" })?.value,
        events.contains(where: { if case .string = $0 { true } else { false } })
      {
        return ["\(path).events (a line, not fields)"]
      }
      return fields.flatMap { prose(in: $0.value, at: "\(path).\($0.key)") }
    case .list(let values):
      return values.enumerated().flatMap { prose(in: $1, at: "\(path)[\($0)]") }
    default:
      return []
    }
  }

  /// The command an example runs, when it runs one command.
  static func singleCommand(_ example: String) -> Command? {
    guard let lexed = try? Lexer.lex(example), lexed.count == 1 else { return nil }
    let words = lexed[0].words.map { Word($0.text, offset: $0.offset) }
    return try? AllGroups.registry.resolve(words).command
  }

  @Test("a declared shape admits its own fields only, at least one of them, and of its kind")
  func admits() {
    let record = ResultShape.record(["store", "key", "value"])
    #expect(record.admits(.object([Field("store", .string("s")), Field("key", .string("k"))])))
    #expect(!record.admits(.object([Field("store", .string("s")), Field("extra", .int(1))])))
    #expect(!record.admits(.object([])))
    #expect(!record.admits(.list([])))
    let rows = ResultShape.rows(["key"])
    #expect(rows.admits(.list([.object([Field("key", .string("a"))])])))
    #expect(rows.admits(.list([])))
    #expect(!rows.admits(.object([Field("key", .string("a"))])))
    let events = ResultShape.events(["event"])
    #expect(events.admits(.object([Field("events", .list([.object([Field("event", .null)])]))])))
    #expect(!events.admits(.object([Field("events", .list([.string("a line")]))])))
    let tree = ResultShape.tree(["name"])
    let leaf = Value.object([Field("name", .string("b")), Field("children", .list([]))])
    #expect(tree.admits(.object([Field("name", .string("a")), Field("children", .list([leaf]))])))
    #expect(!tree.admits(.object([Field("label", .string("a")), Field("children", .list([]))])))
    let sequence = ResultShape.sequence([.record(["a"]), .rows(["b"])])
    #expect(sequence.admits(.list([.object([Field("a", .int(1))]), .list([])])))
    #expect(!sequence.admits(.list([.object([Field("a", .int(1))])])))
    #expect(ResultShape.oneOf([.nothing, .record(["a"])]).admitsNothing)
    // A traced command that printed nothing: its output is null.
    #expect(
      ResultShape.nothing.admits(.object([Field("output", .null), Field("trace", .list([]))])))
  }

  @Test("prose is found wherever it stands: a message, an event line, a tree label")
  func proseIsFound() {
    #expect(Self.prose(in: .object([Field("message", .string("created"))])) == ["$"])
    #expect(
      Self.prose(in: .list([.object([Field("events", .list([.string("mutated(all)")]))])]))
        == ["$[0].events (a line, not fields)"])
    let label = Value.object([Field("label", .string("a")), Field("children", .list([]))])
    #expect(
      Self.prose(in: .object([Field("output", .null), Field("trace", .list([label]))]))
        == ["$.trace[0] (a tree node's label)"])
    #expect(
      Self.prose(in: .object([Field("message", .string("m")), Field("button", .null)])) == [])
  }

  @Test("every command declares the shape of its result, which help --json shows")
  func everyCommandDeclaresItsResult() {
    var undeclared: [String] = []
    for group in AllGroups.registry.groups {
      for command in group.commands where command.result == nil {
        undeclared.append(group.isBuiltins ? command.name : "\(group.name) \(command.name)")
      }
    }
    #expect(undeclared == [])
    let harness = Harness()
    harness.script(["help --json store retrieve"])
    #expect(
      harness.sink.stdout.contains(
        #""result":{"kind":"one_of","shapes":[{"kind":"record","fields":["store","key","value"]},{"kind":"rows","fields":["key","value"]}]}"#
      ), "\(harness.sink.stdout)")
  }

  @Test("every help example answers --json with fields; only the message commands print a message")
  func examplesGiveFields() async throws {
    let (checked, sentences) = try await offPool { try Self.runExamples() }
    #expect(checked > 100, "only \(checked) results were JSON")
    #expect(sentences == [], "\(sentences.joined(separator: "\n"))")
  }

  /// Runs every example in JSON mode: how many results were JSON, and the prose found in them.
  static func runExamples() throws -> (checked: Int, sentences: [String]) {
    // Examples that would block, wait or leave the test.
    let skipped: Set<String> = ["serve", "board", "exit", "quit", "sleep", "wait"]
    let directory = NSTemporaryDirectory() + "archsh-json-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let harness = Harness()
    harness.session.outputMode = .json
    var checked = 0
    var sentences: [String] = []
    for group in AllGroups.registry.groups {
      for command in group.commands
      where !skipped.contains(group.name) && !skipped.contains(command.name) {
        let name = Help.fullName(command, group: group)
        for example in command.examples {
          // An example of `output` may have changed the mode.
          harness.session.outputMode = .json
          let before = (harness.sink.stdout.count, harness.sink.stderr.count)
          harness.script([example], directory: directory)
          guard harness.sink.stderr.count == before.1 else { continue }
          let printed = String(harness.sink.stdout.dropFirst(before.0))
          for line in printed.split(separator: "\n") where !line.isEmpty {
            guard let parsed = try? StrictJSON.parse(String(line)) else {
              sentences.append("\(example): not JSON: \(line.prefix(160))")
              continue
            }
            let value = JSONRenderer.value(fromJSON: parsed)
            checked += 1
            if let command = Self.singleCommand(example), let shape = command.result,
              !shape.admits(value)
            {
              sentences.append(
                "\(example): does not match its declared result (\(shape.summary)): \(line.prefix(200))"
              )
            }
            // `help` and `time help` print help, which is prose, from any group's examples.
            let first =
              example.split(whereSeparator: { $0 == " " || $0 == ";" }).filter { $0 != "time" }
              .first ?? ""
            guard !Self.messageCommands.contains(name), first != "help" else { continue }
            sentences += Self.prose(in: value).map { "\(example): \($0)  \(line.prefix(160))" }
          }
        }
      }
    }
    return (checked, sentences)
  }
}
