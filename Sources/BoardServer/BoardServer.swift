import Foundation
import NIOCore
import Plumbing
import Synchronization

/// What one page has yet to be sent: the frames since its writer last took them, in one buffer,
/// so that a burst goes out in a few large writes rather than one write per event.
final class PageQueue: Sendable {
  /// The frames not yet taken, and whether the queue has ended.
  private struct Pending {
    var bytes = ByteBuffer()
    var isFinished = false
  }

  private let pending = Mutex(Pending())
  private let wake: AsyncStream<Void>.Continuation
  /// Resumes the writer whenever frames arrive.
  let wakes: AsyncStream<Void>
  /// The most bytes a page may fall behind by before it is cut off: it is sent a `dropped` event
  /// and its stream ends, and it reconnects to a snapshot.
  static let limit = 4 << 20
  /// What a page that fell too far behind is sent last.
  static let droppedFrame =
    "event: dropped\ndata: {\"reason\":\"the page fell more than 4 MiB behind\"}\n\n"

  init() {
    (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
  }

  /// Adds frames; false when the page is too far behind, and has been cut off.
  ///
  /// What a page cut off had not taken is replaced by `droppedFrame`. The first frames (a
  /// snapshot, whatever its size) are added `whole`, beyond the limit.
  func add(_ text: String, whole: Bool = false) -> Bool {
    let accepted = enqueue(text, whole: whole)
    wakeWriter(accepted: accepted)
    return accepted
  }

  /// Adds frames as `add` does, without waking the writer: for a caller holding a lock, which
  /// calls `wakeWriter` once it has let go of it.
  ///
  /// Waking the writer takes its task's own lock, which Swift holds while it runs the task's
  /// cancellation handler; that handler (a page leaving) takes the hub's lock. Woken with the
  /// hub's lock held, a page that left at that moment stopped both threads for good.
  func enqueue(_ text: String, whole: Bool = false) -> Bool {
    pending.withLock { pending in
      guard !pending.isFinished else { return false }
      guard whole || pending.bytes.readableBytes + text.utf8.count <= Self.limit else {
        pending.isFinished = true
        pending.bytes = ByteBuffer(string: Self.droppedFrame)
        return false
      }
      pending.bytes.writeString(text)
      return true
    }
  }

  /// Wakes the writer after `enqueue`: for frames `accepted`, or to end a page cut off.
  func wakeWriter(accepted: Bool) {
    if accepted { wake.yield() } else { wake.finish() }
  }

  /// Everything pending, or nil once the queue has ended.
  func take() -> ByteBuffer? {
    pending.withLock { pending in
      if pending.bytes.readableBytes == 0 { return pending.isFinished ? nil : ByteBuffer() }
      defer { pending.bytes = ByteBuffer() }
      return pending.bytes
    }
  }

  /// Ends the queue: the writer stops after what is pending.
  func finish() {
    pending.withLock { $0.isFinished = true }
    wake.finish()
  }
}

/// The writer's side of a page's wake-ups, iterated from one task at a time.
final class WakeIterator: @unchecked Sendable {
  // @unchecked: `iterator` is only advanced by its page's stream, one `next()` at a time.
  private var iterator: AsyncStream<Void>.Iterator
  init(_ iterator: AsyncStream<Void>.Iterator) { self.iterator = iterator }
  /// Waits for frames; false once the queue has ended.
  func next() async -> Bool { await iterator.next() != nil }
}

/// The board's history: the messages sent to pages, bounded in count and in bytes, and the pages
/// connected now.
///
/// A page that connects gets a snapshot: the newest message of each kept kind (the pictures),
/// then the history in order. A page that reconnects with `Last-Event-ID` gets what it missed, or
/// a snapshot marked `gap` when that is no longer held.
public final class BoardHub: Sendable {
  private struct Message {
    let id: UInt64
    let json: String
  }

  /// The messages held (from `head` on), the newest of each kind, and the pages connected.
  private struct State {
    var history: [Message] = []
    var head = 0
    var bytes = 0
    var nextID: UInt64 = 0
    var latestByKey: [String: Message] = [:]
    var clients: [UUID: PageQueue] = [:]
    var dropped = false

    func snapshot(gap: Bool) -> String {
      let kept = history[head...]
      let firstKept = kept.first?.id ?? .max
      var events = latestByKey.values.filter { $0.id < firstKept }.sorted { $0.id < $1.id }.map(
        \.json)
      events.append(contentsOf: kept.map(\.json))
      let last = kept.last?.id ?? 0
      return "id: \(last)\nevent: snapshot\ndata: {\"gap\":\(gap),\"events\":["
        + events.joined(separator: ",") + "]}\n\n"
    }
  }

