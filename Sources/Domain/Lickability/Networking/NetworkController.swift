import Foundation
import Plumbing
import Synchronization

/// A request for NetworkController: a method, a path (or an absolute URL), headers and a body.
public struct NetworkRequest: Sendable {
  /// The HTTP method, such as `GET`.
  public var method: String
  /// A path relative to the base URL, such as `/products/42`, or an absolute URL.
  public var path: String
  /// Extra request headers.
  public var headers: [String: String]
  /// The request body.
  public var body: Data?

  /// Creates a request.
  public init(
    method: String = "GET", path: String, headers: [String: String] = [:], body: Data? = nil
  ) {
    self.method = method
    self.path = path
    self.headers = headers
    self.body = body
  }
}

/// The head of an HTTP response: where it came from, its status and its headers.
///
/// It plays the part of the seed's `HTTPURLResponse`, which archsh no longer gets from URLSession.
public struct NetworkResponseHead: Sendable, Equatable {
  /// The URL that answered, after any redirects.
  public let url: URL
  /// The HTTP status code.
  public let statusCode: Int
  /// The headers in the order they arrived.
  public let headers: [NetworkHeader]
  /// Whether it came over a connection kept open from an earlier request (keep-alive).
  public let reusedConnection: Bool

  /// Creates a response head.
  public init(url: URL, statusCode: Int, headers: [NetworkHeader], reusedConnection: Bool = false) {
    self.url = url
    self.statusCode = statusCode
    self.headers = headers
    self.reusedConnection = reusedConnection
  }

  /// The value of the first header named `name`, compared without regard to case.
  public func value(forHTTPHeaderField name: String) -> String? {
    headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
  }
}

/// One HTTP header.
public struct NetworkHeader: Sendable, Equatable {
  /// The header's name, as it arrived.
  public let name: String
  /// Its value.
  public let value: String

  /// Creates a header.
  public init(name: String, value: String) {
    self.name = name
    self.value = value
  }
}

/// What a request returned, as in the seed: the response, the raw data, and the result of
/// deserializing it.
public struct NetworkResponse<Result: Sendable>: Sendable {
  /// The HTTP response, when one arrived.
  public let response: NetworkResponseHead?
  /// The raw body.
  public let data: Data?
  /// The deserialized value, or why there is none.
  public let result: Swift.Result<Result, NetworkError>
  /// How long the request took, in milliseconds.
  public let milliseconds: Double
  /// The number of the task that carried the request, counted per controller from 1, as
  /// URLSessionTask's taskIdentifier is per session; 0 when no task was made (a bad URL).
  public var taskIdentifier = 0
}

/// Why a request failed.
///
/// Each case reads as one line.
public enum NetworkError: Error, Equatable, CustomStringConvertible {
  /// Nothing listens at the address.
  case refused(url: String)
  /// No answer within the timeout.
  case timeout(url: String, seconds: Double)
  /// The connection closed before a whole response arrived.
  case dropped(url: String)
  /// Another transport failure.
  case transport(url: String, detail: String)
  /// The response had no body (the seed's `emptyResponseData`).
  case emptyResponseData(url: String)
  /// The body did not decode; `path` names the field, such as `data.price`.
  case decoding(path: String, detail: String)
  /// The server answered with an error status, and the API's `code` and `message` when given.
  case http(status: Int, code: String?, message: String?)
  /// The path or base URL does not make a URL.
  case badURL(String)
  /// The request was cancelled (Ctrl-C) before it finished.
  case cancelled(url: String)
  /// A redirect was not followed, and why (another origin's credentials, https to http, too many).
  case redirectRefused(from: String, to: String, reason: String)

  /// A one-line description.
  public var description: String {
    switch self {
    case .refused(let url): return "connection refused: nothing listens at \(url)"
    case .timeout(let url, let seconds):
      return "timed out after \(Self.format(seconds)) waiting for \(url)"
    case .dropped(let url): return "the connection to \(url) was dropped before a response arrived"
    case .transport(let url, let detail): return "request to \(url) failed: \(detail)"
    case .emptyResponseData(let url): return "emptyResponseData: \(url) answered with no body"
    case .decoding(let path, let detail):
      return path.isEmpty
        ? "cannot decode the response: \(detail)"
        : "cannot decode the response at '\(path)': \(detail)"
    case .http(let status, let code, let message):
      let api = [code, message].compactMap { $0 }.joined(separator: ": ")
      return "HTTP \(status)" + (api.isEmpty ? "" : " \(api)")
    case .badURL(let text):
      guard !Redaction.holdsURLPassword(text) else {
        return "'\(TerminalText.escaped(Redaction.url(text)))' cannot be sent: "
          + Redaction.urlPasswordReason
      }
      return "'\(TerminalText.escaped(text))' is not a URL"
    case .cancelled(let url): return "the request to \(url) was cancelled"
    case .redirectRefused(let from, let to, let reason):
      return "did not follow the redirect from \(from) to \(to): \(reason)"
    }
  }

