import BoardServer
import Domain

/// `board`: the live page that follows the session.
enum BoardGroup {
  static let group = CommandGroup(
    "board", summary: "a live page in the browser that follows the session",
    from: [.archsh],
    discussion: """
      The board is a page served by archsh on 127.0.0.1. It follows the session as you type: \
      the coordinator tree and the visible screen, the factory graph with what the last command \
      built or reused, the data source a mutation touched with its delegate's notification, the \
      requests (an OAuth2 burst as one timeline: the 401s, the refresh, the replays), each \
      command's trace as a sequence diagram, and the commands with their output. Clicking a \
      command marks everything it touched in every panel. The page gets a snapshot when it \
      connects, then every change (Server-Sent Events), and resumes after a reconnect without \
      losing any. Its address carries an unguessable token; a request without it, or naming \
      another host, is refused. The page reads only: it cannot run a command. Passwords, tokens \
      and secret variables' values, as they are or encoded, never reach it. It keeps the last \
      20,000 messages (at most 8 MiB); older ones are dropped, and a page that connects later \
      is told so. At most 16 pages are open at once; a page that falls more than 4 MiB behind \
      is dropped with a 'dropped' event, and reconnects to a snapshot.
      """,
    commands: [open, close, status])

  /// `open --port N`.
  static let portOption = Option(
    "port", .integer(0...65535), value: "N", "the port on 127.0.0.1 (0: any free one)",
    default: "0")

  static let open = Command(
    "open", summary: "start the page and print its address",
    signature: Signature([portOption]),
    examples: ["board open", "board open --port 8600"], result: .record(["url", "already_open"])
  ) { invocation in
    let session = invocation.session
    if let board = session.board {
      return .sentence(
        "the board is already open at \(board.url)",
        [Field("url", .string(board.url)), Field("already_open", .bool(true))])
    }
    do {
      let board = try Board.open(session, port: invocation[portOption] ?? 0)
      session.board = board
      return .sentence(
        "the board is open at \(board.url)",
        [Field("url", .string(board.url)), Field("already_open", .bool(false))])
    } catch let error as BoardServerError {
      throw ShellError(
        error.description, hint: "choose another port with --port, or 0 for any free one")
    }
  }

  static let close = Command(
    "close", summary: "stop the page; connected pages see it end",
    examples: ["board close"], result: .record(["closed"])
  ) { invocation in
    guard let board = invocation.session.board else {
      throw ShellError("the board is not open", hint: "open it with 'board open'")
    }
    board.close()
    invocation.session.board = nil
    return .sentence("the board is closed", [Field("closed", .bool(true))])
  }

  static let status = Command(
    "status", summary: "whether the board is open, its address, and the pages connected",
    examples: ["board status"],
    result: .record(["open", "url", "pages", "messages_held", "bytes_held"])
  ) { invocation in
    guard let board = invocation.session.board else {
      return .record([Field("open", .bool(false))])
    }
    let held = board.held
    return .record([
      Field("open", .bool(true)), Field("url", .string(board.url)),
      Field("pages", .int(board.pages)), Field("messages_held", .int(held.messages)),
      Field("bytes_held", .int(held.bytes)),
    ])
  }
}
