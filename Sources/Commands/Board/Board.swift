import BoardServer
import Domain
import Foundation
import Plumbing
import Synchronization

/// The live board: a page on 127.0.0.1 that follows the session.
///
/// It reads the one event stream like every other view, turns each event into a JSON message for
/// the page, and after each command draws the pictures that changed (the coordinator tree, the
/// visible screen, the factory graph with what the command built or reused, the data source it
/// touched, and its trace as a sequence diagram). Secrets were redacted where the events were made.
public final class Board: EventSubscriber, Sendable {
  let server: BoardServer
  /// The stream followed, and the session's secrets, hidden from every string the page is sent:
  /// step mode moves the board to a fresh session.
  private let followed: Mutex<(events: EventStream, secrets: SecretValues)>
  private let start: UInt64
  /// When the pictures were last drawn, in uptime nanoseconds.
  private let lastDrawn = Atomic<UInt64>(0)

  private var events: EventStream { followed.withLock { $0.events } }
  private var secrets: SecretValues { followed.withLock { $0.secrets } }

  /// What the events tell, which the pictures are drawn from; events arrive on any thread.
  private struct State {
    var spans: [Span] = []
    var marks: [String: FactoryPicture.Mark] = [:]
    var touched: (name: String, rows: Set<IndexPath>, notes: [String])?
    var navigated = false
    /// The line of the running command, which its trace is titled with.
    var line = ""
    var drawn: [String: String] = [:]
    var isMuted = false
    var lastCommand = 0
    /// The last command that drove a controller, until its sequence diagram is drawn.
    var lastTrace: (command: Int, line: String, spans: [Span])?
  }

  private let state = Mutex(State())

  private init(server: BoardServer, events: EventStream, secrets: SecretValues) {
    self.server = server
    self.followed = Mutex((events, secrets))
    self.start = DispatchTime.now().uptimeNanoseconds
  }

  /// Starts the page's server on `port` (0: any free port) and subscribes to every event.
  static func open(_ session: Session, port: Int) throws -> Board {
    guard port == 0 || LoopbackPort.isFree(port) else {
      throw BoardServerError.couldNotStart(port: port)
    }
    let server = try BoardServer.start(port: port, hub: BoardHub())
    // The terminal shows the page's address; recordings, the log and exports never hold its token.
    session.rememberSecret(server.token)
    let board = Board(
      server: server, events: session.tracer.events, secrets: session.tracer.secrets)
    board.events.subscribe(board, to: EventKinds.all)
    board.drawAll(session, command: 0)
    return board
  }

  /// Follows `session` from now on, instead of the session it followed: step mode rebuilds its
  /// state in a fresh session when it goes back.
  func move(to session: Session) {
    events.unsubscribe(self)
    followed.withLock { $0 = (session.tracer.events, session.tracer.secrets) }
    events.subscribe(self, to: EventKinds.all)
    drawAll(session, command: 0)
  }

  /// What the board shows of a step-mode presentation: the step, its chapter and narration.
  public struct StepView: Sendable {
    /// The step's number, from 1, and how many there are.
    public var number: Int
    /// How many steps there are.
    public var total: Int
    /// The chapter's title, when the step is in one.
    public var chapter: String?
    /// The narration above the step.
    public var narration: [String]
    /// The step's lines: the command and the `expect` lines that check it.
    public var lines: [String]
    /// `waiting` for the presenter, `running`, or `ended`.
    public var state: String

    /// Creates a view.
    public init(
      number: Int, total: Int, chapter: String?, narration: [String], lines: [String],
      state: String
    ) {
      self.number = number
      self.total = total
      self.chapter = chapter
      self.narration = narration
      self.lines = lines
      self.state = state
    }
  }

  /// Shows a step on the page; a page that connects later gets the newest one.
  public func show(_ step: StepView) {
    send(
      kind: "step", command: state.withLock { $0.lastCommand },
      time: DispatchTime.now().uptimeNanoseconds, key: "step",
      [
        Field("number", .int(step.number)), Field("total", .int(step.total)),
        Field("chapter", step.chapter.map(Value.string) ?? .null),
        Field("narration", .list(step.narration.map(Value.string))),
        Field("lines", .list(step.lines.map(Value.string))), Field("state", .string(step.state)),
      ])
  }

  /// What the board shows of an exercise (`learn start`): its goal, and whether it is met.
  public struct GoalView: Sendable {
    /// The exercise's name.
    public var name: String
    /// Its title.
    public var title: String
    /// Whose behaviour it teaches, such as `DataSourceController (002)`.
    public var seed: String
    /// The goal, in words.
    public var goal: String
    /// Whether the goal is met.
    public var met: Bool
    /// The hints the learner has asked for.
    public var hints: [String]
    /// `working`, `met`, or `ended` when the learner left the exercise.
    public var state: String
  }

