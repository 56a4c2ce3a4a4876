import Domain
import Foundation
import TestSupport
import Testing

@testable import Commands

@Suite("the lazy registry")
struct LazyRegistryTests {
  @Test("each lazily declared group builds the group of that name, and resolves as the eager one")
  func namesMatch() throws {
    for lazy in AllGroups.lazyGroups {
      #expect(lazy.make().name == lazy.name)
    }
    // Each group is listed once.
    #expect(Set(AllGroups.lazyGroups.map(\.name)).count == AllGroups.lazyGroups.count)
    #expect(
      AllGroups.lazyGroups.prefix(5).map(\.name) == ["", "trace", "factory", "db", "store"])
    let eager = CommandRegistry(groups: AllGroups.groups)
    #expect(AllGroups.registry.topLevelNames == eager.topLevelNames)
    #expect(AllGroups.registry.groups.map(\.name) == eager.groups.map(\.name))
    let line = try Lexer.lex("ds section add shop --at 0")[0].words.map { Word($0.text) }
    #expect(try AllGroups.registry.resolve(line).name == "ds section add")
  }

  @Test("every group file's group is in AllGroups' list, once, and the list names no other")
  func everyGroupFileIsListed() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Sources/Commands/Groups").standardized.path
    var declared: [String] = []
    for file in try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    where file.hasSuffix(".swift") {
      let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
      // `enum StoreGroup {` followed, before the next type, by `static let group = CommandGroup(`.
      let pattern =
        #"enum (\w+) \{\n(?:(?!\n(?:enum|struct|final class|extension) )[\s\S])*?static let group = CommandGroup\("#
      let regex = try NSRegularExpression(pattern: pattern)
      for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
        if let range = Range(match.range(at: 1), in: text) { declared.append(String(text[range])) }
      }
    }
    let list = try String(contentsOfFile: folder + "/AllGroups.swift", encoding: .utf8)
    let listed = try NSRegularExpression(pattern: #"\{ (\w+)\.group \}"#)
      .matches(in: list, range: NSRange(list.startIndex..., in: list))
      .compactMap { Range($0.range(at: 1), in: list).map { String(list[$0]) } }
    #expect(declared.count > 20, "\(declared)")
    #expect(listed.sorted() == declared.sorted(), "a group file's group is missing from AllGroups")
    #expect(listed.count == AllGroups.lazyGroups.count)
  }

  @Test("a lookup that repeats the last command's words finds it again; any other word does not")
  func repeatedLookups() throws {
    let registry = CommandRegistry(groups: AllGroups.groups)
    func name(_ line: String) -> String {
      let words = line.split(separator: " ").map { Word(String($0)) }
      switch registry.lookup(words) {
      case .found(let resolution): return "\(resolution.name) @\(resolution.argumentStart)"
      case .incomplete(let error, _): return "incomplete: \(error.message)"
      case .unknown(let error): return "unknown: \(error.message)"
      }
    }
    let lines = [
      "store retrieve generalCache a", "store retrieve generalCache b", "store persist c k v",
      "store", "store retrieve", "store retreive x", "ds section add shop",
      "ds section remove shop",
      "ds section", "echo hi", "echo", "store retrieve generalCache a",
    ]
    let answers = lines.map(name)
    #expect(
      answers == [
        "store retrieve @2", "store retrieve @2", "store persist @2",
        "incomplete: 'store' needs a verb: \(registry.group(named: "store")?.verbs.joined(separator: ", ") ?? "")",
        "store retrieve @2", "unknown: unknown verb 'retreive' for 'store'", "ds section add @3",
        "ds section remove @3",
        "incomplete: 'ds section' needs a verb: \(registry.group(named: "ds")?.subverbs(of: "section").joined(separator: ", ") ?? "")",
        "echo @1", "echo @1", "store retrieve @2",
      ])
    // Each answer is the one a registry that remembers nothing gives.
    for (line, answer) in zip(lines, answers) {
      let fresh = CommandRegistry(groups: AllGroups.groups)
      let words = line.split(separator: " ").map { Word(String($0)) }
      if case .found(let resolution) = fresh.lookup(words) {
        #expect(answer == "\(resolution.name) @\(resolution.argumentStart)", "\(line)")
      } else {
        #expect(!answer.hasSuffix("@1") && !answer.hasSuffix("@2") && !answer.hasSuffix("@3"))
      }
    }
  }
}
