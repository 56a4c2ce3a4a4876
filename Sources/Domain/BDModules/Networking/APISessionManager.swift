import Foundation
import Plumbing
import Synchronization

/// A file sent as one part of a multipart upload (BDModules' `MultipartFile`).
public protocol MultipartFile: Sendable {
  /// The bytes.
  var data: Data { get }
  /// The form field it is sent as.
  var name: String { get }
  /// The file name the part carries.
  var fileName: String { get }
  /// Its MIME type.
  var mimeType: String { get }
}

/// A file read from disk, or any bytes, to upload.
public struct FilePart: MultipartFile, Equatable {
  /// The bytes.
  public let data: Data
  /// The form field.
  public let name: String
  /// The file name.
  public let fileName: String
  /// The MIME type.
  public let mimeType: String

  /// Creates a part.
  public init(data: Data, name: String, fileName: String, mimeType: String) {
    self.data = data
    self.name = name
    self.fileName = fileName
    self.mimeType = mimeType
  }
}

/// Why `performRequest` could not make a request.
public enum APISessionError: Error, Equatable, CustomStringConvertible, SubjectError {
  /// The path does not make a URL on the base URL.
  case invalidPath(String)
  /// Files were given to a method that sends no body.
  case filesNeedBody(method: String)

  /// A one-line description.
  public var description: String {
    switch self {
    case .invalidPath(let path): return "'\(path)' does not make a URL"
    case .filesNeedBody(let method):
      return "\(method) sends its parameters in the query, so it cannot carry files"
    }
  }

  /// The input the error concerns: the path, or the method that cannot carry files.
  public var subject: ErrorSubject? {
    switch self {
    case .invalidPath(let path): return ErrorSubject(.value, path)
    case .filesNeedBody(let method): return ErrorSubject(.value, method)
    }
  }
}

/// What one `performRequest` got back: the request as sent, and the response or why there is
/// none.
public struct APIResponse: Sendable {
  /// The method.
  public let method: String
  /// The URL the request went to last (after any redirect).
  public let url: URL
  /// The headers sent, the `Authorization` value redacted.
  public let requestHeaders: [NetworkHeader]
  /// The response head, when a response arrived.
  public let head: NetworkResponseHead?
  /// The body (empty when there was none).
  public let data: Data
  /// Why no response arrived.
  public let error: NetworkError?
  /// How long the whole exchange took, redirects included.
  public let milliseconds: Double
  /// The base URL a redirect swapped in, if one did.
  public let redirectedBaseURL: URL?

  /// The HTTP status, when a response arrived.
  public var statusCode: Int? { head?.statusCode }

  /// The response as a result: a 2xx body, or the error the API or the transport gave.
  public var result: Result<Data, NetworkError> {
    if let error { return .failure(error) }
    guard let head, (200..<300).contains(head.statusCode) else {
      return .failure(NetworkController.httpError(status: head?.statusCode ?? 0, data: data))
    }
    return .success(data)
  }
}

/// One request made by `performRequest`: created suspended, started by `resume()`, as a
/// URLSession data task is.
public final class APISessionTask: @unchecked Sendable {
  // @unchecked: `start` is not Sendable; it is called once, by `resume()` or `wait()`, as
  // `progress` decides.
  /// Where a task is in its life.
  public enum State: Sendable, Equatable {
    /// Created, not started.
    case suspended
    /// Sent, waiting for the response.
    case running
    /// The handler has run.
    case completed
  }

  /// The method.
  public let method: APISessionManager.Method
  /// The URL it goes to.
  public let url: URL
  private let done = DispatchSemaphore(value: 0)
  /// Where the task is, its response once there is one, and whether it runs on the thread that
  /// waits for it.
  private let progress = Mutex(
    (state: State.suspended, response: APIResponse?.none, runsOnWaitingThread: false))
  /// Stops the exchange in flight, whichever hop of a redirect it is on.
  let control = ExchangeControl()
  private let start: (APISessionTask) -> Void
  private let handler: @Sendable (APIResponse) -> Void