  /// Shows an exercise's goal on the page; a page that connects later gets the newest one.
  func show(_ goal: GoalView) {
    send(
      kind: "goal", command: state.withLock { $0.lastCommand },
      time: DispatchTime.now().uptimeNanoseconds, key: "goal",
      [
        Field("name", .string(goal.name)), Field("title", .string(goal.title)),
        Field("seed", .string(goal.seed)), Field("goal", .string(goal.goal)),
        Field("met", .bool(goal.met)), Field("hints", .list(goal.hints.map(Value.string))),
        Field("state", .string(goal.state)),
      ])
  }

  /// Starts (or, with nil, stops) taking the page's Next and Back buttons; the handler is told
  /// whether Back was pressed.
  public func listenToStepButtons(_ handler: (@Sendable (_ back: Bool) -> Void)?) {
    guard let handler else {
      server.stepControl.listen(nil)
      return
    }
    server.stepControl.listen { @Sendable (action: StepControl.Action) in handler(action == .back) }
  }

  /// Stops the server and the subscription.
  func close() {
    events.unsubscribe(self)
    server.stop()
  }

  /// The page's address.
  var url: String { server.url }

  /// Pages connected now.
  var pages: Int { server.hub.clientCount }

  /// Messages held for pages that connect, and their size.
  var held: (messages: Int, bytes: Int) { server.hub.held }

  // MARK: - Events

  /// Turns an event into a message; called on the publishing thread, with the stream locked.
  public func receive(_ event: ArchEvent) {
    let collect: Bool = state.withLock { state in
      guard !state.isMuted else { return false }
      switch event.payload {
      case .span(let ended): if let root = ended.root { state.spans.append(root) }
      case .factory(let product):
        if product.built {
          state.marks[product.product] = .new
        } else if state.marks[product.product] == nil {
          state.marks[product.product] = .reused
        }
      case .navigation: state.navigated = true
      case .command(let command as CommandEvent) where command.phase == .began:
        state.line = command.line
      case .dataSource(let change):
        if let name = change.name {
          // A command that touches two data sources shows the last one.
          var rows = state.touched?.name == name ? state.touched?.rows ?? [] : []
          var notes = state.touched?.name == name ? state.touched?.notes ?? [] : []
          switch change.notification {
          case .rows(let paths): rows.formUnion(paths)
          // A section reloaded: UIKit redraws each of its rows (row -1 stands for them all).
          case .section(let index): rows.insert(IndexPath(row: -1, section: index))
          case .all, nil: break
          }
          notes.append(change.notification?.description ?? "created")
          state.touched = (name, rows, notes)
        }
      default: break
      }
      return true
    }
    guard collect else { return }
    var fields = Self.fields(of: event.payload)
    if case .command = event.payload {
      // `board open` and `board status` print the address: its token stays out of the stream.
      fields = fields.map { field in
        // Compared on the bytes: Foundation's `contains` of a string goes through NSString.
        guard case .string(let text) = field.value, ByteSearch.occurs(server.token, in: text)
        else {
          return field
        }
        return Field(field.key, .string(text.replacingOccurrences(of: server.token, with: "…")))
      }
    }
    send(kind: Self.kind(of: event.payload), command: event.command, time: event.time, fields)
  }

  private func send(kind: String, command: Int, time: UInt64, key: String? = nil, _ fields: [Field])
  {
    let milliseconds = Double(time &- start) / 1_000_000
    // Every string, as the log does: a secret's value in a URL, a header, a body, an error or a
    // picture's text, as it is or encoded.
    let fields = fields.map { Field($0.key, Self.hiding(secrets, in: $0.value)) }
    server.hub.append(key: key) { id in
      var text = ""
      JSONRenderer.write(
        .object(
          [
            Field("seq", .int(Int(id))), Field("command", .int(command)),
            Field("ms", .double((milliseconds * 10).rounded() / 10)), Field("kind", .string(kind)),
          ] + fields), into: &text)
      return text
    }
  }

  /// `value` with `secrets` hidden in each of its strings.
  private static func hiding(_ secrets: SecretValues, in value: Value) -> Value {
    switch value {
    case .string(let text): return .string(secrets.hide(text))
    case .list(let values): return .list(values.map { hiding(secrets, in: $0) })
    case .object(let fields):
      return .object(fields.map { Field($0.key, hiding(secrets, in: $0.value)) })
    case .excerpt(let shown, let whole):
      return .excerpt(shown: secrets.hide(shown), whole: hiding(secrets, in: whole))
    default: return value
    }
  }