  private let state = Mutex(State())
  /// The most messages kept.
  public let capacity: Int
  /// The most bytes of messages kept.
  public let byteCapacity: Int

  /// Creates a hub keeping at most `capacity` messages and `byteCapacity` bytes of them.
  public init(capacity: Int = 20_000, byteCapacity: Int = 8 << 20) {
    self.capacity = capacity
    self.byteCapacity = byteCapacity
  }

  /// Adds a message and sends it to every page.
  ///
  /// `make` gets its id and returns its JSON object. With a `key`, it is also the newest of its
  /// kind, which every snapshot starts with.
  public func append(key: String? = nil, _ make: (UInt64) -> String) {
    let added: [(PageQueue, Bool)] = state.withLock { state in
      state.nextID += 1
      let message = Message(id: state.nextID, json: make(state.nextID))
      state.history.append(message)
      state.bytes += message.json.utf8.count
      if let key { state.latestByKey[key] = message }
      while state.history.count - state.head > capacity
        || (state.bytes > byteCapacity && state.history.count - state.head > 1)
      {
        state.bytes -= state.history[state.head].json.utf8.count
        state.head += 1
        state.dropped = true
      }
      if state.head > 4096, state.head * 2 > state.history.count {
        state.history.removeFirst(state.head)
        state.head = 0
      }
      guard !state.clients.isEmpty else { return [] }
      let frame = Self.frame(message)
      // A page too far behind loses its stream and reconnects, to a snapshot that says so,
      // rather than missing events without knowing.
      var added: [(PageQueue, Bool)] = []
      added.reserveCapacity(state.clients.count)
      for (id, client) in state.clients {
        let accepted = client.enqueue(frame)
        if !accepted { state.clients[id] = nil }
        added.append((client, accepted))
      }
      return added
    }
    // The frames are in each queue in order already; the writers are woken with the lock let go
    // (`PageQueue.enqueue` says why).
    for (client, accepted) in added { client.wakeWriter(accepted: accepted) }
  }

  /// The most pages connected at once: each may hold a snapshot and `PageQueue.limit` bytes.
  public static let pageLimit = 16
  /// What a page past `pageLimit` is sent.
  static let tooManyPagesFrame =
    "event: closed\ndata: {\"reason\":\"\(pageLimit) pages are open on this board already: close one and reload\"}\n\n"

  /// How many pages are connected.
  public var clientCount: Int { state.withLock { $0.clients.count } }

  /// How many messages are held, and their bytes.
  public var held: (messages: Int, bytes: Int) {
    state.withLock { ($0.history.count - $0.head, $0.bytes) }
  }

  /// The stream of frames for a page that connects now, after `lastEventID` if it has one: what
  /// the page missed, or a snapshot when that is no longer held.
  public func connect(lastEventID: UInt64?) -> AsyncStream<ByteBuffer> {
    connectPage(lastEventID: lastEventID).stream
  }

  /// `connect`, and the way to say the page is gone (its connection closed).
  func connectPage(lastEventID: UInt64?) -> (
    stream: AsyncStream<ByteBuffer>, close: @Sendable () -> Void
  ) {
    let id = UUID()
    let queue = PageQueue()
    let admitted: Bool = state.withLock { state in
      guard state.clients.count < Self.pageLimit else { return false }
      let kept = state.history[state.head...]
      if let lastEventID, let first = kept.first, lastEventID + 1 >= first.id {
        var text = ""
        for message in kept where message.id > lastEventID { text += Self.frame(message) }
        _ = queue.enqueue(text, whole: true)
      } else {
        _ = queue.enqueue(state.snapshot(gap: lastEventID != nil || state.dropped), whole: true)
      }
      state.clients[id] = queue
      return true
    }
    guard admitted else {
      // Past the cap, the page hears why, and stops reconnecting.
      return (
        AsyncStream { continuation in
          continuation.yield(ByteBuffer(string: Self.tooManyPagesFrame))
          continuation.finish()
        }, {}
      )
    }
    // Woken with the hub's lock let go (`PageQueue.enqueue` says why).
    queue.wakeWriter(accepted: true)
    // A comment every 15 seconds keeps the stream seen alive.
    let heartbeat = Task {
      while !Task.isCancelled {
        try? await Task.sleep(nanoseconds: 15_000_000_000)
        if !queue.add(": ping\n\n") { return }
      }
    }
    // Pulled by the writer: the next buffer is taken only once the last one is written, so a
    // slow page holds at most its queue's limit.
    let wakes = WakeIterator(queue.wakes.makeAsyncIterator())
    let close: @Sendable () -> Void = { [weak self] in
      heartbeat.cancel()
      queue.finish()
      guard let self else { return }
      _ = self.state.withLock { $0.clients.removeValue(forKey: id) }
    }
    let stream = AsyncStream<ByteBuffer>(
      unfolding: {
        while true {
          guard let buffer = queue.take() else { return nil }
          if buffer.readableBytes > 0 { return buffer }
          guard await wakes.next() else {
            return queue.take().flatMap { $0.readableBytes > 0 ? $0 : nil }
          }
        }
      },
      onCancel: close)
    return (stream, close)
  }

