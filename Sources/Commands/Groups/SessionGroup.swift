import DemoAPI
import Domain
import Foundation
import Plumbing

/// `session`: BDModules' APISessionManager: `performRequest` against the dynamic base URL.
enum SessionGroup {
  static let group = CommandGroup(
    "session", summary: "send any request through APISessionManager (BDModules)",
    from: [.bdModules],
    discussion: """
      Every request of BDModules goes through APISessionManager's performRequest(method:path:\
      parameters:headers:files:), which returns the task suspended; 'session request' resumes it \
      and waits. Paths are relative to dynamicBaseURL. Parameters go in the query for GET, HEAD \
      and DELETE and in a JSON body otherwise; files go as multipart parts beside them. A \
      redirect's Location swaps dynamicBaseURL for the session manager and for APIFactory, as \
      the seed's redirection block does ('net fault GET /echo --redirect /v2' shows it). The \
      demo API's /echo answers with what it received. Each request is logged under the tag API: \
      [REQUEST], [REDIRECT] and [RESPONSE] at Info, failures at Warning ('log show --tag API').

      Departures from the original: the seed's redirection block swaps the base URL for every \
      redirect, to any origin, and returns the request unchanged for the session to follow. A \
      server is not always a friend, so \
      archsh follows redirects by the rules of curl, Python's requests and URLSession's \
      defaults: only 301, 302, 303, 307 and 308, at most 10; 303, and 301 or 302 after a POST, \
      become a GET without a body; a redirect to another origin (scheme, host or port) drops \
      Authorization, Proxy-Authorization, Cookie, X-API-Key and X-Auth-Token, and does not swap \
      dynamicBaseURL (only a same-origin redirect does); https never redirects to http; and the \
      OAuth2 token endpoint follows no redirect at all, so that a password or refresh token \
      goes only where it was sent. A credential sent over plain http:// to a host that is not \
      this machine gets a warning, once.
      """,
    commands: [request, base],
    hints: hint(for:))

  /// The shell's hints for APISessionError.
  static func hint(for error: Error) -> String? {
    guard case APISessionError.filesNeedBody = error else { return nil }
    return "send files with POST, PUT or PATCH"
  }
  /// `request METHOD`.
  static let methodArgument = Argument(
    "METHOD", Kind<APISessionManager.Method>.choice, "the HTTP method")
  /// `request PATH`.
  static let pathArgument = Argument(
    "PATH", .text, "relative to dynamicBaseURL, such as /echo",
    completion: Completions.requestPaths
  ).concerning(.value)
  /// `request -p KEY=VALUE`.
  static let parameterOption = Many.option(
    "param", short: "p", .text, value: "KEY=VALUE", "a parameter (query or JSON body)")
  /// `request -H NAME:VALUE`.
  static let headerOption = Many.option(
    "header", short: "H", .text, value: "NAME:VALUE",
    "a request header; an Authorization, Proxy-Authorization or Cookie header is a secret"
  ).secret { header in
    Redaction.isSecretHeader(
      String(header.prefix { $0 != ":" }).trimmingCharacters(in: .whitespaces))
  }
  /// `request --file NAME=@PATH[;type=MIME]`.
  static let fileOption = Many.option(
    "file", .text, value: "NAME=@PATH[;type=MIME]",
    "a file sent as a multipart part; quote it when it has ;type=")
  /// `request --auth`.
  static let authFlag = Flag(
    "auth", "send the stored bearer token through OAuth2Authorization (refresh and replay on 401)")
  /// `request --json`.
  static let jsonFlag = Flag("json", "print the whole response as JSON")
  /// `base [URL|reset]`.
  static let baseArgument = Option.argument(
    "URL", .text, "a new dynamic base URL, or 'reset' for the one archsh started with")