  /// A duration as archsh writes it: `200ms`, `5s`, `1.5s`.
  public static func format(_ seconds: Double) -> String {
    let milliseconds = seconds * 1000
    if seconds < 1, milliseconds == milliseconds.rounded() { return "\(Int(milliseconds))ms" }
    return seconds == seconds.rounded() ? "\(Int(seconds))s" : String(format: "%.3gs", seconds)
  }
}

/// `net log`'s reader of the event stream: the last 100 exchanges NetworkController answered.
public final class NetworkLog: EventSubscriber, Sendable {
  private let entries = Mutex<[NetworkLogEntry]>([])

  /// Creates an empty log; subscribe it to a stream's `.http` events.
  public init() {}

  /// The last requests, oldest first (at most 100).
  public var log: [NetworkLogEntry] { entries.withLock { $0 } }

  /// Keeps an answered exchange of NetworkController's.
  public func receive(_ event: ArchEvent) {
    guard case .http(let exchange) = event.payload, exchange.phase == .answered,
      exchange.sender == "NetworkController"
    else { return }
    entries.withLock { entries in
      entries.append(
        NetworkLogEntry(
          method: exchange.method, url: exchange.url, status: exchange.status,
          bytes: exchange.bytes, milliseconds: exchange.milliseconds,
          reusedConnection: exchange.reusedConnection, failure: exchange.error))
      if entries.count > 100 { entries.removeFirst(entries.count - 100) }
    }
  }
}

/// A request as `net log` lists it.
public struct NetworkLogEntry: Sendable, Equatable {
  /// The method.
  public var method: String
  /// The full URL.
  public var url: String
  /// The HTTP status, or nil when the request failed before a response.
  public var status: Int?
  /// The body's length.
  public var bytes: Int
  /// How long it took.
  public var milliseconds: Double
  /// Whether it went over a connection kept open from an earlier request.
  public var reusedConnection = false
  /// Why no response arrived, when none did.
  public var failure: String?

  /// What became of a request that got no status: `cancelled` (Ctrl-C), or `failed`.
  public var outcome: String {
    guard status == nil else { return "answered" }
    return failure?.contains("was cancelled") == true ? "cancelled" : "failed"
  }
}

/// Sends requests and deserializes responses, after Lickability's NetworkController (seed 000).
///
/// The seed wraps URLSession; archsh sends over `HTTPTransport`, HTTP/1.1 framed by NIOHTTP1,
/// on the calling thread. The interface is the seed's either way. NetworkController follows no
/// redirect: a 3xx is the answer (APISessionManager follows them).
///
/// A transport error is a failure; data is deserialized (a throwing deserializer is a failure);
/// no data is `emptyResponseData`. An HTTP error status becomes `.http` with the API's `code` and
/// `message` when the body follows the BDModules convention.
public final class NetworkController: Sendable {
  /// The URL that relative paths are resolved against.
  public let baseURL: URL
  private let tracer: Tracing
  private let isCancelled: @Sendable () -> Bool
  private let storedTimeout: Mutex<Double>
  private let taskCount = Mutex(0)

  /// Creates a controller for `baseURL`.
  ///
  /// `isCancelled` is polled while a request runs; when it returns true the request is cancelled
  /// (the shell passes its Ctrl-C flag).
  public init(
    baseURL: URL, timeout: Double = 5, tracer: Tracing,
    isCancelled: @escaping @Sendable () -> Bool = { false }
  ) {
    self.baseURL = baseURL
    self.storedTimeout = Mutex(timeout)
    self.tracer = tracer
    self.isCancelled = isCancelled
  }

  /// The request timeout, in seconds: a request with no answer within it fails with `timeout`.
  public var timeout: Double {
    get { storedTimeout.withLock { $0 } }
    set { storedTimeout.withLock { $0 = newValue } }
  }