  /// Ends every page's stream.
  func disconnectAll() {
    let all = state.withLock { state in
      defer { state.clients = [:] }
      return Array(state.clients.values)
    }
    for client in all {
      // The page hears that the board was closed, and stops trying to reconnect.
      _ = client.add("event: closed\ndata: {}\n\n")
      client.finish()
    }
  }

  private static func frame(_ message: Message) -> String {
    "id: \(message.id)\nevent: arch\ndata: \(message.json)\n\n"
  }
}

/// The board's HTTP server, on 127.0.0.1: the page and its event stream.
///
/// It answers a request that carries the token and names this server in its `Host`. Nothing it
/// serves runs a command.
public final class BoardServer: Sendable {
  /// The port it listens on.
  public let port: Int
  /// The token every request must carry.
  public let token: String
  /// Where its pages read from.
  public let hub: BoardHub
  /// Where the page's Next and Back buttons go, while a step-mode presentation listens.
  public let stepControl: StepControl
  private let server: LoopbackServer

  /// The page's address, token included.
  public var url: String { "http://127.0.0.1:\(port)/?token=\(token)" }

  private init(
    port: Int, token: String, hub: BoardHub, stepControl: StepControl, server: LoopbackServer
  ) {
    self.port = port
    self.token = token
    self.hub = hub
    self.stepControl = stepControl
    self.server = server
  }

  /// Starts a server on `port` (0 for any free one) serving the board's page (`BoardPage`), whose
  /// `__NONCE__` is replaced by each response's script nonce.
  public static func start(port: Int, hub: BoardHub) throws -> BoardServer {
    let token = randomHex(bytes: 16)
    let stepControl = StepControl()
    let responder = BoardResponder(
      token: token, page: BoardPage.document, hub: hub, stepControl: stepControl)
    let server: LoopbackServer
    do {
      // A connection that sends no complete request for 10 s is closed (an open event stream is
      // an answer in progress, and stays). The board reads nothing larger than a step's POST.
      server = try LoopbackServer.start(
        port: port, name: "archsh-board", bodyLimit: 64 * 1024, idleTimeout: .seconds(10),
        responder: responder.respond)
    } catch {
      throw BoardServerError.couldNotStart(port: port)
    }
    return BoardServer(
      port: server.port, token: token, hub: hub, stepControl: stepControl, server: server)
  }

  /// Stops the server and ends every page's stream.
  public func stop() {
    hub.disconnectAll()
    // The pages' writers get a moment to send the closing event before the server goes.
    let server = self.server
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) { server.stop() }
  }

  static func randomHex(bytes: Int) -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<bytes).map { _ in
      let byte = UInt8.random(in: 0...255, using: &generator)
      return String(byte, radix: 16).count == 1
        ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
    }.joined()
  }
}

/// Why the board could not start.
public enum BoardServerError: Error, CustomStringConvertible {
  /// The port is taken, or no port could be bound.
  case couldNotStart(port: Int)

  /// One line.
  public var description: String {
    switch self {
    case .couldNotStart(let port):
      return port == 0
        ? "the board could not start on 127.0.0.1" : "port \(port) on 127.0.0.1 is not free"
    }
  }
}

/// The one thing a page may ask archsh to do: go to the next step or back one, in step mode.
public final class StepControl: Sendable {
  /// What the page can ask.
  public enum Action: String, Sendable {
    /// Run the step shown, as Enter does.
    case next
    /// Go back one step, as `b` does.
    case back
  }

  private let handler = Mutex<(@Sendable (Action) -> Void)?>(nil)

  /// Creates a control that nobody listens to yet.
  public init() {}

  /// Starts (or, with nil, stops) listening to the page's buttons.
  public func listen(_ handler: (@Sendable (Action) -> Void)?) {
    self.handler.withLock { $0 = handler }
  }

