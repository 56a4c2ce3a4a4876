import DemoAPI
import Domain
import Foundation
import Plumbing

/// `net`: NetworkController over real HTTP, against the embedded DemoAPI or another server.
enum NetGroup {
  static let group = CommandGroup(
    "net", summary: "send HTTP requests through NetworkController; see which API is in use",
    from: [.lickability],
    discussion: """
      The first command that needs the network starts the demo API inside archsh, on \
      127.0.0.1 and a free port, unless --api URL (or $ARCHSH_API) points at another server. \
      Responses follow the BDModules convention: {"code":"OK","data":...}, collections with \
      info{offset,count,total}, errors as {"code":...,"message":...}.
      """,
    commands: [api, get, log, fault, faults, timeout, limits, locations],
    hints: hint(for:))

  /// The shell's hints for APIError: the API archsh talks to.
  static func hint(for error: Error) -> String? {
    guard let error = error as? APIError else { return nil }
    switch error {
    case .invalidBaseURL:
      return "for example --api https://api.example.com or http://127.0.0.1:8080"
    case .notEmbedded: return "start archsh without --api and ARCHSH_API"
    case .cannotStart, .invalidPath: return nil
    }
  }
  // MARK: - Parameters

  /// `net get PATH`.
  static let requestPathArgument = Argument(
    "PATH", .text, "a path such as /products/42, or a full URL",
    completion: Completions.requestPaths)
  /// `net get --full`.
  static let fullFlag = Flag("full", "also show the headers and the raw body")

  /// `net fault METHOD`, or `clear`.
  static let methodArgument = Argument(
    "METHOD", .text, "GET, POST, ... or *; or 'clear' to remove faults"
  ) { context in
    ["GET", "POST", "PUT", "DELETE", "*", "clear"].filter { $0.hasPrefix(context.prefix) }
  }
  /// `net fault METHOD PATH`, or `net fault clear [PATH]`.
  static let faultPathArgument = Option.argument(
    "PATH", .text, "the path, such as /products/42 or /products/*; after 'clear', whose faults go")
  /// `net fault clear PATH --method M`.
  static let clearMethodOption = Option(
    "method", .text, value: "METHOD", "with 'clear PATH': only the fault for this method")
  /// `net fault --status N`.
  static let statusOption = Option(
    "status", .integer(200...599), value: "N", "answer with this HTTP status (a final one)")
  /// `net fault --body TEXT`.
  static let bodyOption = Option(
    "body", .text, value: "TEXT", "the JSON body for --status; @FILE reads a file")
  /// `net fault --empty`.
  static let emptyFlag = Flag("empty", "answer 200 with an empty body")
  /// `net fault --malformed`.
  static let malformedFlag = Flag("malformed", "answer 200 with malformed JSON")
  /// `net fault --drop`.
  static let dropFlag = Flag("drop", "close the connection without answering")
  /// `net fault --redirect URL`.
  static let redirectOption = Option(
    "redirect", .text, value: "URL", "answer 307 with a Location on this base URL")
  /// `net fault --delay DURATION`.
  static let delayOption = Option("delay", .duration, "wait this long first")
  /// `net fault --after N`.
  static let afterOption = Option(
    "after", .integer(1...1_000_000), value: "N", "let N matching requests through first")
  /// `net fault --times N|always`.
  static let timesOption = Option(
    "times", .text, value: "N|always", "how many requests it applies to", default: "1")

  /// `net locations [N]`.
  static let locationsCountArgument = Option.argument(
    "N", .integer(0...10_000_000), "how many favourite locations the demo user has")
  /// `net locations --add K`.
  static let locationsAddOption = Option(
    "add", .integer(1...1_000_000), value: "K", "insert K new locations at the top")

