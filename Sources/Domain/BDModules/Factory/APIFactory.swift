import Foundation
import Plumbing
import Synchronization

/// The networking half, after BDModules' APIFactory: the API in use, NetworkController, and the
/// updaters that fetch through it.
public final class APIFactory: Factory {
  /// The root that created it.
  public unowned let root: ApplicationFactory

  init(root: ApplicationFactory) { self.root = root }

  private let storedTimeout = Mutex<Double>(5)
  private let storedCancellation = Mutex<@Sendable () -> Bool>({ false })
  /// `--api` once it has been checked: it does not change while the process runs.
  private let checkedAPIURL = Mutex<URL?>(nil)
  private let redirected = RedirectedBaseURL()

  static let embeddedAPIComponent = ComponentDeclaration<EmbeddedAPIServer>(
    "embeddedAPI", of: APIFactory.self, .singleton, from: .archsh,
    "the demo API on 127.0.0.1, started the first time the network is needed without --api"
  ) { try $0.api.embeddedAPI }

  static let networkControllerComponent = ComponentDeclaration<NetworkController>(
    "networkController", of: APIFactory.self, .singleton, from: .lickability,
    "sends requests and deserializes responses over HTTP/1.1 (Lickability)"
  ) { try $0.api.networkController }

  static let productUpdaterComponent = ComponentDeclaration<ProductUpdater>(
    "productUpdater", of: APIFactory.self, .prototype, from: .lickability,
    "fetches a product and persists it in productCache"
  ) { try $0.api.productUpdater() }

  static let magazineIssueUpdaterComponent = ComponentDeclaration<MagazineIssueUpdater>(
    "magazineIssueUpdater", of: APIFactory.self, .prototype, from: .lickability,
    "fetches magazine issues and their assets, persisting them"
  ) { try $0.api.magazineIssueUpdater() }

  static let productCatalogComponent = ComponentDeclaration<ProductCatalog>(
    "productCatalog", of: APIFactory.self, .prototype, from: .archsh,
    "names products by id, path or URL; finds cached copies, fetches missing ones"
  ) { try $0.api.productCatalog() }

  static let oAuth2SessionManagerComponent = ComponentDeclaration<OAuth2SessionManager>(
    "oAuth2SessionManager", of: APIFactory.self, .prototype, from: .bdModules,
    "grants and refreshes OAuth2 tokens at /oauth/token; tells its delegate (BDModules)"
  ) { try $0.api.oAuth2SessionManager() }

  static let accountUserProviderComponent = ComponentDeclaration<AccountUserProvider>(
    "accountUserProvider", of: APIFactory.self, .singleton, from: .bdModules,
    "the logged-in account, its credential and its User, in the 'user' store (a keychain on iOS)"
  ) { try $0.api.accountUserProvider }

  static let userAPIComponent = ComponentDeclaration<UserAPI>(
    "userAPI", of: APIFactory.self, .prototype, from: .bdModules,
    "the user routes: login (a token grant, then me()) and me() (BDModules)"
  ) { try $0.api.userAPI() }

  static let apiServiceClientComponent = ComponentDeclaration<APIServiceClient>(
    "apiServiceClient", of: APIFactory.self, .prototype, from: .bdModules,
    "a request through OAuth2Authorization, mapped by ModelFactory (BDModules)",
    input: "an API type"
  ) { try $0.api.apiServiceClient(type: "User") }

  static let logBookComponent = ComponentDeclaration<LogBook>(
    "logBook", of: APIFactory.self, .singleton, from: .archsh,
    "the Loggers' lines and each tag's switch and threshold, kept in the workspace"
  ) { try $0.api.logBook }

  static let loggerComponent = ComponentDeclaration<Logger>(
    "logger", of: APIFactory.self, .singleton, from: .bdModules,
    "the API's Logger (tag API), on swift-log with archsh's handler (BDModules)"
  ) { try $0.api.logger }

  static let apiSessionManagerComponent = ComponentDeclaration<APISessionManager>(
    "apiSessionManager", of: APIFactory.self, .prototype, from: .bdModules,
    "performRequest relative to dynamicBaseURL, which a redirect swaps (BDModules)"
  ) { try $0.api.apiSessionManager() }

  static let oAuth2AuthorizationComponent = ComponentDeclaration<OAuth2Authorization>(
    "oAuth2Authorization", of: APIFactory.self, .singleton, from: .bdModules,
    "queues 401s, refreshes once, replays each request once (BDModules)"
  ) { try $0.api.oAuth2Authorization }