  init(
    method: APISessionManager.Method, url: URL, start: @escaping (APISessionTask) -> Void,
    handler: @escaping @Sendable (APIResponse) -> Void
  ) {
    self.method = method
    self.url = url
    self.start = start
    self.handler = handler
  }

  /// Where the task is.
  public var state: State { progress.withLock { $0.state } }

  /// The response, once completed.
  public var response: APIResponse? { progress.withLock { $0.response } }

  /// Starts the request; calling it again does nothing.
  public func resume() {
    let isNew = progress.withLock { progress in
      guard progress.state == .suspended else { return false }
      progress.state = .running
      return true
    }
    if isNew { start(self) }
  }

  /// Cancels the request: it completes with `cancelled`.
  public func cancel() { control.cancel() }

  /// Whether the request runs on the thread that waits for it, instead of one of its own.
  var runsOnWaitingThread: Bool { progress.withLock { $0.runsOnWaitingThread } }

  /// Waits for the response, cancelling the task when `isCancelled` turns true (Ctrl-C).
  ///
  /// A suspended task runs on this thread, which would only wait for it: no other thread is
  /// woken to send it. A running one is waited for.
  @discardableResult
  public func wait(isCancelled: @escaping @Sendable () -> Bool = { false }) -> APIResponse? {
    let runsHere = progress.withLock { progress in
      guard progress.state == .suspended else { return false }
      progress.state = .running
      progress.runsOnWaitingThread = true
      return true
    }
    if runsHere {
      control.alsoCancelWhen(isCancelled)
      start(self)
      return response
    }
    while done.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
      if isCancelled() { cancel() }
    }
    done.signal()
    return response
  }

  func complete(_ response: APIResponse) {
    progress.withLock { $0.response = response }
    handler(response)
    progress.withLock { $0.state = .completed }
    done.signal()
  }
}

/// Sends the API's requests relative to a base URL that a redirect can change, after BDModules'
/// `APISessionManager`: every request of the API goes through `performRequest`.
///
/// Parameters go in the query for GET, HEAD and DELETE and in a JSON body otherwise; files go as
/// multipart parts, with the parameters as text parts beside them. Each request is logged:
/// `[REQUEST]` and `[RESPONSE]` at Info, failures at Warning, the `Authorization` value redacted.
public final class APISessionManager: Sendable {
  /// The HTTP methods the seed has.
  public enum Method: String, CaseIterable, Sendable {
    /// `HEAD`.
    case head = "HEAD"
    /// `GET`.
    case get = "GET"
    /// `PUT`.
    case put = "PUT"
    /// `POST`.
    case post = "POST"
    /// `PATCH`.
    case patch = "PATCH"
    /// `DELETE`.
    case delete = "DELETE"

    /// Whether its parameters go in the query rather than a body.
    public var sendsParametersInQuery: Bool { self == .get || self == .head || self == .delete }
  }

  private let storedBaseURL: Mutex<URL>
  private let storedRedirectionHandler = Mutex<(@Sendable (URL) -> Void)?>(nil)
  private let timeout: Double
  private let logger: Logger?
  private let tracer: Tracer
  /// Told about a redirect's new base URL: the seed's redirection block, which swaps the
  /// factory's base URL too.
  public var redirectionHandler: (@Sendable (URL) -> Void)? {
    get { storedRedirectionHandler.withLock { $0 } }
    set { storedRedirectionHandler.withLock { $0 = newValue } }
  }

  /// Creates a session manager on `dynamicBaseURL`.
  public init(dynamicBaseURL: URL, timeout: Double, logger: Logger?, tracer: Tracer) {
    self.storedBaseURL = Mutex(dynamicBaseURL)
    self.timeout = timeout
    self.logger = logger
    self.tracer = tracer
  }

  /// The base URL paths are relative to; a redirect's `Location` replaces it.
  public var dynamicBaseURL: URL {
    get { storedBaseURL.withLock { $0 } }
    set { storedBaseURL.withLock { $0 = newValue } }
  }

