import DemoAPI
import Domain
import Foundation

/// `net`: NetworkController over real HTTP, against the embedded DemoAPI or another server.
enum NetGroup {
  static let group = CommandGroup(
    "net", summary: "send HTTP requests through NetworkController; see which API is in use",
    discussion: """
      The first command that needs the network starts the demo API inside archsh, on \
      127.0.0.1 and a free port, unless --api URL (or $ARCHSH_API) points at another server. \
      Responses follow the BDModules convention: {"code":"OK","data":...}, collections with \
      info{offset,count,total}, errors as {"code":...,"message":...}.
      """,
    commands: [api, get, log])

  static let api = Command(
    "api", summary: "show the base URL in use, starting the embedded API if needed",
    examples: ["net api"]
  ) { invocation in
    let endpoint = try invocation.session.api()
    return .record([
      Field("url", .string(endpoint.url.absoluteString)),
      Field(
        "server",
        .string(endpoint.isEmbedded ? "embedded DemoAPI" : "external (--api or ARCHSH_API)")),
    ])
  }

  static let get = Command(
    "get", summary: "GET a path and show the status, bytes, time and decoded envelope",
    discussion:
      "With --full, also the response headers and the raw body. An error status fails the command with the API's code and message.",
    signature: Signature([
      .argument("PATH", .text, "a path such as /products/42, or a full URL"),
      .flag("full", "also show the headers and the raw body"),
    ]),
    examples: ["net get /products/1", "net get '/products?offset=0&limit=3' --full"]
  ) { invocation in
    let path = invocation.arguments.word("PATH") ?? Word("")
    let controller = try invocation.session.networkController()
    let response = controller.perform(NetworkRequest(path: path.text))
    let body = response.data ?? Data()
    var fields = [
      Field("request", .string("GET \(response.response?.url?.absoluteString ?? path.text)")),
      Field("status", response.response.map { .int($0.statusCode) } ?? .null),
      Field("bytes", .int(body.count)),
      Field(
        "time", .string(TraceRendering.formatDuration(UInt64(response.milliseconds * 1_000_000)))),
    ]
    if case .failure(let error) = response.result {
      throw ShellError(error.description, at: path.offset)
    }
    let envelope = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    if let code = envelope?["code"] as? String { fields.append(Field("code", .string(code))) }
    if let info = envelope?["info"] { fields.append(Field("info", .string(compactJSON(info)))) }
    if let data = envelope?["data"] { fields.append(Field("data", .string(compactJSON(data)))) }
    if invocation.arguments.flag("full") {
      let headers = (response.response?.allHeaderFields ?? [:]).map { "\($0.key): \($0.value)" }
        .sorted()
      fields.append(Field("headers", .string(headers.joined(separator: "\n"))))
      fields.append(Field("body", .string(String(decoding: body, as: UTF8.self))))
    }
    return .record(fields)
  }

  static let log = Command(
    "log", summary: "list the last requests: method, URL, status, bytes and time",
    examples: ["net log"]
  ) { invocation in
    let entries = invocation.session.networkLog()
    return .table(
      Table(
        columns: ["method", "url", "status", "bytes", "ms"],
        rows: entries.map { entry in
          [
            .string(entry.method), .string(entry.url), entry.status.map(Value.int) ?? .null,
            .int(entry.bytes),
            .string(String(format: "%.2f", entry.milliseconds)),
          ]
        }))
  }

  /// JSON text on one line, keys sorted, for display.
  static func compactJSON(_ value: Any) -> String {
    guard JSONSerialization.isValidJSONObject(value),
      let data = try? JSONSerialization.data(
        withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
    else { return String(describing: value) }
    return String(decoding: data, as: UTF8.self)
  }
}

extension Builtins {
  static let serve = Command(
    "serve", summary: "run the demo API on its own, for curl, until Ctrl-C",
    discussion:
      "Listens on 127.0.0.1 only. Port 0 picks a free port; the URL is printed when the server is ready.",
    signature: Signature([
      .option("port", .integer(0...65535), value: "N", "the port", default: "8080"),
      .option(
        "catalog-size", .integer(15...1_000_000), value: "N", "how many products", default: "100"),
    ]),
    examples: ["serve", "serve --port 0 --catalog-size 10000"]
  ) { invocation in
    let server: DemoAPI
    do {
      server = try DemoAPI.start(
        port: invocation.arguments.int("port") ?? 8080,
        catalogSize: invocation.arguments.int("catalog-size") ?? 100)
    } catch {
      throw ShellError(String(describing: error), hint: "is the port in use? try --port 0")
    }
    invocation.interpreter.announce(
      "serving the demo API at \(server.baseURL.absoluteString) (Ctrl-C stops it)")
    while !invocation.interpreter.interruptRequested() { Thread.sleep(forTimeInterval: 0.1) }
    server.stop()
    return .text("stopped")
  }
}