  static let repositoryStoreComponent = ComponentDeclaration<RepositoryStore>(
    "repositoryStore", of: APIFactory.self, .singleton, from: .archsh,
    "repositories and their elements in the workspace, de-duplicated by identity"
  ) { try $0.api.repositoryStore }

  static let repositoryComponent = ComponentDeclaration<Repository>(
    "repository", of: APIFactory.self, .prototype, from: .bdModules,
    "pages through a collection, Standard or Realtime (BDModules)", input: "a repository name"
  ) { root in
    let name = "factory-survey"
    try root.api.repositoryStore.create(
      RepositoryDefinition(name: name, path: "/", ordering: .none, paging: .standard, limit: 1))
    return try root.api.repository(named: name)
  }

  static let components = [
    embeddedAPIComponent.component, networkControllerComponent.component,
    productUpdaterComponent.component, magazineIssueUpdaterComponent.component,
    productCatalogComponent.component, logBookComponent.component, loggerComponent.component,
    apiSessionManagerComponent.component, oAuth2SessionManagerComponent.component,
    oAuth2AuthorizationComponent.component, accountUserProviderComponent.component,
    apiServiceClientComponent.component, userAPIComponent.component,
    repositoryStoreComponent.component, repositoryComponent.component,
  ]

  /// The OAuth2 client archsh is registered as with the demo API.
  public static let clientID = "archsh"
  /// That client's secret.
  public static let clientSecret = "archsh-demo-secret"

  /// The request timeout, in seconds, for NetworkController, now and when it is built.
  public var timeout: Double {
    get { storedTimeout.withLock { $0 } }
    set {
      storedTimeout.withLock { $0 = newValue }
      core.existing(Self.networkControllerComponent)?.timeout = newValue
    }
  }

  /// Polled while a request runs; true cancels it (the shell's Ctrl-C flag).
  public var isCancelled: @Sendable () -> Bool {
    get { storedCancellation.withLock { $0 } }
    set { storedCancellation.withLock { $0 = newValue } }
  }

  /// The embedded demo API, started on first use.
  public var embeddedAPI: EmbeddedAPIServer {
    get throws {
      try core.singleton(Self.embeddedAPIComponent) {
        if let configured = root.configuration.apiURL { throw APIError.notEmbedded(configured) }
        guard let start = root.configuration.startEmbeddedAPI else {
          throw APIError.cannotStart("this archsh has no embedded demo API")
        }
        return try root.tracer.withSpan("DemoAPI", "start") { span in
          let server: EmbeddedAPIServer
          do {
            server = try start()
          } catch {
            throw APIError.cannotStart(String(describing: error))
          }
          span.setAttribute("url", server.baseURL.absoluteString)
          return server
        }
      }
    }
  }

  /// The base URL a redirect swapped in, or nil when none has (the seed's factory `baseURL`,
  /// which its redirection block replaces).
  public var dynamicBaseURL: URL? {
    get { redirected.url }
    set { redirected.url = newValue }
  }

  /// The base URL in use: one a redirect swapped in, else `--api`, else the embedded demo API's,
  /// starting it if needed.
  ///
  /// NetworkController keeps the base it was built with; the BDModules objects built after a
  /// redirect use the new one.
  public func baseURL() throws -> (url: URL, isEmbedded: Bool) {
    if let swapped = dynamicBaseURL {
      let configured = try configuredBaseURL()
      return (swapped, configured.isEmbedded)
    }
    return try configuredBaseURL()
  }