  /// Makes a request, returned suspended: `resume()` sends it, and `handler` gets the response
  /// on whatever thread it arrives.
  ///
  /// `parentSpan` is the trace span the request belongs under. With `followsRedirects` false (the
  /// token endpoint), a redirect is an error instead of a new request.
  public func performRequest(
    method: Method, path: String, parameters: [(key: String, value: String)] = [],
    headers: [(name: String, value: String)] = [], files: [any MultipartFile] = [],
    parentSpan: Span? = nil, followsRedirects: Bool = true,
    handler: @escaping @Sendable (APIResponse) -> Void = { _ in }
  ) throws(APISessionError) -> APISessionTask {
    guard var url = NetworkController.url(path, relativeTo: dynamicBaseURL) else {
      throw .invalidPath(path)
    }
    var sent = headers
    var body: Data?
    if method.sendsParametersInQuery {
      guard files.isEmpty else { throw .filesNeedBody(method: method.rawValue) }
      if !parameters.isEmpty {
        let query = parameters.map { "\(Self.encode($0.key))=\(Self.encode($0.value))" }
          .joined(separator: "&")
        guard
          let withQuery = URL(string: url.absoluteString + (url.query == nil ? "?" : "&") + query)
        else { throw .invalidPath(path) }
        url = withQuery
      }
    } else if !files.isEmpty {
      let boundary = Self.boundary(parameters: parameters, files: files)
      sent.append(("Content-Type", "multipart/form-data; boundary=\(boundary)"))
      body = Self.multipart(parameters: parameters, files: files, boundary: boundary)
    } else if !parameters.isEmpty {
      sent.append(("Content-Type", "application/json"))
      body = Self.json(parameters)
    }
    let requestHeaders = sent
    let requestBody = body
    return APISessionTask(
      method: method, url: url,
      start: { [self] task in
        send(
          task, url: url, headers: requestHeaders, body: requestBody, parentSpan: parentSpan,
          followsRedirects: followsRedirects, handler: handler)
      }, handler: handler)
  }

  // MARK: - Sending

  /// The threads requests run on when nobody waits for them on their own thread: at most 16, so
  /// that a burst of 1,000 makes 16 threads, not 1,000.
  static let requestThreads = WorkerPool(limit: 16)

  private func send(
    _ task: APISessionTask, url: URL, headers: [(name: String, value: String)], body: Data?,
    parentSpan: Span?, followsRedirects: Bool, handler: @escaping @Sendable (APIResponse) -> Void
  ) {
    let method = task.method.rawValue
    let role = HTTPExchangeEvent.currentRole
    // A replay after a refresh says so, in traces and sequence diagrams.
    let span = tracer.startSpan(
      "APISessionManager", "\(role == .replay ? "replay " : "")\(method) \(url.path)",
      attributes: [(key: "url", value: url.absoluteString)], parent: parentSpan)
    let shown = headers.map { header in
      NetworkHeader(
        name: header.name,
        value: Redaction.isSecretHeader(header.name)
          ? Redaction.headerValue(header.value) : header.value)
    }
    logger?.logInfo(
      "[REQUEST] \(method) \(url.absoluteString)"
        + shown.map { " \($0.name): \($0.value)" }.joined(separator: ";")
        + (body.map { " (\($0.count) bytes)" } ?? ""))
    if Self.carriesCredential(headers: headers, body: body) {
      CleartextWarning.check(url)
    }
    let events = tracer.events
    let id = events.wants(.http) ? events.nextExchangeID() : 0
    HTTPExchangeEvent.publish(
      events, id: id, phase: .sent, sender: "APISessionManager", method: method,
      url: url.absoluteString, requestHeaders: headers, requestBody: body, role: role)
    let started = DispatchTime.now().uptimeNanoseconds
    // One deadline for the whole request, every redirect hop included.
    let deadline = started + UInt64(min(timeout, 86_400) * 1_000_000_000)
    attempt(
      task, hop: Hop(method: method, url: url, headers: headers, body: body),
      redirectsLeft: HTTPLimits.redirects, followsRedirects: followsRedirects,
      chain: Chain(baseOrigin: Self.origin(of: dynamicBaseURL), deadline: deadline)
    ) { [self] head, data, error, newBase, finalMethod in
      let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
      HTTPExchangeEvent.publish(
        events, id: id, phase: .answered, sender: "APISessionManager", method: method,
        url: (head?.url ?? url).absoluteString, requestHeaders: headers, requestBody: body,
        status: head?.statusCode, responseHeaders: head?.headers ?? [], responseBody: data,
        bytes: data?.count ?? 0, milliseconds: milliseconds, error: error?.description,
        reusedConnection: head?.reusedConnection ?? false, role: role)
      let response = APIResponse(
        method: finalMethod, url: head?.url ?? url, requestHeaders: shown, head: head,
        data: data ?? Data(), error: error, milliseconds: milliseconds,
        redirectedBaseURL: newBase)
      log(response)
      if let status = head?.statusCode { span.setAttribute("status", String(status)) }
      if let head { span.setAttribute("connection", head.reusedConnection ? "reused" : "new") }
      if let newBase { span.addEvent("redirected: dynamicBaseURL is now \(newBase)") }
      tracer.endSpan(span, failure: error?.description)
      task.complete(response)
    }
  }