  static let request = Command(
    "request", summary: "performRequest: send METHOD PATH and show the response",
    discussion: """
      Prints the request line, the status, how long it took, the response headers and the \
      decoded body; --json prints the whole response, headers and body included. --auth sends \
      it through OAuth2Authorization with the stored credential, so an expired token is \
      refreshed and the request replayed once. The Authorization header is only ever shown \
      redacted. A file part's type is guessed from its extension unless ;type=MIME gives it.
      """,
    signature: Signature([
      methodArgument, pathArgument, parameterOption, headerOption, fileOption, authFlag, jsonFlag,
    ]),
    examples: [
      "session request GET /echo -p q=swift -p page=2",
      "session request POST /echo -p name=Ada -H X-Trace:on",
      "session request POST /echo --file image=@photo.png",
      "session request GET /users/me --auth",
      "session request GET /echo --json",
    ],
    result: .oneOf([
      .record([
        "request", "status", "milliseconds", "request_headers", "headers", "body",
        "dynamic_base_url",
      ])
    ])
  ) { invocation in
    let verb = try invocation[methodArgument]
    let path = try invocation[pathArgument]
    let parameters = try invocation[parameterOption].map { try pair($0, separator: "=") }
    let headers = try invocation[headerOption].map { try header($0) }
    let files = try invocation[fileOption].map { try file($0, paths: invocation.paths) }
    let api = invocation.session.factory.api
    let manager = try api.apiSessionManager()
    let response: APIResponse
    if invocation[authFlag] {
      let outcome = try api.oAuth2Authorization.performAndWait(
        "\(verb.rawValue) \(path.text)", isCancelled: invocation.session.interruptCheck,
        makeTask: OAuth2Authorization.request(
          manager, method: verb, path: path.text, parameters: parameters, headers: headers,
          files: files))
      response = try outcome.get()
    } else {
      let task = try manager.performRequest(
        method: verb, path: path.text, parameters: parameters, headers: headers, files: files)
      guard let answered = task.wait(isCancelled: invocation.session.interruptCheck) else {
        throw ShellError("the request ended without a response")
      }
      response = answered
    }
    if let error = response.error { throw error }
    return output(response, whole: invocation[jsonFlag])
  }

  static let base = Command(
    "base", summary: "show or set the dynamic base URL new session managers start from",
    discussion: """
      A redirect swaps it, as the seed's redirection block does; 'session base reset' goes back \
      to the base URL archsh started with. NetworkController (the Lickability controllers) keeps \
      the base URL it was built with.
      """,
    signature: Signature([baseArgument]),
    examples: ["session base", "session base reset", "session base http://127.0.0.1:8080/v2"],
    result: .record(["dynamic_base_url", "started_with", "swapped"])
  ) { invocation in
    let api = invocation.session.factory.api
    if let given = invocation[baseArgument] {
      if given.text == "reset" {
        api.dynamicBaseURL = nil
      } else {
        guard let url = URL(string: given.text), url.scheme == "http", url.host != nil else {
          throw ShellError(
            "'\(given.text)' is not an http URL", hint: "for example http://127.0.0.1:8080/v2",
            at: given.offset)
        }
        guard url.password == nil else {
          throw ShellError(
            "'\(TerminalText.escaped(Redaction.url(given.text)))' cannot be the base URL: "
              + Redaction.urlPasswordReason, hint: "for example http://127.0.0.1:8080/v2",
            at: given.offset)
        }
        guard (try? HTTPTransport.canonicalHost(of: url)) != nil else {
          throw ShellError(
            "the host of '\(TerminalText.escaped(given.text))' is not a plain ASCII name or address",
            hint: "a percent-escape, a space or a control byte is refused", at: given.offset)
        }
        api.dynamicBaseURL = url
      }
    }
    let configured = try api.configuredBaseURL().url
    let current = try api.baseURL().url
    return .record([
      Field("dynamic_base_url", .string(current.absoluteString)),
      Field("started_with", .string(configured.absoluteString)),
      Field(
        "swapped", .bool(current.absoluteString != configured.absoluteString)),
    ])
  }

  // MARK: - Helpers

  /// `KEY=VALUE`, split at the first separator.
  static func pair(_ word: Word, separator: Character) throws -> (key: String, value: String) {
    guard let index = word.text.firstIndex(of: separator), index != word.text.startIndex else {
      let example = separator == "=" ? "q=swift" : "Accept:application/json"
      throw ShellError(
        "'\(word.text)' is not \(separator == "=" ? "KEY=VALUE" : "NAME:VALUE")",
        hint: "for example \(example)", at: word.offset)
    }
    return (
      String(word.text[..<index]), String(word.text[word.text.index(after: index)...])
    )
  }

