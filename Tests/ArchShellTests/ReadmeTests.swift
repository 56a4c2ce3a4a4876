import Foundation
import Testing

/// The README against the binary's own help, as docs/commands.md is checked.
@Suite("README through the binary")
struct ReadmeTests {
  static let begin = "<!-- groups: generated from 'archsh help' by 'make docs' -->\n"
  static let end = "<!-- end of groups -->"

  /// The `name  summary` lines under `heading:` in `archsh help`.
  static func entries(under heading: String, in help: String) -> [(name: String, summary: String)] {
    let lines = help.components(separatedBy: "\n")
    guard let start = lines.firstIndex(of: heading + ":") else { return [] }
    return lines[(start + 1)...].prefix { $0.hasPrefix("  ") }.map { line in
      let text = line.drop { $0 == " " }
      let name = text.prefix { $0 != " " }
      return (String(name), String(text.dropFirst(name.count).drop { $0 == " " }))
    }
  }

  @Test("the README lists every group that 'archsh help' lists, with its summary, and each builtin")
  func everyGroupListed() throws {
    let help = try Binary.run(["--no-rc", "help"]).stdout
    let groups = Self.entries(under: "groups", in: help)
    #expect(groups.count >= 21)
    let readme = try String(contentsOfFile: Binary.root + "/README.md", encoding: .utf8)
    guard let from = readme.range(of: Self.begin),
      let to = readme.range(of: Self.end, range: from.upperBound..<readme.endIndex)
    else {
      Issue.record("README.md has no list of groups between '\(Self.begin)' and '\(Self.end)'")
      return
    }
    let rows = groups.map { "| `\($0.name)` | \($0.summary) |" }
    let expected = (["| group | what it drives |", "|---|---|"] + rows).joined(separator: "\n")
    #expect(
      String(readme[from.upperBound..<to.lowerBound]) == expected + "\n",
      "run 'make docs' to regenerate the README's list of groups")
    for builtin in Self.entries(under: "builtins", in: help) {
      #expect(readme.contains("`\(builtin.name)"), "README.md does not name '\(builtin.name)'")
    }
  }
}