  /// One hop of a request: what is sent, and where.
  struct Hop: Sendable {
    var method: String
    var url: URL
    var headers: [(name: String, value: String)]
    var body: Data?
  }

  /// The status codes a redirect has: 301, 302, 303, 307 and 308, as curl and requests follow.
  static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

  /// What one request's hops share: its deadline, and whether every hop so far stayed on the
  /// origin of the base URL it started from.
  struct Chain: Sendable {
    /// The origin of `dynamicBaseURL` when the request started.
    var baseOrigin: String
    /// The uptime in nanoseconds by which the whole request, redirects included, must end.
    var deadline: UInt64
    /// Whether every hop so far went to `baseOrigin`.
    var stayedOnBase = true
  }

  private func attempt(
    _ task: APISessionTask, hop: Hop, redirectsLeft: Int, followsRedirects: Bool,
    chain: Chain, newBase: URL? = nil,
    done: @escaping @Sendable (NetworkResponseHead?, Data?, NetworkError?, URL?, String) -> Void
  ) {
    let timeout = self.timeout
    let deadline = chain.deadline
    // Requests run side by side (OAuth2's burst of 401s) on a bounded pool of threads, unless
    // the caller waits for it at once, on its own thread. Not Dispatch's pool: it adds threads
    // slowly while its threads block, so a burst of 50 waited behind one another past their
    // timeout.
    let run: (@escaping @Sendable () -> Void) -> Void =
      task.runsOnWaitingThread ? { $0() } : { Self.requestThreads.run($0) }
    run { [self] in
      let result = HTTPTransport.perform(
        method: hop.method, url: hop.url, headers: hop.headers, body: hop.body,
        deadline: deadline, control: task.control)
      let response: TransportResponse
      switch result {
      case .failure(let error):
        done(
          nil, nil, NetworkController.classify(error, url: hop.url, timeout: timeout), newBase,
          hop.method)
        return
      case .success(let answered): response = answered
      }
      let head = NetworkResponseHead(
        url: hop.url, statusCode: Int(response.head.status.code),
        headers: response.head.headers.map { NetworkHeader(name: $0.name, value: $0.value) },
        reusedConnection: response.reusedConnection)
      let data = response.bodyData
      guard Self.redirectStatuses.contains(head.statusCode),
        let location = head.value(forHTTPHeaderField: "Location")
      else {
        done(head, data, nil, newBase, hop.method)
        return
      }
      switch redirect(
        from: hop, status: head.statusCode, location: location, follows: followsRedirects,
        left: redirectsLeft)
      {
      case .failure(let refusal):
        logger?.logWarning("[REDIRECT] \(refusal)")
        done(head, data, refusal, newBase, hop.method)
      case .success(let (next, sameOrigin)):
        var base = newBase
        var chain = chain
        chain.stayedOnBase =
          chain.stayedOnBase && Self.origin(of: hop.url) == chain.baseOrigin
          && Self.origin(of: next.url) == chain.baseOrigin
        if chain.stayedOnBase {
          // BDModules' redirection block: the new location becomes the base URL of later
          // requests. Only while the whole chain stays on the base URL's origin: a server
          // cannot move the session elsewhere, neither at once nor one hop after leaving.
          let swapped = Self.base(of: next.url, requestedPath: hop.url.path)
          dynamicBaseURL = swapped
          redirectionHandler?(swapped)
          base = swapped
        }
        logger?.logInfo(
          "[REDIRECT] \(head.statusCode) \(Redaction.url(hop.url.absoluteString)) → "
            + "\(next.method) \(Redaction.url(next.url.absoluteString))"
            + (sameOrigin ? "" : " (another origin: credentials dropped, base URL kept)"))
        attempt(
          task, hop: next, redirectsLeft: redirectsLeft - 1, followsRedirects: true,
          chain: chain, newBase: base, done: done)
      }
    }
  }

