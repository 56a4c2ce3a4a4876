import Domain
import Foundation
import TestSupport
import Testing

@testable import Commands

@Suite("Typed parameters")
struct TypedParameterTests {
  @Test("every example in the help parses against its command's signature")
  func examplesParse() throws {
    let registry = AllGroups.registry
    var count = 0
    for group in registry.groups {
      for command in group.commands {
        for example in command.examples {
          for raw in try Lexer.lex(example) {
            let words = raw.words.map { Word($0.text, offset: $0.offset, isQuoted: $0.isQuoted) }
            #expect(throws: Never.self, "\(example)") {
              try ParsedCommand.parse(words, registry: registry)
            }
            count += 1
          }
        }
      }
    }
    #expect(count > 100)
  }

  @Test("every help example runs reading only the parameters its command declares")
  func examplesReadDeclaredParameters() async throws {
    // Examples that would block, wait or leave the test: they are parsed above, not run here.
    let skipped: Set<String> = ["serve", "board", "exit", "quit", "sleep", "record", "wait"]
    let (ran, reads) = try await offPool {
      let directory = NSTemporaryDirectory() + "archsh-examples-" + UUID().uuidString
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let harness = Harness()
      var ran = 0
      let reads = UndeclaredReads.collect {
        for group in AllGroups.registry.groups {
          for command in group.commands
          where !skipped.contains(group.name) && !skipped.contains(command.name) {
            for example in command.examples {
              harness.script([example], directory: directory)
              ran += 1
            }
          }
        }
      }
      return (ran, reads)
    }
    #expect(ran > 150)
    #expect(reads == [])
  }

  @Test("a read of a parameter the signature does not declare is recorded, and reads as absent")
  func undeclaredReadIsRecorded() throws {
    let declared = Option("shown", .text, "declared")
    let stray = Option("stray", .text, "not declared")
    let signature = Signature([declared])
    let parsed = try signature.parse(ArraySlice([Word("--shown"), Word("x")]), command: "demo")
    let reads = UndeclaredReads.collect {
      #expect(parsed[declared]?.text == "x")
      #expect(parsed[stray] == nil)
    }
    #expect(reads == ["stray (declared: shown)"])
  }

  @Test("a choice reads as its enum's case, and refuses any other word")
  func typedChoice() throws {
    let order = Option("order", Kind<OrderWord>.choice, "the order")
    let signature = Signature([order])
    let parsed = try signature.parse(ArraySlice([Word("--order"), Word("desc")]), command: "demo")
    #expect(parsed[order] == .desc)
    #expect(throws: ShellError.self) {
      try signature.parse(ArraySlice([Word("--order"), Word("down")]), command: "demo")
    }
  }

  @Test("every declared default converts to its parameter's type")
  func defaultsConvert() {
    for group in AllGroups.registry.groups {
      for command in group.commands {
        let signature = command.signature
        for (slot, parameter) in signature.parameters.enumerated()
        where parameter.defaultValue != nil {
          #expect(signature.defaults[slot] != nil, "\(command.name) \(parameter.name)")
        }
      }
    }
  }

  @Test("values are converted once, while parsing, to the declared type")
  func converted() throws {
    let count = Argument("N", .integer(1...9), "a count")
    let age = Option("age", .duration, "an age")
    let size = Option("size", .bytes, "a size")
    let keys = Many.arguments("KEY", .text, "keys", optional: true)
    let json = Flag("json", "as JSON")
    let signature = Signature([count, keys, age, size, json])
    let words = ["3", "a", "--age", "2m", "b", "--size=2KB", "--json"].enumerated().map {
      Word($0.element, offset: $0.offset)
    }
    let arguments = try signature.parse(words[...], command: "demo")
    #expect(try arguments[count] == 3)
    #expect(arguments[age] == 120)
    #expect(arguments[size] == 2048)
    #expect(arguments[keys].map(\.text) == ["a", "b"])
    #expect(arguments[json])
    #expect(arguments.word(for: age)?.text == "2m")
    let undeclared = Argument("OTHER", .text, "not in the signature")
    #expect(throws: ShellError.self) { try arguments[undeclared] }
    #expect(throws: ShellError.self) {
      try signature.parse([Word("0")][...], command: "demo")
    }
  }
}