  static let locations = Command(
    "locations", summary: "show or set how many favourite locations the embedded API serves",
    discussion: """
      The demo user's locations have paging ids 1...N (the newest highest) and are computed, not \
      stored, so a million cost nothing and any page costs what the first does. --add inserts new \
      ones at the top, for Realtime paging to pick up.
      """,
    signature: Signature([locationsCountArgument, locationsAddOption]),
    examples: ["net locations", "net locations 1000000", "net locations --add 3"],
    result: .record(["favourite_locations"])
  ) { invocation in
    guard let server = try invocation.session.factory.api.embeddedAPI as? DemoAPI else {
      throw ShellError("the embedded demo API is not running")
    }
    if let count = invocation[locationsCountArgument] { server.locations.count = count }
    if let added = invocation[locationsAddOption] { server.locations.insert(added) }
    return .sentence(
      "the demo user has \(plural(server.locations.count, "favourite location"))",
      [Field("favourite_locations", .int(server.locations.count))])
  }

  /// `net limits --body SIZE`.
  static let bodyLimitOption = Option(
    "body", .bytes, value: "SIZE", "the largest response body read, such as 64MB")

  /// How much of a body `net get --full` shows at the terminal; `--json` carries all of it.
  static let shownBodyBytes = 16 * 1024

  static let limits = Command(
    "limits", summary: "show or set the limits every HTTP response is held to",
    discussion: """
      A server may be hostile or broken, so every response is held to limits, each named in the \
      error that stops a response past it: a head (status line and header fields) of at most \
      80 KiB and 100 fields, and a body of at most 64 MiB by default, whatever its framing \
      (Content-Length, chunked, or read to the close). --body changes the body limit for this \
      session. Redirects (APISessionManager only) stop after 10.
      """,
    signature: Signature([bodyLimitOption]),
    examples: ["net limits", "net limits --body 256MB"],
    result: .record(["head_bytes", "header_fields", "body_bytes", "redirects"])
  ) { invocation in
    if let bytes = invocation[bodyLimitOption] {
      guard bytes > 0 else {
        throw ShellError(
          "the body limit must be at least 1 byte",
          hint: "for example 64MB", at: invocation.word(for: bodyLimitOption)?.offset)
      }
      HTTPLimits.bodyBytes = bytes
    }
    return .record([
      Field(
        "head_bytes",
        .excerpt(
          shown: HTTPLimits.describe(HTTPLimits.headBytes), whole: .int(HTTPLimits.headBytes))),
      Field("header_fields", .int(HTTPLimits.headerFields)),
      Field(
        "body_bytes",
        .excerpt(
          shown: HTTPLimits.describe(HTTPLimits.bodyBytes), whole: .int(HTTPLimits.bodyBytes))),
      Field("redirects", .int(HTTPLimits.redirects)),
    ])
  }

  /// `net timeout DURATION`.
  static let durationArgument = Option.argument(
    "DURATION", .duration(atMost: 86_400), "such as 500ms or 10s (at most a day)")

  // MARK: - Commands

  static let api = Command(
    "api", summary: "show the base URL in use, starting the embedded API if needed",
    examples: ["net api"], result: .record(["url", "server"])
  ) { invocation in
    let endpoint = try invocation.session.factory.api.baseURL()
    return .record([
      Field("url", .string(Redaction.url(endpoint.url.absoluteString))),
      Field(
        "server",
        .string(endpoint.isEmbedded ? "embedded DemoAPI" : "external (--api or ARCHSH_API)")),
    ])
  }

