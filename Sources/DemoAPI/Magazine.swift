import Foundation

/// A magazine issue as the demo API serves it, for MagazineIssueUpdater (seed 000).
public struct MagazineIssueRecord: Sendable, Equatable {
  /// The issue number.
  public let id: Int
  /// Its title.
  public let title: String
  /// The publication date, `YYYY-MM-DD`.
  public let published: String
  /// Its assets, by name.
  public let assets: [Asset]

  /// One downloadable file of an issue.
  public struct Asset: Sendable, Equatable {
    /// The file name, such as `cover.rgb`.
    public let name: String
    /// The media type.
    public let contentType: String
    /// The bytes.
    public let data: Data
  }

  /// The asset called `name`, or nil.
  public func asset(named name: String) -> Asset? { assets.first { $0.name == name } }
}

/// The twelve issues of the demo magazine: one a month in 2026, each on one part of the
/// architecture.
public enum Magazine {
  /// The topics, in issue order.
  static let topics = [
    "Controllers", "Parsers", "Network controllers", "Persistence controllers", "Translators",
    "View controllers", "Updaters", "Data sources", "Coordinators", "Presenters", "Providers",
    "Factories",
  ]

  /// The issue numbered `id`, or nil.
  public static func issue(id: Int) -> MagazineIssueRecord? {
    guard id >= 1, id <= topics.count else { return nil }
    let topic = topics[id - 1]
    let month = id < 10 ? "0\(id)" : "\(id)"
    let article = """
      <!doctype html>
      <html><head><link rel="stylesheet" href="styles.css"><title>\(topic)</title></head>
      <body><h1>\(topic)</h1><p>Issue \(id) of the archsh magazine looks at \(topic.lowercased()) \
      in the classic iOS architecture.</p></body></html>

      """
    let styles =
      "body { font: 17px -apple-system, sans-serif; margin: 2em; }\nh1 { color: #\(String(0x1A5FB4 + id * 0x0F0F, radix: 16)); }\n"
    return MagazineIssueRecord(
      id: id, title: "\(topic)", published: "2026-\(month)-15",
      assets: [
        .init(name: "cover.rgb", contentType: "application/octet-stream", data: cover(id)),
        .init(
          name: "article.html", contentType: "text/html; charset=utf-8", data: Data(article.utf8)),
        .init(name: "styles.css", contentType: "text/css; charset=utf-8", data: Data(styles.utf8)),
      ])
  }

  /// A 64×64 RGB gradient, different for each issue: raw pixels, three bytes each.
  static func cover(_ id: Int) -> Data {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(64 * 64 * 3)
    for y in 0..<64 {
      for x in 0..<64 {
        bytes.append(UInt8((x * 4 + id * 20) & 0xFF))
        bytes.append(UInt8((y * 4) & 0xFF))
        bytes.append(UInt8((id * 37) & 0xFF))
      }
    }
    return Data(bytes)
  }
}
