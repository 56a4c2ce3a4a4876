import Foundation
import GRDB
import TestSupport
import Testing

@testable import Domain
@testable import Runtime

@Suite("the workspace's migrations, listed in version order")
struct MigrationListTests {
  @Test(
    "every migration declared in Domain or Runtime is listed, numbered from 1 without a gap, the newest last"
  )
  func numbered() throws {
    let identifiers = WorkspaceSchema.archsh.migrations.map(\.identifier)
    let number = { (identifier: String) in
      Int(identifier.dropFirst().prefix { $0.isNumber }) ?? 0
    }
    #expect(identifiers.map(number) == Array(1...identifiers.count))
    #expect(Set(identifiers).count == identifiers.count)
    #expect(identifiers.first == "v1-stores-and-entries")
    #expect(WorkspaceSchema.archsh.version == identifiers.last)
    // A migration declared next to its feature but missing from the list fails here.
    var declared: Set<String> = []
    for target in ["Domain", "Runtime"] {
      let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/\(target)").standardized
      let files = try #require(FileManager.default.enumerator(atPath: folder.path))
      for case let file as String in files where file.hasSuffix(".swift") {
        let text = try String(contentsOfFile: folder.path + "/" + file, encoding: .utf8)
        for match in text.matches(of: /Migration\(\s*identifier: "(v[0-9]+-[a-z0-9-]+)"/) {
          declared.insert(String(match.1))
        }
      }
    }
    #expect(declared.count > 10)
    #expect(
      declared == Set(identifiers), "declared but not listed: \(declared.subtracting(identifiers))")
  }
}