  static let get = Command(
    "get", summary: "GET a path and show the status, bytes, time and decoded envelope",
    discussion:
      """
      NetworkController (seed 000) has two calls. performRequest(_:completionQueue:completion:) \
      completes with a Result: the decoded value or the error, nothing else. \
      performFullResponseRequest completes with a NetworkResponse (the HTTP response, the data \
      and the result) and returns the URLSessionTask, so that the caller can cancel or suspend \
      it. 'net get' shows more than the plain call gives (the status, bytes and time, for \
      learning); --full is the full variant: it adds the response headers, the raw body and the \
      task, numbered per controller as taskIdentifier is. In the seed the task's cancel() ends \
      the request and the completion gets the error; here Ctrl-C while a request waits does \
      it ('the request to URL was cancelled'). A body that is not JSON shows where it breaks \
      (json_error). An error status fails the command with the API's code and message.
      """,
    signature: Signature([requestPathArgument, fullFlag]),
    examples: ["net get /products/1", "net get '/products?offset=0&limit=3' --full"],
    result: .oneOf([
      .record(["request", "status", "bytes", "milliseconds", "code", "info", "data", "json_error"]),
      .record([
        "request", "status", "bytes", "milliseconds", "code", "info", "data", "json_error",
        "headers",
        "body", "task",
      ]),
    ])
  ) { invocation in
    let path = try invocation[requestPathArgument]
    let controller = try invocation.session.factory.api.networkController
    let response = controller.perform(NetworkRequest(path: path.text))
    let body = response.data ?? Data()
    var fields = [
      Field("request", .string("GET \(response.response?.url.absoluteString ?? path.text)")),
      Field("status", response.response.map { .int($0.statusCode) } ?? .null),
      Field("bytes", .int(body.count)),
      Field("milliseconds", .milliseconds(response.milliseconds)),
    ]
    if case .failure(let error) = response.result {
      throw ShellError(error.description, at: path.offset)
    }
    // archsh's own JSON reader and writer, not Foundation's JSONSerialization, which is slow to
    // parse a body and write it again with sorted keys.
    let envelope: JSONValue?
    var jsonError: String?
    do {
      envelope = try StrictJSON.parse(body)
    } catch {
      envelope = nil
      // Where a body that is not JSON breaks; an empty body is only empty.
      if !body.isEmpty { jsonError = String(describing: error) }
    }
    let serializer = invocation.session.factory.json.serializer(pretty: false)
    // On one line, members sorted by the code points of their names (JSONSerialization sorted
    // them case-insensitively, with numbers by value), numbers as the server wrote them.
    // JSON escapes C0 controls; DEL and C1 controls (U+009B starts an escape sequence too) are
    // escaped for the terminal as well. JSON carries the text whole.
    func compact(_ value: JSONValue) -> Value {
      let text = serializer.string(value.sortingMembers())
      return .excerpt(shown: TerminalText.escaped(text), whole: .string(text))
    }
    if case .string(let code)? = envelope?["code"] {
      fields.append(
        Field("code", .excerpt(shown: TerminalText.escaped(code), whole: .string(code))))
    }
    if let info = envelope?["info"] { fields.append(Field("info", compact(info))) }
    if let data = envelope?["data"] { fields.append(Field("data", compact(data))) }
    if let jsonError { fields.append(Field("json_error", .string(jsonError))) }
    if invocation[fullFlag] {
      let headers = (response.response?.headers ?? []).map { "\($0.name): \($0.value)" }
        .sorted().joined(separator: "\n")
      fields.append(
        Field(
          "headers",
          .excerpt(
            shown: TerminalText.escaped(headers, keepingLines: true), whole: .string(headers))
        ))
      fields.append(Field("body", shownBody(body)))
      fields.append(
        Field(
          "task",
          .excerpt(
            shown:
              "URLSessionTask \(response.taskIdentifier), completed (returned by the full variant; Ctrl-C while a request waits is its cancel())",
            whole: .object([
              Field("task_identifier", .int(response.taskIdentifier)),
              Field("state", .string("completed")),
            ]))))
    }
    return .record(fields)
  }