  /// The request a redirect leads to, and whether it stays on the same origin; or why it is not
  /// followed.
  ///
  /// The rules are those of curl, Python's requests and URLSession: at most
  /// `HTTPLimits.redirects` hops; 303, and 301 or 302 after a POST, become a GET without a body;
  /// a change of scheme, host or port drops every credential header; https never leads to http.
  func redirect(
    from hop: Hop, status: Int, location: String, follows: Bool, left: Int
  ) -> Result<(Hop, Bool), NetworkError> {
    let from = Redaction.url(hop.url.absoluteString)
    let shownLocation = TerminalText.escaped(Redaction.url(location))
    guard follows else {
      return .failure(
        .redirectRefused(
          from: from, to: shownLocation,
          reason: "the token endpoint never follows a redirect, so that a password or token goes "
            + "only where it was sent"))
    }
    guard let target = URL(string: location, relativeTo: hop.url)?.absoluteURL,
      let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
      target.host?.isEmpty == false
    else {
      return .failure(
        .redirectRefused(from: from, to: shownLocation, reason: "it is not an http or https URL"))
    }
    guard (try? HTTPTransport.canonicalHost(of: target)) != nil else {
      return .failure(
        .redirectRefused(
          from: from, to: shownLocation,
          reason: "its host is not a plain ASCII name or address (a percent-escape, a space or "
            + "a control byte is refused)"))
    }
    let to = Redaction.url(target.absoluteString)
    guard target.password == nil else {
      return .failure(
        .redirectRefused(
          from: from, to: to, reason: "it holds a password ('user:password@'), which is never sent")
      )
    }
    guard left > 0 else {
      return .failure(
        .redirectRefused(
          from: from, to: to, reason: "that would be more than \(HTTPLimits.redirects) redirects"))
    }
    if hop.url.scheme?.lowercased() == "https", scheme == "http" {
      return .failure(
        .redirectRefused(
          from: from, to: to, reason: "it leaves https for plain http, where anyone can read it"))
    }
    var next = hop
    next.url = target
    if status == 303 || ((status == 301 || status == 302) && hop.method == "POST") {
      next.method = hop.method == "HEAD" ? "HEAD" : "GET"
      next.body = nil
      next.headers.removeAll {
        ["content-type", "content-length"].contains($0.name.lowercased())
      }
    }
    let sameOrigin = Self.origin(of: hop.url) == Self.origin(of: target)
    if !sameOrigin {
      next.headers.removeAll { Redaction.isSecretHeader($0.name) }
    }
    return .success((next, sameOrigin))
  }

  /// Whether a request carries a credential: a secret header, or a token request's fields.
  static func carriesCredential(headers: [(name: String, value: String)], body: Data?) -> Bool {
    if headers.contains(where: { Redaction.isSecretHeader($0.name) }) { return true }
    guard let body, let text = String(data: body, encoding: .utf8) else { return false }
    return Redaction.scrub(text) != text
  }

  /// A URL's origin: its scheme, host and port (the scheme's own when none is written).
  static func origin(of url: URL) -> String {
    let scheme = url.scheme?.lowercased() ?? ""
    let port = url.port ?? (scheme == "https" ? 443 : 80)
    return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
  }