  // MARK: - Pictures

  /// Draws the pictures a command changed, after it ends.
  ///
  /// The pictures (the trace, factories, coordinators and screen, data source) are drawn at most
  /// every 100 ms while commands come fast (a script), and whenever the shell waits for its next
  /// line (`settle`): at the prompt, every command gets its pictures, and a script of 1,000
  /// updates is not slowed by 1,000 factory graphs that nobody could read. The events
  /// themselves are all sent.
  func commandEnded(_ session: Session, command: Int) {
    state.withLock { state in
      let traced = state.spans.filter { !$0.children.isEmpty || !$0.events.isEmpty }
      if !traced.isEmpty { state.lastTrace = (command, state.line, traced) }
      state.spans = []
      state.lastCommand = command
    }
    let now = DispatchTime.now().uptimeNanoseconds
    if now &- lastDrawn.load(ordering: .relaxed) >= 100_000_000 { settle(session) }
  }

  /// Draws the pictures that changed since they were last drawn: the last traced command's
  /// sequence diagram, and the state pictures.
  func settle(_ session: Session) {
    let (marks, touched, navigated, command, trace) = state.withLock { state in
      defer {
        state.marks = [:]
        state.navigated = false
        state.touched = nil
        state.lastTrace = nil
      }
      return (state.marks, state.touched, state.navigated, state.lastCommand, state.lastTrace)
    }
    lastDrawn.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
    muted {
      if let trace {
        panel(
          "trace", command: trace.command, title: "sequence diagram",
          svg: SequencePicture.svg(trace.spans), note: trace.line, always: true)
      }
      if !marks.isEmpty {
        // What the command touched, large enough to read from the back of a room; the whole
        // graph goes with it, one click away.
        let graph = session.factory.graph()
        panel(
          "factories", command: command, title: "what the last command built or reused",
          svg: FactoryPicture.svg(graph, marks: marks, focus: true), note: nil,
          whole: FactoryPicture.svg(graph, marks: marks))
      }
      if navigated || state.withLock({ $0.drawn["coordinators"] == nil }) {
        drawApp(session, command: command)
      }
      if let touched {
        drawDataSource(
          session, touched.name, rows: touched.rows, notes: touched.notes, command: command)
      }
    }
  }

  /// Runs `body` with the board deaf to events: drawing may build products or load a screen, and
  /// an exercise's check reads the state, which are not what the command did.
  func muted(_ body: () -> Void) {
    state.withLock { $0.isMuted = true }
    defer { state.withLock { $0.isMuted = false } }
    body()
  }

  private func drawAll(_ session: Session, command: Int) {
    muted {
      panel(
        "factories", command: command, title: "factory graph",
        svg: FactoryPicture.svg(session.factory.graph()), note: nil)
      drawApp(session, command: command)
    }
  }

  private func drawApp(_ session: Session, command: Int) {
    guard let app = RunningApp.inMemory(session) else { return }
    panel(
      "coordinators", command: command, title: "coordinators", svg: CoordinatorPicture.svg(app),
      note: nil)
    do {
      let controller = try app.controller(forCoordinatorNamed: nil)
      let view = try controller.loadRootView()
      let picture = TableViewPicture(
        controller: view.dataSourceController, from: 0, count: 30, title: view.title)
      panel(
        "screen", command: command, title: view.title, svg: picture.svg(),
        note: "\(controller.screen)")
    } catch {
      panel("screen", command: command, title: "screen", svg: "", note: "\(error)")
    }
  }

  private func touchedSections(from rows: Set<IndexPath>) -> [Int] {
    rows.filter { $0.row < 0 }.map(\.section).sorted()
  }

  private func drawDataSource(
    _ session: Session, _ name: String, rows touchedRows: Set<IndexPath>, notes: [String],
    command: Int
  ) {
    guard let open = try? session.factory.dataSource.library.open(name) else { return }
    let controller = open.document.controller
    var rows = touchedRows.filter { $0.row >= 0 }
    for marker in touchedSections(from: touchedRows) where marker < controller.sections.count {
      for row in controller.sections[marker].rows.indices {
        rows.insert(IndexPath(row: row, section: marker))
      }
    }
    // Show the touched rows: start a few rows above the first one.
    var first = 0
    if let path = rows.min(by: { ($0.section, $0.row) < ($1.section, $1.row) }) {
      first = controller.sections.prefix(path.section).reduce(0) { $0 + $1.rows.count } + path.row
    }
    let picture = TableViewPicture(
      controller: controller, from: max(0, first - 3), count: 12, touched: rows, title: name)
    panel(
      "datasource", command: command, title: name, svg: picture.svg(),
      note: notes.joined(separator: ", "), always: true)
  }