  /// A raw body as `--full` shows it: control bytes escaped, so that a server cannot set the
  /// terminal's title or colours, and a large body cut short with a note; JSON carries it whole.
  static func shownBody(_ body: Data) -> Value {
    let whole = String(decoding: body, as: UTF8.self)
    var shown = TerminalText.escaped(
      String(decoding: body.prefix(shownBodyBytes), as: UTF8.self), keepingLines: true)
    if body.count > shownBodyBytes {
      shown +=
        "\n… (the first \(shownBodyBytes / 1024) KiB of \(body.count) bytes; --json carries them all)"
    }
    return shown == whole ? .string(whole) : .excerpt(shown: shown, whole: .string(whole))
  }

  static let log = Command(
    "log",
    summary:
      "list NetworkController's last requests: method, URL, status, bytes, time and connection",
    discussion: """
      Only the requests NetworkController sent: 'net get', 'product update' and 'product \
      list'. APISessionManager's exchanges, and OAuth2Authorization's through it ('session \
      request', 'auth', 'user', 'repo', 'client', 'api lint'), are in 'log show --tag API' \
      and on the board's Network panel. The connection is 'new', or 'reused' when the request went over a connection kept open \
      from an earlier one (keep-alive: at most 4 idle connections per server, 16 in all). \
      --no-timings leaves the time out, so that the list is the same on every run, as in a \
      transcript.
      """,
    signature: Signature([logNoTimingsFlag]),
    examples: ["net log", "net log --no-timings"],
    result: .rows(["method", "url", "status", "bytes", "ms", "connection"])
  ) { invocation in
    let entries = invocation.session.factory.api.networkLog
    let timed = !invocation[logNoTimingsFlag]
    return .table(
      Table(
        columns: ["method", "url", "status", "bytes"] + (timed ? ["ms"] : []) + ["connection"],
        rows: entries.map { entry in
          [
            .string(entry.method), .string(entry.url),
            entry.status.map(Value.int) ?? .string(entry.outcome),
            .int(entry.bytes),
          ]
            + (timed
              ? [
                .excerpt(
                  shown: String(format: "%.2f", entry.milliseconds),
                  whole: .double(entry.milliseconds))
              ] : [])
            + [.string(entry.reusedConnection ? "reused" : "new")]
        }))
  }

  /// `log --no-timings`.
  static let logNoTimingsFlag = Flag(
    "no-timings", "leave the times out, so that the list is the same on every run")