  /// Sends `request` and deserializes the body with `deserialize`.
  public func perform<T: Sendable>(
    _ request: NetworkRequest, deserialize: (Data) throws -> T
  ) -> NetworkResponse<T> {
    let url: URL
    do {
      url = try resolve(request.path)
    } catch {
      return NetworkResponse(response: nil, data: nil, result: .failure(error), milliseconds: 0)
    }
    let attributes = [
      (key: "method", value: request.method), (key: "url", value: url.absoluteString),
    ]
    let taskIdentifier = taskCount.withLock {
      $0 += 1
      return $0
    }
    return tracer.withSpan(
      "NetworkController", "\(request.method) \(url.path)", attributes: attributes
    ) { span in
      let events = tracer.events
      let id = events.wants(.http) ? events.nextExchangeID() : 0
      let headers = {
        request.headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
      }
      HTTPExchangeEvent.publish(
        events, id: id, phase: .sent, sender: "NetworkController", method: request.method,
        url: url.absoluteString, requestHeaders: headers(), requestBody: request.body)
      let (response, data, error, milliseconds) = send(request, to: url)
      HTTPExchangeEvent.publish(
        events, id: id, phase: .answered, sender: "NetworkController", method: request.method,
        url: url.absoluteString, requestHeaders: headers(), requestBody: request.body,
        status: response?.statusCode, responseHeaders: response?.headers ?? [],
        responseBody: data, bytes: data?.count ?? 0, milliseconds: milliseconds,
        error: error?.description, reusedConnection: response?.reusedConnection ?? false)
      if let status = response?.statusCode { span.setAttribute("status", String(status)) }
      if let response {
        span.setAttribute("connection", response.reusedConnection ? "reused" : "new")
      }
      span.setAttribute("bytes", String(data?.count ?? 0))
      let result: Result<T, NetworkError>
      if let error {
        result = .failure(error)
      } else if let response, !(200..<300).contains(response.statusCode) {
        result = .failure(Self.httpError(status: response.statusCode, data: data))
      } else if let data, !data.isEmpty {
        do {
          result = .success(try deserialize(data))
        } catch let error as NetworkError {
          result = .failure(error)
        } catch {
          result = .failure(.decoding(path: "", detail: String(describing: error)))
        }
      } else {
        result = .failure(.emptyResponseData(url: url.absoluteString))
      }
      if case .failure(let error) = result { span.setAttribute("error", error.description) }
      return NetworkResponse(
        response: response, data: data, result: result, milliseconds: milliseconds,
        taskIdentifier: taskIdentifier)
    }
  }

  /// Sends `request` and returns the raw body.
  public func perform(_ request: NetworkRequest) -> NetworkResponse<Data> {
    perform(request) { $0 }
  }

  /// Sends `request` and decodes the body as JSON into `type` with `decoder` (JSONFactory's, with
  /// the caller's key strategy), naming the field path on failure.
  public func perform<T: Decodable & Sendable>(
    _ request: NetworkRequest, decoding type: T.Type, with decoder: JSONDecoder
  ) -> NetworkResponse<T> {
    perform(request) { data in
      do {
        return try decoder.decode(T.self, from: data)
      } catch let error as DecodingError {
        throw Self.describe(error)
      }
    }
  }

  // MARK: - Private

  private func resolve(_ path: String) throws(NetworkError) -> URL {
    guard let url = Self.url(path, relativeTo: baseURL) else { throw .badURL(path) }
    return url
  }

  /// An absolute URL as it is, or a path (with its query) appended to `base`'s path; nil when
  /// that makes no URL.
  public static func url(_ path: String, relativeTo base: URL) -> URL? {
    // Byte comparisons: these run for every request, and Foundation's string search goes
    // through NSString.
    if path.utf8.starts(with: "http://".utf8) || path.utf8.starts(with: "https://".utf8) {
      // A password in the URL would be shown in the log and the trace; it is never sent.
      guard !Redaction.holdsURLPassword(path) else { return nil }
      return URL(string: path)
    }
    // The base URL's scheme, authority and path; a query or fragment on it (which a base URL
    // given to archsh cannot have) never ends up in the middle of the joined path.
    var text = base.absoluteString
    if let cut = text.utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") })
    {
      text = String(text[..<cut])
    }
    let root = text.utf8.last == UInt8(ascii: "/") ? String(text.dropLast()) : text
    return URL(string: root + (path.utf8.first == UInt8(ascii: "/") ? path : "/" + path))
  }

