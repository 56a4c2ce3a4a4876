import DemoAPI
import Domain
import Foundation
import Plumbing
import Runtime
import Synchronization

/// How command output is printed.
public enum OutputMode: String, Sendable, CaseIterable {
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

/// Everything a command can reach: the application factory, and the shell's own state
/// (variables, output mode, settings, history).
///
/// The session owns the Domain's composition root, an `ApplicationFactory`, which builds every
/// controller; the session itself builds none.
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
  /// Whether Ctrl-C was pressed; long-running Domain work (a request, an SQL statement) polls it
  /// to cancel.
  public var interruptCheck: @Sendable () -> Bool = { false } {
    didSet {
      factory.api.isCancelled = interruptCheck
      Workspace.setInterruptCheck(interruptCheck)
    }
  }
  /// From now on no SQL statement is interrupted: what archsh writes on its way out (the log's
  /// last lines, the folded write-ahead log) is not stopped by the signal that ended the run.
  public static func letStatementsFinish() { Workspace.setInterruptCheck { false } }

  /// Product ids from the last `product list`, offered by completion.
  public var listedProductIDs: [Int] = []
  /// What the last `screen show` drew, which `screen select` checks it acts on.
  var shownScreen: ScreenGroup.ShownScreen?
  /// The fetches `repo fetch --background` started, by repository, until `repo wait` takes
  /// their outcome.
  var backgroundFetches: [String: RepoGroup.BackgroundFetch] = [:]

  /// Waits for the fetches `repo fetch --background` started, so that none is writing to the
  /// workspace when it closes; each ends within its request's timeout.
  public func finishBackgroundWork() {
    for fetch in backgroundFetches.values { _ = try? fetch.wait() }
    backgroundFetches = [:]
  }
  /// Answers for `set NAME --secret` given without a value, by name, instead of asking.
  ///
  /// A recording's replay and step mode's way back fill it. Nil asks the terminal, or reads
  /// standard input's first line when it is not one.
  public var secretAnswers: [String: String]?
  /// The secrets `set NAME --secret` read from outside the script (a prompt, standard input, the
  /// environment, recorded answers): a replay's transcript shows `<redacted>` for them, as the
  /// recording it is compared with does.
  public let secretsGivenFromOutside = SecretValues()
  /// The recording of what is typed at the prompt, between `record start` and `record stop`.
  ///
  /// While it is set, it observes every interpreter that runs this session's lines.
  public internal(set) var recorder: SessionRecorder? {
    didSet { replaceObserver(oldValue, with: recorder) }
  }
  /// The live board, while it is open; it observes the interpreters as the recorder does.
  public internal(set) var board: Board? {
    didSet { replaceObserver(oldValue, with: board) }
  }
  /// What observes every interpreter that runs this session's lines, in the order registered: the
  /// log book's flusher, the command tracer, and the board and the recorder while they are open.
  private(set) var observers = ObserverList()

  /// Registers `new` in the place of `old`.
  private func replaceObserver(
    _ old: (any InterpreterObserver)?, with new: (any InterpreterObserver)?
  ) {
    if let old { observers.remove(old) }
    if let new { observers.add(new) }
  }

  /// Creates a session; its factory opens the workspace at `options.databasePath` (in memory when
  /// nil) on first use, and starts the embedded demo API when the network is first needed without
  /// `options.apiURL`.
  public init(options: SessionOptions = SessionOptions()) {
    observers.add(LogBookFlusher())
    let root = RootHolder()
    self.factory = ApplicationFactory(
      configuration: ApplicationConfiguration(
        databasePath: options.databasePath ?? ":memory:", apiURL: options.apiURL,
        startEmbeddedAPI: {
          // The demo API keeps its tokens in the workspace, so that a stored credential still
          // works in the next session, and its port, so that its URLs (the product cache's
          // keys) stay the same from run to run: the last port when it is free, else a new one.
          let workspace = try root.factory.map { try $0.workspace }
          let state = workspace.map(EmbeddedAPIState.init)
          let accounts = Accounts(storage: workspace.map(WorkspaceTokenStorage.init))
          let api: DemoAPI
          if let port = state?.savedPort(), LoopbackPort.isFree(port),
            let started = try? DemoAPI.start(port: port, accounts: accounts)
          {
            api = started
          } else {
            api = try DemoAPI.start(accounts: accounts)
          }
          if let port = api.baseURL.port { state?.adopt(port: port) }
          return api
        }))
    root.factory = factory
    self.options = options
    observers.add(CommandTracer(tracer: factory.tracer))
  }

  /// The tracer that controllers report to.
  public var tracer: Tracer { factory.tracer }
  /// The stream every controller, and the shell, publishes its facts to.
  public var events: EventStream { factory.tracer.events }

  /// Trusts the CA certificates in a PEM file for `https://`, besides the system's, for every
  /// session of the process (`--cacert FILE`).
  public static func trustCertificates(inFile path: String) {
    TLSTrust.shared.caFile = path
  }

  /// Remembers `value` as a secret of this session: the board, recordings, `trace export` and
  /// the log show `<redacted>` in its place from now on.
  public func rememberSecret(_ value: String) { tracer.secrets.remember(value) }

  /// `text` with this session's secrets replaced by `<redacted>`.
  public func hidingSecrets(_ text: String) -> String { tracer.secrets.hide(text) }

  /// Why `text` cannot be the API's base URL (`--api`), or nil when it can.
  public static func problem(withAPI text: String) -> String? {
    do {
      _ = try APIFactory.validBaseURL(text)
      return nil
    } catch {
      return error.description
    }
  }

  /// Sends the networking layer's one-time warnings (a credential about to cross the network in
  /// clear text) to `write`.
  public static func sendNetworkWarnings(to write: @escaping @Sendable (String) -> Void) {
    CleartextWarning.handler = write
  }

  /// Hands the open board, if any, to `other`, which it follows from now on.
  public func handBoard(to other: Session) {
    guard let board else { return }
    self.board = nil
    other.board = board
    board.move(to: other)
  }
}

/// The factory, for the embedded API's start-up closure, which is made before the factory is.
///
/// It holds the factory weakly (the factory holds the closure), behind a lock.
private final class RootHolder: Sendable {
  private struct Reference { weak var factory: ApplicationFactory? }
  private let reference = Mutex(Reference())

  var factory: ApplicationFactory? {
    get { reference.withLock { $0.factory } }
    set { reference.withLock { $0.factory = newValue } }
  }
}

/// The demo API's tokens in the workspace's `embedded_api` table.
private final class WorkspaceTokenStorage: TokenStorage, Sendable {
  private let state: EmbeddedAPIState
  init(_ workspace: Workspace) { state = EmbeddedAPIState(workspace: workspace) }
  init(_ state: EmbeddedAPIState) { self.state = state }
  func loadTokens() -> Data? { state.loadTokens() }
  func saveTokens(_ data: Data) { state.saveTokens(data) }
}

extension DemoAPI: EmbeddedAPIServer {
  /// Expires every access token the demo API has granted.
  public func expireAccessTokens() -> Int { accounts.expireAccessTokens() }

  /// How long the access tokens the demo API grants live, in seconds.
  public var accessTokenLifetime: Double {
    get { accounts.tokenLifetime }
    set { accounts.tokenLifetime = newValue }
  }
}
