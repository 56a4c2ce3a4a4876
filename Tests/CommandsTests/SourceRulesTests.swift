import Foundation
import Testing

/// Rules of the house that the compiler does not check, read from the sources themselves.
@Suite("the sources keep the house rules")
struct SourceRulesTests {
  @Test("every @unchecked Sendable says why on the next line (// @unchecked: …)")
  func uncheckedSendableHasReason() throws {
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Sources").standardized.path
    var unexplained: [String] = []
    var seen = 0
    let files = try #require(FileManager.default.enumerator(atPath: sources))
    for case let file as String in files where file.hasSuffix(".swift") {
      let lines = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
        .split(separator: "\n", omittingEmptySubsequences: false)
      for (index, line) in lines.enumerated() where line.contains("@unchecked Sendable") {
        guard !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") else { continue }
        seen += 1
        let next = index + 1 < lines.count ? lines[index + 1] : ""
        if !next.trimmingCharacters(in: .whitespaces).hasPrefix("// @unchecked: ") {
          unexplained.append("\(file):\(index + 1)")
        }
      }
    }
    #expect(seen > 10, "no @unchecked Sendable was found: the path is wrong")
    #expect(unexplained == [], "without a reason: \(unexplained)")
  }
}
