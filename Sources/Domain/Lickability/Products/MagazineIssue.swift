import Foundation

/// An issue of the magazine, for MagazineIssueUpdater (seed 000).
public struct MagazineIssue: Codable, Sendable, Equatable {
  /// The object type, `issue`.
  public var type: String
  /// The issue number.
  public var id: Int
  /// Its title.
  public var title: String
  /// The publication date, `YYYY-MM-DD`.
  public var publishedAt: String
  /// The files it comes with.
  public var assets: [Asset]

  /// One file of an issue, fetched with `loadAsset`.
  public struct Asset: Codable, Sendable, Equatable {
    /// The file name, which is also its id.
    public var name: String
    /// The media type.
    public var contentType: String
    /// Its length.
    public var bytes: Int
    /// Its path on the API.
    public var path: String

    enum CodingKeys: String, CodingKey {
      case name
      case contentType = "content_type"
      case bytes, path
    }
  }

  enum CodingKeys: String, CodingKey {
    case type, id, title
    case publishedAt = "published_at"
    case assets
  }
}

/// What `loadAsset` saved: where it came from, its store key, its type and its bytes.
public struct SavedAssetResponse: Sendable, Equatable {
  /// The issue the asset belongs to.
  public var issueIdentifier: Int64
  /// The key it is persisted under in `issueAssets`: the asset's URL.
  public var key: String
  /// The media type the server gave.
  public var contentType: String?
  /// The asset's contents.
  public var data: Data
}