  /// `text` as a base URL for the API: `http://` or `https://`, a host, a port from 1 to 65535
  /// when one is written, and no query or fragment (paths are joined to it).
  public static func validBaseURL(_ text: String) throws(APIError) -> URL {
    guard let url = URL(string: text) else { throw .invalidBaseURL(text, "it is not a URL") }
    guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
      throw .invalidBaseURL(text, "only http:// and https:// are spoken")
    }
    guard let host = url.host, !host.isEmpty else {
      throw .invalidBaseURL(text, "it names no host")
    }
    guard url.password == nil else {
      throw .invalidBaseURL(text, Redaction.urlPasswordReason)
    }
    guard (try? HTTPTransport.canonicalHost(of: url)) != nil else {
      throw .invalidBaseURL(
        text,
        "its host is not a plain ASCII name or address (a percent-escape, a space or a control "
          + "byte is refused)")
    }
    // A port URL could not hold, such as 4294967296, makes no port at all: it is looked for in
    // the text too.
    let authority = text.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first?
      .split(whereSeparator: { $0 == "?" || $0 == "#" }).first
    // After the user name and password; after the brackets of an IPv6 address.
    let written = authority.flatMap { $0.split(separator: "@").last }
      .flatMap { hostAndPort -> Substring? in
        let afterHost =
          hostAndPort.hasPrefix("[")
          ? hostAndPort.firstIndex(of: "]").map { hostAndPort[$0...].dropFirst() } ?? ""
          : hostAndPort
        return afterHost.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
          .dropFirst().first
      }
    if let written {
      guard let port = Int(written), (1...65535).contains(port), url.port == port else {
        throw .invalidBaseURL(text, "the port must be a number from 1 to 65535")
      }
    }
    guard url.query == nil, url.fragment == nil else {
      throw .invalidBaseURL(text, "a base URL has no query or fragment: paths are joined to it")
    }
    return url
  }

  /// The base URL the process was started with: `--api`, or the embedded demo API's.
  public func configuredBaseURL() throws -> (url: URL, isEmbedded: Bool) {
    if let text = root.configuration.apiURL {
      if let checked = checkedAPIURL.withLock({ $0 }) { return (checked, false) }
      let url = try Self.validBaseURL(text)
      checkedAPIURL.withLock { $0 = url }
      return (url, false)
    }
    return (try embeddedAPI.baseURL, true)
  }

  /// The base URL in use without starting anything: nil before the embedded API has started.
  public var knownBaseURL: URL? {
    if let text = root.configuration.apiURL { return URL(string: text) }
    return core.existing(Self.embeddedAPIComponent)?.baseURL
  }

  /// A path on the API in use (starting the embedded API if needed), or a whole URL as it is.
  public func url(forPath path: String) throws -> URL {
    guard let url = NetworkController.url(path, relativeTo: try baseURL().url) else {
      throw APIError.invalidPath(path)
    }
    return url
  }

  /// The NetworkController for the API in use.
  public var networkController: NetworkController {
    get throws {
      try core.singleton(Self.networkControllerComponent) {
        NetworkController(
          baseURL: try configuredBaseURL().url, timeout: timeout, tracer: root.tracer,
          isCancelled: isCancelled)
      }
    }
  }

  /// The last requests NetworkController answered (never builds the controller).
  public var networkLog: [NetworkLogEntry] { root.networkLog.log }

  /// A new ProductUpdater over the API in use and the `productCache` store.
  public func productUpdater() throws -> ProductUpdater {
    try core.prototype(Self.productUpdaterComponent) {
      ProductUpdater(
        networkController: try networkController,
        productPersistenceController: try root.persistenceController(.productCache),
        decoder: root.json.decoder(), encoder: root.json.encoder(), tracer: root.tracer)
    }
  }

  /// A new MagazineIssueUpdater over the API in use and the `issues` and `issueAssets` stores.
  public func magazineIssueUpdater() throws -> MagazineIssueUpdater {
    try core.prototype(Self.magazineIssueUpdaterComponent) {
      MagazineIssueUpdater(
        networkController: try networkController,
        issuePersistenceController: try root.persistenceController(.issues),
        assetPersistenceController: try root.persistenceController(.issueAssets),
        decoder: root.json.decoder(), encoder: root.json.encoder(), tracer: root.tracer)
    }
  }

  /// A new catalog: it names products and finds their cached copies, without starting the API.
  public func productCatalog() throws -> ProductCatalog {
    try core.prototype(Self.productCatalogComponent) {
      ProductCatalog(
        cache: try root.persistenceController(.productCache), decoder: root.json.decoder(),
        api: self,
        updaters: core.provider(of: Self.productUpdaterComponent) {
          [unowned self] in try productUpdater()
        })
    }
  }

  /// A new OAuth2SessionManager for the API in use, over a new APISessionManager (the seed's
  /// OAuth2SessionManager is one), whose delegate is the account provider.
  public func oAuth2SessionManager() throws -> OAuth2SessionManager {
    try core.prototype(Self.oAuth2SessionManagerComponent) {
      let manager = OAuth2SessionManager(
        sessionManager: try apiSessionManager(), path: "/oauth/token", clientID: Self.clientID,
        clientSecret: Self.clientSecret, tracer: root.tracer, isCancelled: isCancelled)
      manager.delegate = try accountUserProvider
      return manager
    }
  }

  /// The logged-in account, its credential and its user.
  public var accountUserProvider: AccountUserProvider {
    get throws {
      try core.singleton(Self.accountUserProviderComponent) {
        AccountUserProvider(
          store: try root.persistenceController(.user), decoder: root.json.decoder(),
          encoder: root.json.encoder(), serializer: root.json.serializer(pretty: false),
          modelFactory: root.model)
      }
    }
  }

  /// A new UserAPI over a service client for `User`, the logged-in account, and a session
  /// manager for its login's token grant.
  public func userAPI() throws -> UserAPI {
    try core.prototype(Self.userAPIComponent) {
      UserAPI(
        userServiceClient: try apiServiceClient(type: "User"),
        accountUserProvider: try accountUserProvider,
        oAuth2SessionManager: try oAuth2SessionManager(), tracer: root.tracer)
    }
  }

  /// The workspace's repositories.
  public var repositoryStore: RepositoryStore {
    get throws {
      try core.singleton(Self.repositoryStoreComponent) {
        let make: @Sendable ([Section]) -> DataSourceController = { [unowned root] sections in
          root.dataSource.dataSourceController(sections: sections)
        }
        return RepositoryStore(
          workspace: try root.workspace, decoder: root.json.decoder(),
          encoder: root.json.encoder(),
          makeDataSourceController: core.provider(
            of: DataSourceFactory.dataSourceControllerComponent, make))
      }
    }
  }

  /// A new Repository object for the stored repository `name`.
  public func repository(named name: String) throws -> Repository {
    try core.prototype(Self.repositoryComponent) {
      let store = try repositoryStore
      _ = try store.record(name)
      return Repository(
        name: name, store: store, sessionManager: try apiSessionManager(),
        authorization: try oAuth2Authorization, modelFactory: root.model,
        serializer: root.json.serializer(pretty: false), tracer: root.tracer,
        isCancelled: isCancelled)
    }
  }

  /// A new service client for an API type, over a new session manager and the authorization.
  public func apiServiceClient(type: String) throws -> APIServiceClient {
    try core.prototype(Self.apiServiceClientComponent) {
      APIServiceClient(
        type: type, sessionManager: try apiSessionManager(), authorization: try oAuth2Authorization,
        modelFactory: root.model, tracer: root.tracer, isCancelled: isCancelled)
    }
  }

  /// The workspace's log.
  public var logBook: LogBook {
    get throws {
      try core.singleton(Self.logBookComponent) {
        try LogBook(
          workspace: try root.workspace, events: root.tracer.events, secrets: root.tracer.secrets)
      }
    }
  }

  /// The API's Logger, tag `API`.
  public var logger: Logger {
    get throws {
      try core.singleton(Self.loggerComponent) { Logger(tag: "API", book: try logBook) }
    }
  }

  /// A Logger for another tag, writing to the same log.
  public func logger(tag: String) throws -> Logger {
    tag == "API" ? try logger : Logger(tag: tag, book: try logBook)
  }

  /// A new session manager on the current base URL; a redirect it follows swaps the base URL
  /// for it and for this factory, as the seed's redirection block does.
  public func apiSessionManager() throws -> APISessionManager {
    try core.prototype(Self.apiSessionManagerComponent) {
      let manager = APISessionManager(
        dynamicBaseURL: try baseURL().url, timeout: timeout, logger: try logger,
        tracer: root.tracer)
      manager.redirectionHandler = { [redirected] base in redirected.url = base }
      return manager
    }
  }

  /// The OAuth2Authorization singleton if something has asked for it already; nil otherwise,
  /// without building it.
  public var builtOAuth2Authorization: OAuth2Authorization? {
    core.existing(Self.oAuth2AuthorizationComponent)
  }

  /// The authorization every authenticated request goes through.
  public var oAuth2Authorization: OAuth2Authorization {
    get throws {
      try core.singleton(Self.oAuth2AuthorizationComponent) {
        OAuth2Authorization(
          accountUserProvider: try accountUserProvider,
          sessionManager: core.provider(of: Self.oAuth2SessionManagerComponent) {
            [unowned self] in try oAuth2SessionManager()
          },
          logger: try logger(tag: "OAuth2"), tracer: root.tracer)
      }
    }
  }
}

/// The base URL a redirect swapped in, shared with the session managers' redirection blocks,
/// which run on the event loops.
private final class RedirectedBaseURL: Sendable {
  private let stored = Mutex<URL?>(nil)

  var url: URL? {
    get { stored.withLock { $0 } }
    set { stored.withLock { $0 = newValue } }
  }
}