  static let fault = Command(
    "fault", summary: "make the embedded API fail matching requests; 'net fault clear' removes all",
    discussion: """
      The fault is injected on the server side, so the error travels over real HTTP. Choose one \
      of --status N (with an optional --body JSON or @FILE, checked as strict JSON; by default a \
      BDModules error envelope), --empty (200 with no body), --malformed (200 with JSON cut short) or --drop \
      (the connection closes without an answer) or --redirect URL (307 with Location: URL and the \
      path asked for; a URL that is a path, such as \(DemoAPI.secondBasePath), stays on this \
      server; the API also answers under \(DemoAPI.secondBasePath), so a redirect to \
      its own base URL plus \(DemoAPI.secondBasePath) keeps working, and 'session base' shows \
      the swapped base URL); --delay alone answers normally, late. PATH is \
      matched without the query; a trailing * matches a prefix. METHOD * matches any method. A \
      fault applies to the next request only, unless --times says otherwise ('always' keeps it \
      until 'net fault clear'). The first fault added that matches applies. 'net fault clear' \
      removes every fault; 'net fault clear PATH' removes those added for PATH (written as it was \
      added, such as /products/*), and --method M only the one for method M.
      """,
    signature: Signature([
      methodArgument, faultPathArgument, statusOption, bodyOption, emptyFlag, malformedFlag,
      dropFlag, redirectOption, delayOption, timesOption, afterOption, clearMethodOption,
    ]),
    examples: [
      "net fault GET /products/42 --status 503",
      "net fault GET /products/* --drop --times 2",
      "net fault GET /products/1 --delay 2s",
      "net fault GET /echo --redirect /v2",
      "net fault GET /users/me/locations --status 500 --after 2",
      "net fault clear /products/42",
      "net fault clear /products/* --method GET",
      "net fault clear",
    ],
    result: .oneOf([
      .record(["method", "path", "fault", "times", "after"]), .record(["removed", "count"]),
    ])
  ) { invocation in
    let method = try invocation[methodArgument]
    if method.text == "clear" { return try clearFaults(invocation) }
    if let only = invocation[clearMethodOption] {
      throw ShellError(
        "--method goes with 'net fault clear PATH'",
        hint: "the fault's method is the word after 'net fault'", at: only.offset)
    }
    guard let path = invocation[faultPathArgument] else {
      throw ShellError(
        "net fault needs a PATH after \(method.text)",
        hint: "for example 'net fault GET /products/42 --status 503'", at: method.offset)
    }
    guard path.text.hasPrefix("/") else {
      throw ShellError(
        "the path must start with '/'", hint: "for example /products/42", at: path.offset)
    }
    guard method.text == "*" || method.text.allSatisfy({ $0.isLetter }) else {
      throw ShellError(
        "'\(method.text)' is not an HTTP method", hint: "for example GET", at: method.offset)
    }
    var kinds: [Fault.Kind] = []
    if let status = invocation[statusOption] {
      let body = try invocation[bodyOption].map {
        String(
          decoding: try ValueInput.json($0, what: "the body", paths: invocation.paths).data,
          as: UTF8.self)
      }
      kinds.append(.status(status, body: body))
    } else if let body = invocation[bodyOption] {
      throw ShellError("--body goes with --status", hint: "add --status N", at: body.offset)
    }
    if invocation[emptyFlag] { kinds.append(.empty) }
    if invocation[malformedFlag] { kinds.append(.malformed) }
    if invocation[dropFlag] { kinds.append(.drop) }
    if let target = invocation[redirectOption] {
      let isPath = target.text.hasPrefix("/")
      guard
        isPath || URL(string: target.text).map({ $0.scheme == "http" && $0.host != nil }) == true
      else {
        throw ShellError(
          "'\(target.text)' is neither an http URL nor a path on this server",
          hint: "for example 'net fault GET /echo --redirect \(DemoAPI.secondBasePath)'",
          at: target.offset)
      }
      kinds.append(.redirect(target.text))
    }
    let delay = invocation[delayOption] ?? 0
    if kinds.isEmpty && delay > 0 { kinds.append(.delayOnly) }
    guard kinds.count == 1, let kind = kinds.first else {
      throw ShellError(
        kinds.isEmpty
          ? "net fault needs what to do"
          : "choose one of --status, --empty, --malformed, --drop and --redirect",
        hint: "--status N, --empty, --malformed, --drop, --redirect URL, or --delay alone",
        at: path.offset)
    }
    let timesWord = invocation[timesOption]
    let times: Int?
    switch timesWord?.text ?? "1" {
    case "always": times = nil
    case let text:
      guard let count = Int(text), count >= 1 else {
        throw ShellError(
          "--times takes a count of 1 or more, or 'always'", at: timesWord?.offset)
      }
      times = count
    }
    let after = invocation[afterOption] ?? 0
    let added = Fault(
      method: method.text, path: path.text, kind: kind, delay: delay, times: times, after: after)
    try faultTable(invocation.session).add(added)
    let scope =
      times.map { $0 == 1 ? "the next request" : "the next \($0) requests" }
      ?? "every request until 'net fault clear'"
    let start = after > 0 ? " after \(plural(after, "request")) answered normally" : ""
    return .sentence(
      "fault added: \(added.method) \(added.path) → \(summary(added)), for \(scope)\(start)",
      [
        Field("method", .string(added.method)), Field("path", .string(added.path)),
        Field("fault", .string(summary(added))), Field("times", times.map(Value.int) ?? .null),
        Field("after", .int(after)),
      ])
  }

