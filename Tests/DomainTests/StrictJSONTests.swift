import Foundation
import Plumbing
import Testing

@testable import Domain

/// The fixture corpus: `Fixtures/json/valid/*.json`, `Fixtures/json/invalid/*.json`, and
/// `Fixtures/json/expected.tsv` giving each invalid file's error line, column and a substring of
/// its description.
private enum Corpus {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/json")

  /// The `.json` files of `kind` (`valid` or `invalid`), sorted.
  static func files(_ kind: String) -> [String] {
    let directory = root.appendingPathComponent(kind).path
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter { $0.hasSuffix(".json") }.sorted()
  }

  static func data(_ kind: String, _ name: String) throws -> Data {
    try Data(contentsOf: root.appendingPathComponent(kind).appendingPathComponent(name))
  }

  struct Expected: Sendable {
    var line: Int
    var column: Int
    var substring: String
  }

  /// expected.tsv, keyed by file name relative to the corpus (`invalid/x.json`).
  static let expected: [String: Expected] = {
    let url = root.appendingPathComponent("expected.tsv")
    let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    var rows: [String: Expected] = [:]
    for line in text.split(separator: "\n").dropFirst() {
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard fields.count == 4, let number = Int(fields[1]), let column = Int(fields[2]) else {
        continue
      }
      rows[fields[0]] = Expected(line: number, column: column, substring: fields[3])
    }
    return rows
  }()
}

/// JSONSerialization's output for `object`, keys sorted, for comparing two object graphs.
private func canonical(_ object: Any) -> Data? {
  try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
}

/// Whether `value` holds an integer literal that does not fit `Int`: `foundationObject()` makes
/// it a `Double` by design, where JSONSerialization keeps it as a `UInt64` or `NSDecimalNumber`.
private func hasIntegerBeyondInt(_ value: JSONValue) -> Bool {
  switch value {
  case .number(let text):
    return !text.contains { ".eE".contains($0) } && Int(text) == nil
  case .array(let elements):
    return elements.contains(where: hasIntegerBeyondInt)
  case .object(let members):
    return members.contains { hasIntegerBeyondInt($0.value) }
  case .null, .bool, .string:
    return false
  }
}

/// The error `parse` throws for `text`, or nil when it parses.
private func error(parsing text: String) -> JSONSyntaxError? {
  do {
    _ = try StrictJSON.parse(text)
    return nil
  } catch {
    return error
  }
}

@Suite("StrictJSON")
struct StrictJSONTests {
  @Test("the corpus is complete: enough files, and expected.tsv lists exactly the invalid ones")
  func corpusIsComplete() {
    // Given the fixture directories and the manifest
    let valid = Corpus.files("valid")
    let invalid = Corpus.files("invalid").map { "invalid/" + $0 }

    // Then there are enough cases and every invalid file has exactly one expectation
    #expect(valid.count >= 25)
    #expect(invalid.count >= 40)
    #expect(Set(invalid) == Set(Corpus.expected.keys))
  }

