import Domain
import Foundation

/// `issue`: MagazineIssueUpdater, fetching issues and their assets.
enum IssueGroup {
  static let group = CommandGroup(
    "issue", summary: "fetch magazine issues and their assets (MagazineIssueUpdater)",
    from: [.lickability],
    discussion: """
      MagazineIssueUpdater (seed 000): updateIssue(from:) and \
      loadAsset(from:inIssueWithIdentifier:). The seed only hands results to its completion; \
      archsh also persists them, the issue in the store 'issues' and each asset in \
      'issueAssets', under their URLs. The demo magazine has issues 1 to 12, each with \
      cover.rgb, article.html and styles.css.
      """,
    commands: [update, asset])

  /// The issue number `update` and `asset` work on.
  static let issueID = Argument("ID", .integer(1...Int(Int32.max)), "the issue number")

  /// `asset`'s file name.
  static let assetName = Argument(
    "NAME", .text, "the asset's file name",
    completion: { context in
      ["cover.rgb", "article.html", "styles.css"].filter { $0.hasPrefix(context.prefix) }
    })

  static let update = Command(
    "update", summary: "fetch an issue and persist it in the store 'issues'",
    signature: Signature([issueID]),
    examples: ["issue update 3"],
    result: .sequence([
      .record(["id", "title", "published_at", "cached_as"]),
      .rows(["asset", "content_type", "bytes"]),
    ])
  ) { invocation in
    let id = try invocation[issueID]
    let url = try invocation.session.factory.api.url(forPath: "/issues/\(id)")
    switch try invocation.session.factory.api.magazineIssueUpdater().updateIssue(from: url) {
    case .success(let issue):
      return .sequence([
        .record([
          Field("id", .int(issue.id)), Field("title", .string(issue.title)),
          Field("published_at", .string(issue.publishedAt)),
          Field("cached_as", .string(url.absoluteString)),
        ]),
        .table(
          Table(
            columns: ["asset", "content_type", "bytes"],
            rows: issue.assets.map { [.string($0.name), .string($0.contentType), .int($0.bytes)] })),
      ])
    case .failure(let error):
      throw ShellError(
        "cannot update issue \(id): \(error)", at: invocation.word(for: issueID)?.offset)
    }
  }

  static let asset = Command(
    "asset", summary: "load an issue's asset and persist its bytes in 'issueAssets'",
    signature: Signature([issueID, assetName]),
    examples: ["issue asset 3 cover.rgb", "issue asset 3 article.html"],
    result: .record(["issue", "name", "content_type", "bytes", "cached_as", "preview"])
  ) { invocation in
    let id = try invocation[issueID]
    let name = try invocation[assetName]
    let encoded =
      name.text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name.text
    let url = try invocation.session.factory.api.url(
      forPath: "/issues/\(id)/assets/\(encoded)")
    let result = try invocation.session.factory.api.magazineIssueUpdater().loadAsset(
      from: url, inIssueWithIdentifier: Int64(id))
    switch result {
    case .success(let saved):
      return .record([
        Field("issue", .int(Int(saved.issueIdentifier))), Field("name", .string(name.text)),
        Field("content_type", saved.contentType.map(Value.string) ?? .null),
        Field("bytes", .int(saved.data.count)), Field("cached_as", .string(saved.key)),
        Field("preview", .excerpt(shown: preview(saved), whole: ValueInput.whole(saved.data))),
      ])
    case .failure(let error):
      throw ShellError("cannot load \(name.text) of issue \(id): \(error)", at: name.offset)
    }
  }

  /// The first line of a text asset, or the first sixteen bytes of a binary one in hex.
  static func preview(_ saved: SavedAssetResponse) -> String {
    let isText = saved.contentType.map { $0.hasPrefix("text/") || $0.contains("json") } ?? false
    if isText {
      let line =
        String(decoding: saved.data.prefix(200), as: UTF8.self)
        .split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? ""
      return line.count > 60 ? String(line.prefix(59)) + "…" : line
    }
    let hex = saved.data.prefix(16).map { byte in
      (byte < 16 ? "0" : "") + String(byte, radix: 16)
    }
    return hex.joined(separator: " ") + (saved.data.count > 16 ? " …" : "")
  }
}