  private func log(_ response: APIResponse) {
    let target = "\(response.method) \(response.url.absoluteString)"
    let tenths = Int((response.milliseconds * 10).rounded())
    let timing = "\(tenths / 10).\(tenths % 10) ms"
    if let error = response.error {
      logger?.logWarning("[RESPONSE] \(target) failed after \(timing): \(error)")
    } else if let status = response.statusCode, status >= 400 {
      let detail = NetworkController.httpError(status: status, data: response.data)
      logger?.logWarning("[RESPONSE] \(status) \(target) in \(timing): \(detail)")
    } else {
      logger?.logInfo(
        "[RESPONSE] \(response.statusCode ?? 0) \(target) in \(timing), \(response.data.count) bytes"
      )
    }
  }

  /// The base URL a redirect points at: the `Location` without the path that was asked for, so
  /// that later paths resolve against it; the whole `Location` when it does not end with that
  /// path (as the seed takes it).
  static func base(of target: URL, requestedPath: String) -> URL {
    let text =
      target.absoluteString.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
    guard requestedPath.count > 1, text.hasSuffix(requestedPath),
      let base = URL(string: String(text.dropLast(requestedPath.count)))
    else { return target }
    return base
  }

  // MARK: - Encoding

  /// Percent-encodes a query or form key or value.
  static func encode(_ text: String) -> String {
    let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
  }

  /// The parameters as a JSON object of strings, in the order given.
  static func json(_ parameters: [(key: String, value: String)]) -> Data {
    func quoted(_ text: String) -> String {
      var quoted = ""
      JSONSerializer.quote(text, into: &quoted)
      return quoted
    }
    let members = parameters.map { "\(quoted($0.key)):\(quoted($0.value))" }
    return Data(("{" + members.joined(separator: ",") + "}").utf8)
  }

  /// A boundary derived from the content (FNV-1a), so that the same upload is the same bytes
  /// every time, and longer until it occurs in none of the parts.
  static func boundary(parameters: [(key: String, value: String)], files: [any MultipartFile])
    -> String
  {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func mix<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
      for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    }
    for parameter in parameters { mix(Data((parameter.key + "=" + parameter.value).utf8)) }
    for file in files { mix(file.data) }
    var boundary = "archsh-" + String(hash, radix: 16)
    let contents = parameters.map { Data($0.value.utf8) } + files.map(\.data)
    while contents.contains(where: { $0.range(of: Data(boundary.utf8)) != nil }) {
      boundary += "-" + String(hash % 9973, radix: 16)
    }
    return boundary
  }

  /// A multipart/form-data body: the parameters as text parts, then the files.
  static func multipart(
    parameters: [(key: String, value: String)], files: [any MultipartFile], boundary: String
  ) -> Data {
    var body = Data()
    func line(_ text: String) { body.append(Data((text + "\r\n").utf8)) }
    for parameter in parameters {
      line("--\(boundary)")
      line("Content-Disposition: form-data; name=\"\(parameter.key)\"")
      line("")
      line(parameter.value)
    }
    for file in files {
      line("--\(boundary)")
      line("Content-Disposition: form-data; name=\"\(file.name)\"; filename=\"\(file.fileName)\"")
      line("Content-Type: \(file.mimeType)")
      line("")
      body.append(file.data)
      line("")
    }
    line("--\(boundary)--")
    return body
  }
}

/// The warning, once per process, that a credential is about to cross a network in clear text:
/// over `http://` to a host that is not this machine.
public enum CleartextWarning {
  private static let state = Mutex<(warned: Bool, handler: (@Sendable (String) -> Void)?)>(
    (false, nil))

  /// Where the warning goes (the shell writes it to standard error); nil keeps it silent.
  public static var handler: (@Sendable (String) -> Void)? {
    get { state.withLock { $0.handler } }
    set { state.withLock { $0.handler = newValue } }
  }

  /// Warns once when `url` is plain HTTP to a host other than loopback.
  static func check(_ url: URL) {
    guard url.scheme == "http", let host = url.host?.lowercased(), !isLoopback(host) else { return }
    let handler = state.withLock { current -> (@Sendable (String) -> Void)? in
      guard !current.warned else { return nil }
      current.warned = true
      return current.handler
    }
    handler?(
      "a credential is being sent over plain http:// to \(host), where anyone on the network can "
        + "read it (use https://)")
  }

  /// Whether `host` names this machine.
  static func isLoopback(_ host: String) -> Bool {
    host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
      || host.hasSuffix(".localhost")
  }
}
