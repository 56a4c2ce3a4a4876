import DemoAPI
import Domain
import Foundation

/// How command output is printed.
public enum OutputMode: String, Sendable {
  /// Aligned text for people.
  case table
  /// One JSON document per command, for programs.
  case json
}

/// A variable set with `set`.
public struct Variable: Equatable, Sendable {
  /// Its value.
  public var value: String
  /// Whether it was set with `--secret`: `vars` masks it and its line stays out of history.
  public var isSecret: Bool

  /// Creates a variable.
  public init(_ value: String, isSecret: Bool = false) {
    self.value = value
    self.isSecret = isSecret
  }
}

/// What the process was started with, as far as commands care.
public struct SessionOptions: Sendable {
  /// The workspace database path given with `--db`, if any.
  public var databasePath: String?
  /// Another server for the networking controllers (`--api URL` or `$ARCHSH_API`); nil starts
  /// the embedded demo API when first needed.
  public var apiURL: String?

  /// Creates options.
  public init(databasePath: String? = nil, apiURL: String? = nil) {
    self.databasePath = databasePath
    self.apiURL = apiURL
  }
}

/// Everything a command can reach: the application factory, variables and settings.
///
/// The session owns the Domain's composition root, an `ApplicationFactory`, which builds the
/// controllers lazily.
public final class Session {
  /// The composition root.
  public let factory: ApplicationFactory
  /// The options the process was started with.
  public let options: SessionOptions
  /// Variables set with `set`.
  public var variables: [String: Variable] = [:]
  /// How output is printed.
  public var outputMode: OutputMode = .table
  /// Lines entered at the prompt, oldest first, as `history` lists them.
  ///
  /// Secret lines are absent.
  public var history: [String] = []
  /// The status of the last command: 0 for success, 1 for failure.
  public var lastStatus = 0
  /// Whether Ctrl-C was pressed; long-running Domain work (a request) polls it to cancel.
  public var interruptCheck: @Sendable () -> Bool = { false }
  /// The request timeout for NetworkController, in seconds (`net timeout`).
  public var networkTimeout: Double = 5 {
    didSet { controller?.timeout = networkTimeout }
  }
  /// Product ids from the last `product list`, offered by completion.
  public var listedProductIDs: [Int] = []
  /// Data sources loaded from the workspace, by name, with the delegates that record their
  /// notifications.
  var openDataSources: [String: OpenDataSource] = [:]
  /// The app's root coordinator while it runs in this session: started, or restored from the
  /// workspace on first use.
  var app: AppConfigurator?
  /// What the app's coordinators depend on, made once per session.
  var appDependencies: AppDependencies?

  /// Creates a session; its factory opens the workspace at `options.databasePath` (in memory when
  /// nil) on first use.
  public init(options: SessionOptions = SessionOptions()) {
    self.factory = ApplicationFactory(databasePath: options.databasePath ?? ":memory:")
    self.options = options
  }

  /// The tracer that controllers report to.
  public var tracer: Tracer { factory.tracer }

  private var embeddedAPI: DemoAPI?
  private var controller: NetworkController?

  /// Stops the embedded demo API this session started, so that a session that ends (in the tests
  /// and the fuzzer, many per process) leaves no server listening behind it.
  deinit {
    embeddedAPI?.stop()
  }

  /// The API in use: `--api`, or the embedded demo API, started on first use.
  public func api() throws(ShellError) -> (url: URL, isEmbedded: Bool) {
    if let text = options.apiURL {
      guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https",
        url.host != nil
      else {
        throw ShellError(
          "'\(text)' is not an http URL", hint: "for example --api http://127.0.0.1:8080")
      }
      return (url, false)
    }
    if let embeddedAPI { return (embeddedAPI.baseURL, true) }
    do {
      let server = try tracer.withSpan("DemoAPI", "start") { span in
        let server = try DemoAPI.start()
        span.setAttribute("url", server.baseURL.absoluteString)
        return server
      }
      embeddedAPI = server
      return (server.baseURL, true)
    } catch {
      throw ShellError(String(describing: error))
    }
  }

  /// A path on the API in use (starting the embedded API if needed), or a whole URL as it is.
  public func apiURL(forPath path: String) throws(ShellError) -> URL {
    guard let url = NetworkController.url(path, relativeTo: try api().url) else {
      throw ShellError("'\(path)' does not make a URL")
    }
    return url
  }

  /// The base URL in use, without starting anything: nil before the embedded API has started.
  public var knownAPIURL: URL? {
    if let text = options.apiURL { return URL(string: text) }
    return embeddedAPI?.baseURL
  }

  /// The NetworkController for the API in use.
  public func networkController() throws(ShellError) -> NetworkController {
    if let controller { return controller }
    let made = NetworkController(
      baseURL: try api().url, timeout: networkTimeout, tracer: tracer, isCancelled: interruptCheck)
    controller = made
    return made
  }

  /// The faults the embedded demo API injects, starting it if needed; an error against `--api`.
  public func faultTable() throws(ShellError) -> FaultTable {
    if let text = options.apiURL {
      throw ShellError(
        "fault injection needs the embedded demo API, and archsh is using \(text)",
        hint: "start archsh without --api and ARCHSH_API")
    }
    _ = try api()
    guard let embeddedAPI else { throw ShellError("the embedded demo API is not running") }
    return embeddedAPI.faults
  }

  /// A PersistenceController for a store, with workspace errors as shell errors.
  public func persistenceController(_ identifier: PersistenceController.Identifier) throws
    -> PersistenceController
  {
    do {
      return try factory.persistenceController(identifier: identifier.rawValue)
    } catch {
      throw ShellError(String(describing: error))
    }
  }

  /// A ProductUpdater over the API in use and the `productCache` store.
  public func productUpdater() throws -> ProductUpdater {
    ProductUpdater(
      networkController: try networkController(),
      productPersistenceController: try persistenceController(.productCache), tracer: tracer)
  }

  /// A MagazineIssueUpdater over the API in use and the `issues` and `issueAssets` stores.
  public func magazineIssueUpdater() throws -> MagazineIssueUpdater {
    MagazineIssueUpdater(
      networkController: try networkController(),
      issuePersistenceController: try persistenceController(.issues),
      assetPersistenceController: try persistenceController(.issueAssets), tracer: tracer)
  }

  /// The last requests, or none before the first.
  public func networkLog() -> [NetworkLogEntry] { controller?.log ?? [] }

  /// Opens the transaction that makes the whole run atomic (`--atomic`).
  public func beginAtomic() throws {
    try factory.workspace().beginAtomic()
  }

  /// Commits or rolls back the atomic transaction.
  public func endAtomic(commit: Bool) throws {
    try factory.workspace().endAtomic(commit: commit)
  }
}
