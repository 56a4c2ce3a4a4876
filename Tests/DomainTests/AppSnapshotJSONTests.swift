import Foundation
import Testing

@testable import Domain

@Suite("the saved app state's JSON")
struct AppSnapshotJSONTests {
  @Test("jsonText is exactly what JSONFactory's encoder writes, escapes included")
  func sameAsTheEncoder() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let snapshots = [
      AppSnapshot(flow: "login", selectedTab: nil, alert: nil, stacks: ["login": ["Login"]]),
      AppSnapshot(
        flow: "main", selectedTab: .discover, alert: "Alert(network)",
        stacks: [
          "tabbar": ["TabBar"], "discover": ["Discover", "MediaItem(5)"], "profile": [],
          "odd": [
            "a \"quoted\" \\ back/slash", "tab\there\nnew\u{01}line é 🎬",
            "back\u{08}space form\u{0C}feed",
          ],
        ]),
    ]
    for snapshot in snapshots {
      let expected = String(decoding: try encoder.encode(snapshot), as: UTF8.self)
      #expect(snapshot.jsonText == expected)
    }
  }
}