  /// Passes an action on; false when no presentation listens.
  func send(_ action: Action) -> Bool {
    guard let handler = handler.withLock({ $0 }) else { return false }
    handler(action)
    return true
  }
}

/// Checks the `Host` and the token, then serves the page or the stream.
struct BoardResponder: Sendable {
  let token: String
  let page: String
  let hub: BoardHub
  let stepControl: StepControl

  func respond(_ request: ServerRequest) -> ServerResponse {
    guard request.namesThisServer else {
      return plain(421, "this board answers only to 127.0.0.1:\(request.port)\n")
    }
    guard let given = request.query("token"), Self.equal(given, token) else {
      return plain(403, "a board address carries its token: use the URL 'board open' printed\n")
    }
    if request.path == "/step" {
      return step(request, action: request.query("action"))
    }
    guard request.method == "GET" || request.method == "HEAD" else {
      return plain(405, "the board only reads, except its step buttons\n")
    }
    switch request.path {
    case "/":
      let nonce = BoardServer.randomHex(bytes: 12)
      var headers = securityHeaders(nonce: nonce)
      headers.append(("Content-Type", "text/html; charset=utf-8"))
      return ServerResponse(
        status: 200, headers: headers,
        body: .bytes(Array(page.replacingOccurrences(of: "__NONCE__", with: nonce).utf8)))
    case "/events":
      let last = request.header("last-event-id").flatMap { UInt64($0) }
      let (stream, close) = hub.connectPage(lastEventID: last)
      var headers = securityHeaders(nonce: nil)
      headers.append(("Content-Type", "text/event-stream"))
      return ServerResponse(
        status: 200, headers: headers,
        body: .stream { writer in
          // However the page leaves (it closes, or the board does), it is no longer counted.
          defer { close() }
          for await frame in stream {
            guard await writer.write(frame) else { return }
          }
        })
    default:
      return plain(404, "no such board resource\n")
    }
  }

  /// `POST /step?token=T&action=next|back`: the page's Next and Back buttons, after the same
  /// checks as every request, and an `Origin`, when the browser sends one, that is the board's own.
  private func step(_ request: ServerRequest, action: String?) -> ServerResponse {
    let port = request.port
    guard request.method == "POST" else {
      return plain(405, "the step buttons POST\n")
    }
    if let origin = request.header("origin"),
      origin != "http://127.0.0.1:\(port)" && origin != "http://localhost:\(port)"
    {
      return plain(403, "the step buttons work only from the board's own page\n")
    }
    guard let action = action.flatMap(StepControl.Action.init(rawValue:)) else {
      return plain(400, "action is 'next' or 'back'\n")
    }
    guard stepControl.send(action) else {
      return plain(409, "no step-mode presentation is running ('archsh --step')\n")
    }
    return ServerResponse(status: 204, headers: securityHeaders(nonce: nil))
  }

  private func securityHeaders(nonce: String?) -> [(name: String, value: String)] {
    let script = nonce.map { "script-src 'nonce-\($0)'; " } ?? ""
    return [
      (
        "Content-Security-Policy",
        "default-src 'none'; \(script)style-src 'unsafe-inline'; img-src data:; connect-src 'self'"
      ),
      ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
      ("Cache-Control", "no-store"),
    ]
  }

  private func plain(_ status: Int, _ text: String) -> ServerResponse {
    ServerResponse(status: status, contentType: "text/plain; charset=utf-8", text)
  }

  /// Compares in time that does not depend on where the strings differ.
  static func equal(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    guard x.count == y.count else { return false }
    var difference: UInt8 = 0
    for index in x.indices { difference |= x[index] ^ y[index] }
    return difference == 0
  }
}

/// The board's page: `Page/board.html` with `board.css` and `board.js` put in its place, one
/// self-contained document, so that the Content-Security-Policy allows nothing but its own nonce.
///
/// The three files are compiled into the binary (SwiftPM's `embedInCode`); a browser, a linter or
/// an editor reads them as what they are.
enum BoardPage {
  /// The whole document, `__NONCE__` still in it.
  static let document: String = {
    let html = String(decoding: PackageResources.board_html, as: UTF8.self)
    return
      html
      .replacingOccurrences(
        of: "/*@board.css@*/\n", with: String(decoding: PackageResources.board_css, as: UTF8.self)
      )
      .replacingOccurrences(
        of: "/*@board.js@*/\n", with: String(decoding: PackageResources.board_js, as: UTF8.self))
  }()
}