  private func panel(
    _ panel: String, command: Int, title: String, svg: String, note: String?, always: Bool = false,
    whole: String? = nil
  ) {
    let changed: Bool = state.withLock { state in
      if !always, state.drawn[panel] == svg { return false }
      state.drawn[panel] = svg
      return true
    }
    guard changed else { return }
    send(
      kind: "panel", command: command, time: DispatchTime.now().uptimeNanoseconds,
      key: panel == "trace" ? nil : panel,
      [
        Field("panel", .string(panel)), Field("title", .string(title)), Field("svg", .string(svg)),
        Field("note", note.map(Value.string) ?? .null),
      ] + (whole.map { [Field("whole", .string($0))] } ?? []))
  }

  // MARK: - Messages

  private static func kind(of payload: ArchPayload) -> String {
    switch payload {
    case .span: return "span"
    case .factory: return "factory"
    case .navigation: return "navigation"
    case .dataSource: return "datasource"
    case .http: return "http"
    case .store: return "store"
    case .log: return "log"
    case .command: return "command"
    }
  }

  private static func fields(of payload: ArchPayload) -> [Field] {
    switch payload {
    case .span(let span):
      return [
        Field("component", .string(span.component)), Field("operation", .string(span.operation)),
        Field("duration_ms", .double(Double(span.durationNanoseconds) / 1_000_000)),
        Field("failure", span.failure.map(Value.string) ?? .null),
      ]
    case .factory(let product):
      return [
        Field("product", .string(product.product)), Field("factory", .string(product.factory)),
        Field("built", .bool(product.built)),
      ]
    case .navigation(let change):
      return [
        Field("component", .string(change.component)), Field("text", .string(change.text)),
        Field("change", .string(change.kind.rawValue)),
      ]
    case .dataSource(let change):
      var rows: [Value] = []
      var section: Value = .null
      var all = false
      switch change.notification {
      case .all: all = true
      case .section(let index): section = .int(index)
      case .rows(let paths): rows = paths.map { .string("\($0.section).\($0.row)") }
      case nil: break
      }
      return [
        Field("name", change.name.map(Value.string) ?? .null),
        Field("notification", change.notification.map { .string($0.description) } ?? .null),
        Field("rows", .list(rows)), Field("section", section), Field("all", .bool(all)),
      ]
    case .http(let exchange):
      let path = URL(string: exchange.url).map { url in
        url.path.isEmpty ? "/" : url.path + (url.query.map { "?" + $0 } ?? "")
      }
      func headers(_ list: [NetworkHeader]) -> Value {
        .list(list.map { .list([.string($0.name), .string($0.value)]) })
      }
      return [
        Field("id", .int(Int(exchange.id))), Field("phase", .string(exchange.phase.rawValue)),
        Field("method", .string(exchange.method)), Field("url", .string(exchange.url)),
        Field("path", .string(path ?? exchange.url)),
        Field("status", exchange.status.map(Value.int) ?? .null),
        Field("bytes", .int(exchange.bytes)),
        Field("duration_ms", .double((exchange.milliseconds * 100).rounded() / 100)),
        Field("role", .string(exchange.role.rawValue)), Field("sender", .string(exchange.sender)),
        Field("connection", .string(exchange.reusedConnection ? "reused" : "new")),
        Field("request_headers", headers(exchange.requestHeaders)),
        Field("request_body", exchange.requestBody.map(Value.string) ?? .null),
        Field("response_headers", headers(exchange.responseHeaders)),
        Field("response_body", exchange.responseBody.map(Value.string) ?? .null),
        Field("error", exchange.error.map(Value.string) ?? .null),
      ]
    case .store(let change):
      return [
        Field("action", .string(change.action.rawValue)), Field("store", .string(change.store)),
        Field("key", .string(change.key)), Field("bytes", .int(change.bytes)),
      ]
    case .log(let line):
      return [
        Field("tag", .string(line.tag)), Field("level", .string(line.level.description)),
        Field("message", .string(line.message)),
      ]
    case .command(let event):
      guard let command = event as? CommandEvent else { return [] }
      return [
        Field("phase", .string(command.phase.rawValue)), Field("line", .string(command.line)),
        Field("output", .string(command.output)), Field("ok", .bool(command.succeeded)),
        Field("origin", .string(command.origin)),
      ]
    }
  }
}
