import Foundation

/// What the composition root is built with: where the workspace lives and which API to talk to.
public struct ApplicationConfiguration: Sendable {
  /// The workspace: a file path, or `:memory:`.
  public var databasePath: String
  /// Another server for the networking controllers (`--api URL`); nil starts the embedded API.
  public var apiURL: String?
  /// Starts the embedded demo API when a controller first needs the network and `apiURL` is nil.
  public var startEmbeddedAPI: (@Sendable () throws -> EmbeddedAPIServer)?

  /// Creates a configuration.
  public init(
    databasePath: String = ":memory:", apiURL: String? = nil,
    startEmbeddedAPI: (@Sendable () throws -> EmbeddedAPIServer)? = nil
  ) {
    self.databasePath = databasePath
    self.apiURL = apiURL
    self.startEmbeddedAPI = startEmbeddedAPI
  }
}