  /// Sends and waits on this thread: archsh runs one command at a time.
  private func send(_ request: NetworkRequest, to url: URL) -> (
    NetworkResponseHead?, Data?, NetworkError?, Double
  ) {
    let timeout = self.timeout
    let start = DispatchTime.now().uptimeNanoseconds
    let nanoseconds = UInt64(min(timeout, 86_400) * 1_000_000_000)
    let result = HTTPTransport.perform(
      method: request.method, url: url,
      headers: request.headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) },
      body: request.body, deadline: start + nanoseconds,
      control: ExchangeControl(isCancelled: isCancelled))
    return outcome(result, url: url, timeout: timeout, start: start)
  }

  /// A transport's result as the head, the body, the error and the milliseconds since `start`.
  private func outcome(
    _ result: Result<TransportResponse, Error>, url: URL, timeout: Double, start: UInt64
  ) -> (NetworkResponseHead?, Data?, NetworkError?, Double) {
    let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
    switch result {
    case .success(let response):
      let head = NetworkResponseHead(
        url: url, statusCode: Int(response.head.status.code),
        headers: response.head.headers.map { NetworkHeader(name: $0.name, value: $0.value) },
        reusedConnection: response.reusedConnection)
      return (head, response.bodyData, nil, milliseconds)
    case .failure(let error):
      return (nil, nil, Self.classify(error, url: url, timeout: timeout), milliseconds)
    }
  }

  /// A transport failure as a one-line `NetworkError`.
  static func classify(_ error: Error, url: URL, timeout: Double) -> NetworkError {
    let text = Redaction.url(url.absoluteString)
    switch error {
    case TransportError.dropped: return .dropped(url: text)
    case TransportError.cancelled: return .cancelled(url: text)
    case TransportError.timedOut: return .timeout(url: text, seconds: timeout)
    case TransportError.refused: return .refused(url: text)
    case let error as TransportError: return .transport(url: text, detail: error.description)
    case let error as TLSError:
      let hint =
        error.description.contains("certificate")
        ? "; for a private or self-signed server, give its CA with --cacert FILE" : ""
      return .transport(url: text, detail: error.description + hint)
    default: return .transport(url: text, detail: String(describing: error))
    }
  }

  /// The API's `code` and `message` from an error body, when it has them.
  static func httpError(status: Int, data: Data?) -> NetworkError {
    let object = data.flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]
    // The server's words reach a terminal: control bytes in them are escaped.
    return .http(
      status: status, code: (object?["code"] as? String).map { TerminalText.escaped($0) },
      message: (object?["message"] as? String).map { TerminalText.escaped($0) })
  }

  /// A decoding error with the path of the field it concerns, such as `data.price`.
  static func describe(_ error: DecodingError) -> NetworkError {
    func path(_ context: DecodingError.Context) -> String {
      context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(
        separator: "."
      )
      .replacingOccurrences(of: ".[", with: "[")
    }
    switch error {
    case .keyNotFound(let key, let context):
      let parent = path(context)
      return .decoding(
        path: parent.isEmpty ? key.stringValue : parent + "." + key.stringValue,
        detail: "the field is missing")
    case .typeMismatch(let type, let context):
      return .decoding(path: path(context), detail: "expected \(jsonKind(type))")
    case .valueNotFound(let type, let context):
      return .decoding(path: path(context), detail: "expected \(jsonKind(type)), found null")
    case .dataCorrupted(let context):
      return .decoding(path: path(context), detail: "the body is not valid JSON")
    @unknown default:
      return .decoding(path: "", detail: String(describing: error))
    }
  }
}

/// How a Swift type that a decoder expected reads as JSON: `an object`, not
/// `Dictionary<String, Any>`.
func jsonKind(_ type: Any.Type) -> String {
  let name = String(describing: type)
  if name.hasPrefix("Dictionary<") || name.hasPrefix("KeyedDecodingContainer") {
    return "an object"
  }
  if name.hasPrefix("Array<") || name.hasPrefix("UnkeyedDecodingContainer") { return "an array" }
  switch name {
  case "String": return "a string"
  case "Bool": return "true or false"
  case "Int", "Int64", "Int32", "UInt", "UInt64": return "a whole number"
  case "Double", "Float", "Decimal": return "a number"
  default: return name
  }
}