  /// `NAME:VALUE`, the name a valid header name.
  static func header(_ word: Word) throws -> (name: String, value: String) {
    let (name, value) = try pair(word, separator: ":")
    guard name.utf8.allSatisfy(HTTPTransport.isTokenByte) else {
      throw ShellError(
        "'\(name)' is not a header name", hint: "for example -H Accept:application/json",
        at: word.offset)
    }
    return (name, value.trimmingCharacters(in: .whitespaces))
  }

  /// `NAME=@PATH[;type=MIME]`, read from disk; a relative PATH starts where `paths` say.
  static func file(_ word: Word, paths: RelativePaths) throws -> FilePart {
    let (name, rest) = try pair(word, separator: "=")
    guard rest.hasPrefix("@") else {
      throw ShellError(
        "'\(word.text)' is not NAME=@PATH", hint: "for example image=@photo.png", at: word.offset)
    }
    var given = String(rest.dropFirst())
    var mimeType: String?
    if let range = given.range(of: ";type=") {
      mimeType = String(given[range.upperBound...])
      given = String(given[..<range.lowerBound])
    }
    let path = paths.resolve(given)
    guard let data = FileManager.default.contents(atPath: path) else {
      let exists = FileManager.default.fileExists(atPath: path)
      let shown = paths.shown(given)
      throw ShellError(
        exists ? "cannot read '\(shown)'" : "no file at '\(shown)'",
        hint: exists ? nil : paths.hint(for: given), at: word.offset + name.utf8.count + 2)
    }
    let fileName = (path as NSString).lastPathComponent
    return FilePart(
      data: data, name: name, fileName: fileName,
      mimeType: mimeType ?? Self.mimeType(forExtension: (fileName as NSString).pathExtension))
  }

  /// A MIME type for a file extension.
  static func mimeType(forExtension ext: String) -> String {
    switch ext.lowercased() {
    case "png": return "image/png"
    case "jpg", "jpeg": return "image/jpeg"
    case "gif": return "image/gif"
    case "json": return "application/json"
    case "txt", "ash", "md": return "text/plain"
    case "pdf": return "application/pdf"
    default: return "application/octet-stream"
    }
  }

  /// The response for people, or whole.
  static func output(_ response: APIResponse, whole: Bool) -> Output {
    let status = response.statusCode ?? 0
    let headers = Value.object(
      (response.head?.headers ?? []).map { Field($0.name, .string($0.value)) })
    let body = bodyValue(response.data)
    var fields = [
      Field("request", .string("\(response.method) \(response.url.absoluteString)")),
      Field("status", .int(status)),
      Field("milliseconds", .milliseconds(response.milliseconds)),
    ]
    if let base = response.redirectedBaseURL {
      fields.append(Field("dynamic_base_url", .string(base.absoluteString)))
    }
    let requestHeaders = Value.object(
      response.requestHeaders.map { Field($0.name, .string($0.value)) })
    let all =
      fields + [
        Field("request_headers", requestHeaders), Field("headers", headers), Field("body", body),
      ]
    if whole {
      return .view(text: JSONRenderer().render(.record(all)), data: .object(all))
    }
    let shownHeaders = (response.head?.headers ?? []).filter {
      $0.name.lowercased() != "date"
    }.map { "\($0.name): \($0.value)" }.joined(separator: "; ")
    fields.append(
      Field("headers", .excerpt(shown: TerminalText.escaped(shownHeaders), whole: headers)))
    fields.append(Field("body", body))
    return .record(fields)
  }

  /// A body as a value: its JSON, else its text, else its size.
  static func bodyValue(_ data: Data) -> Value {
    if data.isEmpty { return .null }
    if let json = try? StrictJSON.parse(data) {
      // People read the body as JSON, which says what each value is: an array keeps its
      // brackets and a string its quotes; what JSON leaves raw (DEL, C1 controls) is escaped for
      // the terminal. JSON output carries the same value, structured.
      let value = JSONRenderer.value(fromJSON: json)
      // A body the server wrote compactly is shown as it came: it is what writing would give.
      var text = ""
      if JSONRenderer.isWrittenForm(data) {
        text = String(decoding: data, as: UTF8.self)
      } else {
        text.reserveCapacity(data.count + 64)
        JSONRenderer.write(value, into: &text)
      }
      return .excerpt(shown: TerminalText.escaped(text), whole: value)
    }
    if let text = String(data: data, encoding: .utf8) {
      return .excerpt(shown: TerminalText.escaped(text), whole: .string(text))
    }
    return .string("\(data.count) bytes")
  }
}