  @Test(
    "every valid fixture parses, and agrees with JSONSerialization when that accepts it too",
    arguments: Corpus.files("valid"))
  func validFixture(name: String) throws {
    // Given a valid RFC 8259 document
    let data = try Corpus.data("valid", name)

    // When StrictJSON parses it
    let value = try StrictJSON.parse(data)

    // Then, where Foundation also accepts it, both give the same object graph
    guard
      let reference = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed),
      !hasIntegerBeyondInt(value)
    else { return }
    let mine = try #require(canonical(value.foundationObject()))
    let theirs = try #require(canonical(reference))
    #expect(String(decoding: mine, as: UTF8.self) == String(decoding: theirs, as: UTF8.self))
  }

  @Test(
    "every invalid fixture fails at the line, column and message expected.tsv gives",
    arguments: Corpus.files("invalid"))
  func invalidFixture(name: String) throws {
    // Given an invalid document and its expected error
    let data = try Corpus.data("invalid", name)
    let expected = try #require(Corpus.expected["invalid/" + name])

    // When StrictJSON parses it
    let thrown = #expect(throws: JSONSyntaxError.self) { try StrictJSON.parse(data) }

    // Then it fails where and as expected, in one line
    let error = try #require(thrown)
    #expect(error.line == expected.line)
    #expect(error.column == expected.column)
    #expect(error.description.contains(expected.substring), "\(error)")
    #expect(!error.description.contains("\n"))
  }

  @Test("a trailing comma that JSONSerialization accepts is rejected, with its place")
  func trailingCommaFoundationAccepts() throws {
    // Given objects and arrays with a trailing comma
    let object = #"{"a": 1, "b": 2,}"#
    let array = "[1, 2, 3,]"

    // When Foundation and StrictJSON read them
    #if os(Linux)
    // Then Foundation lets them through (this is why StrictJSON exists)
    #expect(
      (try? JSONSerialization.jsonObject(with: Data(object.utf8), options: [])) != nil)
    #expect((try? JSONSerialization.jsonObject(with: Data(array.utf8), options: [])) != nil)
    #endif

    // And StrictJSON rejects them at the closing bracket
    #expect(
      error(parsing: object)?.description
        == "line 1, column 17: expected '\"' to start a member name, found '}' (a trailing comma?)")
    #expect(
      error(parsing: array)?.description
        == "line 1, column 10: expected a value after ',', found ']' (a trailing comma?)")
  }

  @Test("nesting far beyond the limit fails cleanly instead of exhausting the stack")
  func deepNesting() throws {
    // Given 100,000 open arrays and 50,000 open objects
    let arrays = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    let objects = String(repeating: #"{"a":"#, count: 50_000)

    // When StrictJSON parses them
    let arrayError = try #require(error(parsing: arrays))
    let objectError = try #require(error(parsing: objects))

    // Then each fails at the first bracket past the limit, naming the limit
    #expect(arrayError.column == StrictJSON.maximumDepth + 1)
    #expect(arrayError.message.contains("512"))
    #expect(objectError.offset == StrictJSON.maximumDepth * 5)
    #expect(objectError.path.hasPrefix("$.a.a.a"))
    #expect(!objectError.description.contains("\n"))
    #expect(objectError.description.count < 300)
  }

  @Test("nesting exactly at the limit parses and compares")
  func nestingAtLimit() throws {
    // Given arrays nested exactly maximumDepth deep
    let depth = StrictJSON.maximumDepth
    let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)

    // When StrictJSON parses it twice
    let first = try StrictJSON.parse(text)
    let second = try StrictJSON.parse(Array(text.utf8))

    // Then both succeed and are equal
    #expect(first == second)
  }

  @Test("every error description is a single line, even for names holding line breaks")
  func singleLineDescriptions() throws {
    // Given documents whose errors mention names with a line feed and a line separator
    let documents = [
      "{\"a\\nb\": [1,]}", "{\"a\u{2028}b\": tru}", "{\"x\\ny\" 1}", "[\"\\ud800\\n\"]",
    ]

    // When StrictJSON parses them
    let errors = documents.compactMap { error(parsing: $0) }

    // Then every description is one line, and the first shows the escaped path
    #expect(errors.count == documents.count)
    for error in errors { #expect(!error.description.contains { $0.isNewline }, "\(error)") }
    #expect(errors.first?.path == #"$["a\nb"]"#)
    #expect(errors.first?.description.contains(#"(at $["a\nb"])"#) == true)
  }

  @Test("the path appears in the description only below the top level")
  func pathInDescription() throws {
    // Given an error at the top level and one inside $[1].rows[0]
    let top = try #require(error(parsing: "[1, tru]"))
    let nested = try #require(error(parsing: #"[{}, {"rows": [{"x": 01}]}]"#))

    // Then the top-level one has the root path and no "(at", the nested one names its container
    #expect(top.path == "$")
    #expect(!top.description.contains("(at"))
    #expect(nested.path == "$[1].rows[0]")
    #expect(nested.description.hasPrefix("line 1, column 22 (at $[1].rows[0]): leading zeros"))
  }

  @Test("values keep member order, duplicates, number text and decoded escapes")
  func valueShape() throws {
    // Given a document with duplicates, exotic numbers, escapes and a surrogate pair
    let text =
      #"{"b": [1e400, -0.50, 12345678901234567890123], "a": "\u00e9\n\ud83d\ude00", "b": null}"#

    // When StrictJSON parses it
    let value = try StrictJSON.parse(text)

    // Then the structure is exactly the input's
    #expect(
      value
        == .object([
          JSONMember(
            key: "b",
            value: .array([
              .number("1e400"), .number("-0.50"), .number("12345678901234567890123"),
            ])),
          JSONMember(key: "a", value: .string("é\n😀")),
          JSONMember(key: "b", value: .null),
        ]))
  }

  @Test("foundationObject gives JSONSerialization's kinds: Int when exact, else Double")
  func foundationObjectKinds() throws {
    // Given numbers, literals, and an object with a duplicate name
    let value = try StrictJSON.parse(
      #"{"i": 42, "f": 1.5, "e": 1e2, "big": 99999999999999999999, "t": true, "n": null, "i": 7}"#)

    // When it becomes a Foundation object
    let object = try #require(value.foundationObject() as? [String: Any])

    // Then integers that fit are Int, the rest Double, and the last duplicate wins
    #expect(object["i"] as? Int == 7)
    #expect(object["f"] as? Double == 1.5)
    #expect(object["e"] as? Double == 100)
    #expect(object["big"] as? Double == 1e20)
    #expect(object["t"] as? Bool == true)
    #expect(object["n"] is NSNull)
  }

  @Test("every entry point agrees: String, [UInt8], Data, and a collection without storage")
  func entryPoints() throws {
    // Given one valid and one invalid document
    let good = #"{"k": ["v", 1, true]}"#
    let bad = "[1,\n 2,\n]"

    // When each entry point reads them
    let values = [
      try StrictJSON.parse(good), try StrictJSON.parse(Array(good.utf8)),
      try StrictJSON.parse(Data(good.utf8)), try StrictJSON.parse(good.utf8.lazy.map { $0 }),
    ]
    let errors: [JSONSyntaxError?] = [
      error(parsing: bad),
      #expect(throws: JSONSyntaxError.self) { try StrictJSON.validate(Data(bad.utf8)) },
      #expect(throws: JSONSyntaxError.self) { try StrictJSON.parse(bad.utf8.lazy.map { $0 }) },
    ]

    // Then they agree
    #expect(Set(values.map { "\($0)" }).count == 1)
    #expect(errors.allSatisfy { $0 == errors[0] && $0 != nil })
    #expect(errors[0]?.line == 3)
    #expect(errors[0]?.column == 1)
    #expect(throws: Never.self) { try StrictJSON.validate(Data(good.utf8)) }
  }
}