  /// `net fault clear [PATH [--method M]]`: every fault, or those added for PATH.
  static func clearFaults(_ invocation: Invocation) throws -> Output {
    let table = try faultTable(invocation.session)
    let only = invocation[clearMethodOption]
    guard let path = invocation[faultPathArgument] else {
      if let only {
        throw ShellError(
          "--method needs the PATH of the fault to clear",
          hint: "for example 'net fault clear /products/42 --method GET'", at: only.offset)
      }
      let cleared = table.active
      let count = table.clear()
      return .sentence(
        count == 1 ? "removed 1 fault" : "removed \(count) faults",
        [Field("removed", faultList(cleared)), Field("count", .int(count))])
    }
    let removed = table.clear(path: path.text, method: only?.text)
    guard !removed.isEmpty else {
      let paths = Array(Set(table.active.map(\.path))).sorted()
      let which = only.map { "no \($0.text.uppercased()) fault" } ?? "no fault"
      throw ShellError(
        "\(which) for '\(path.text)'",
        hint: ShellError.didYouMean(path.text, among: paths)
          ?? (paths.isEmpty ? "no fault is set" : "'net faults' lists them"),
        at: path.offset)
    }
    let names = removed.map { "\($0.method) \($0.path)" }.joined(separator: ", ")
    return .sentence(
      "removed \(plural(removed.count, "fault")): \(names)",
      [
        Field("removed", faultList(removed)), Field("count", .int(removed.count)),
      ])
  }

  static let faults = Command(
    "faults", summary: "list the faults the embedded API still injects",
    examples: ["net faults"],
    result: .rows(["method", "path", "fault", "remaining", "hits"])
  ) { invocation in
    let table = try faultTable(invocation.session)
    return .table(
      Table(
        columns: ["method", "path", "fault", "remaining", "hits"],
        rows: table.active.map { fault in
          [
            .string(fault.method), .string(fault.path), .string(summary(fault)),
            fault.remaining.map(Value.int) ?? .string("always"), .int(fault.hits),
          ]
        }))
  }

  static let timeout = Command(
    "timeout", summary: "show or set how long a request may take before it fails",
    discussion:
      "5s by default. A request past it fails with 'timed out'; Ctrl-C cancels one at once.",
    signature: Signature([durationArgument]),
    examples: ["net timeout", "net timeout 500ms"], result: .record(["timeout_seconds"])
  ) { invocation in
    if let seconds = invocation[durationArgument] {
      guard seconds > 0 else {
        throw ShellError(
          "the timeout must be longer than 0", at: invocation.word(for: durationArgument)?.offset)
      }
      invocation.session.factory.api.timeout = seconds
    }
    let timeout = invocation.session.factory.api.timeout
    return .sentence(
      "requests time out after \(Quantities.format(duration: timeout))",
      [Field("timeout_seconds", .double(timeout))])
  }

  /// Faults as a list of their methods and paths, for `--json`.
  static func faultList(_ faults: [Fault]) -> Value {
    .list(
      faults.map {
        .object([Field("method", .string($0.method)), Field("path", .string($0.path))])
      })
  }

  /// A fault in words, such as `status 503` or `drop the connection after 2s`.
  static func summary(_ fault: Fault) -> String {
    var text: String
    switch fault.kind {
    case .status(let status, let body):
      text = "status \(status)" + (body == nil ? "" : " with a body")
    case .empty: text = "empty body"
    case .malformed: text = "malformed JSON"
    case .drop: text = "drop the connection"
    case .delayOnly: text = "answer normally"
    case .redirect(let base): text = "redirect to \(base)"
    }
    if fault.delay > 0 { text += " after \(Quantities.format(duration: fault.delay))" }
    return text
  }

  /// The faults the embedded demo API injects, starting it if needed; an error against `--api`.
  static func faultTable(_ session: Session) throws -> FaultTable {
    guard let server = try session.factory.api.embeddedAPI as? DemoAPI else {
      throw ShellError("the embedded demo API is not running")
    }
    return server.faults
  }
}
