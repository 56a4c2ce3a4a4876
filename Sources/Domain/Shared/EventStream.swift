import Foundation
import Plumbing
import Synchronization

/// The kinds of fact the architecture publishes; a reader subscribes to the kinds it shows.
public struct EventKinds: OptionSet, Sendable, Hashable {
  /// The bits.
  public let rawValue: UInt32
  /// Creates a set from its bits.
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// A span ended (a root span's whole tree comes with it).
  public static let span = EventKinds(rawValue: 1 << 0)
  /// A factory built a product or handed out a singleton it had built.
  public static let factory = EventKinds(rawValue: 1 << 1)
  /// A coordinator or presenter changed the navigation.
  public static let navigation = EventKinds(rawValue: 1 << 2)
  /// A data source was mutated and its delegate notified.
  public static let dataSource = EventKinds(rawValue: 1 << 3)
  /// An HTTP request was sent or answered.
  public static let http = EventKinds(rawValue: 1 << 4)
  /// A store was written to, or an entry removed or evicted.
  public static let store = EventKinds(rawValue: 1 << 5)
  /// A Logger line passed its tag's threshold.
  public static let log = EventKinds(rawValue: 1 << 6)
  /// The shell began or ended a command.
  public static let command = EventKinds(rawValue: 1 << 7)
  /// An HTTP exchange's headers and bodies, and its sent event: asked for by readers that show
  /// them, so that `net log` alone does not pay for copying bodies.
  public static let httpDetail = EventKinds(rawValue: 1 << 8)
  /// Every kind.
  public static let all = EventKinds(rawValue: 0x1FF)
}

/// The one stream of what happens in the architecture, on Plumbing's bus.
///
/// Domain controllers publish typed facts into it; `trace`, `net log` and the board read it. With
/// no reader of a kind, its facts are never even made.
public typealias EventStream = EventBus<ArchPayload>

/// One fact in the stream: what happened (`payload`), when, and during which command.
public typealias ArchEvent = BusEvent<ArchPayload>

/// A reader of the stream.
public protocol EventSubscriber: BusSubscriber where Payload == ArchPayload {}

/// What happened, one case per kind.
public enum ArchPayload: EventPayload {
  /// A span ended; `root` is the whole tree when it was a root span.
  case span(SpanEnded)
  /// A factory product was built or reused.
  case factory(FactoryProductEvent)
  /// The navigation changed.
  case navigation(NavigationChange)
  /// A data source changed and its delegate was notified.
  case dataSource(DataSourceChange)
  /// An HTTP exchange was sent or answered.
  case http(HTTPExchangeEvent)
  /// A store changed.
  case store(StoreChange)
  /// A Logger line.
  case log(LoggedLine)
  /// The shell began or ended a command (a shell's own fact).
  case command(any ShellEvent)

  /// The kind of the fact.
  public var kind: EventKinds {
    switch self {
    case .span: return .span
    case .factory: return .factory
    case .navigation: return .navigation
    case .dataSource: return .dataSource
    case .http: return .http
    case .store: return .store
    case .log: return .log
    case .command: return .command
    }
  }
}

extension EventBus where Payload == ArchPayload {
  /// A new number for an HTTP exchange, shared by its sent and answered events.
  public func nextExchangeID() -> UInt64 { nextNumber() }
}

/// A span that ended.
public struct SpanEnded: Sendable {
  /// The component, such as `ProductUpdater`.
  public var component: String
  /// The operation, such as `GET /products/42`.
  public var operation: String
  /// How long it ran.
  public var durationNanoseconds: UInt64
  /// The error it ended with.
  public var failure: String?
  /// The whole tree, when the span was a root.
  public var root: Span?
}

/// A factory product built or handed out again.
public struct FactoryProductEvent: Sendable, Equatable {
  /// The product's name, as `factory list` shows it.
  public var product: String
  /// The factory that makes it.
  public var factory: String
  /// True when an instance was built; false when a singleton built before was handed out.
  public var built: Bool
}

/// A navigation change.
public struct NavigationChange: Sendable, Equatable {
  /// What kind of change, from its verb.
  public enum Kind: String, Sendable {
    case push, pop, present, dismiss, replace, select, start, other
  }
  /// The coordinator or presenter that made it.
  public var component: String
  /// What it did, such as `pushes MediaItem(42)`.
  public var text: String
  /// The kind of change.
  public var kind: Kind

  /// Creates a change, its kind taken from the first word of `text`.
  public init(component: String, text: String) {
    self.component = component
    self.text = text
    let verb = text.split(separator: " ").first.map(String.init) ?? ""
    switch verb {
    case "pushes": kind = .push
    case "pops": kind = .pop
    case "presents": kind = .present
    case "dismisses": kind = .dismiss
    case "replaces", "sets": kind = .replace
    case "selects": kind = .select
    case "starts": kind = .start
    default: kind = .other
    }
  }
}

/// A data source mutation and the notification its delegate got, or a data source created.
public struct DataSourceChange: Sendable, Equatable {
  /// The stored data source's name, or nil for a screen's own list.
  public var name: String?
  /// The notification; nil when the data source was created, which notifies nobody.
  public var notification: DataSourceMutation?
}

/// One HTTP exchange, sent or answered.
///
/// Secret headers and body fields are redacted before it is made.
public struct HTTPExchangeEvent: Sendable {
  /// What the exchange did for OAuth2: nothing special, a token refresh, or a replay.
  public enum Role: String, Sendable {
    case request, refresh, replay
  }
  /// Sent or answered.
  public enum Phase: String, Sendable {
    case sent, answered
  }
  /// The same for the sent and the answered event of one exchange.
  public var id: UInt64
  /// Sent or answered.
  public var phase: Phase
  /// The method.
  public var method: String
  /// The whole URL.
  public var url: String
  /// The request's headers, secret values redacted.
  public var requestHeaders: [NetworkHeader]
  /// The request body as text (secret fields redacted), at most 64 KiB.
  public var requestBody: String?
  /// The status, once answered.
  public var status: Int?
  /// The response's headers, secret values redacted.
  public var responseHeaders: [NetworkHeader]
  /// The response body as text (secret fields redacted), at most 64 KiB.
  public var responseBody: String?
  /// The response's size in bytes.
  public var bytes: Int
  /// The time from sending to the answer.
  public var milliseconds: Double
  /// The transport error, if there was no answer.
  public var error: String?
  /// Its OAuth2 role.
  public var role: Role
  /// Which controller sent it: `NetworkController` or `APISessionManager`.
  public var sender: String
  /// Whether it went over a connection kept open from an earlier request (keep-alive).
  public var reusedConnection = false

  /// The longest body kept, in bytes.
  public static let bodyLimit = 65_536

  /// A body as it may be shown: text, secret fields redacted, cut at `bodyLimit`.
  public static func shownBody(_ data: Data?) -> String? {
    guard let data, !data.isEmpty else { return nil }
    let cut = data.count > bodyLimit ? data.prefix(bodyLimit) : data
    let text = String(decoding: cut, as: UTF8.self)
    return Redaction.scrub(text) + (data.count > bodyLimit ? "…" : "")
  }

  /// Headers as they may be shown.
  public static func shownHeaders(_ headers: [(name: String, value: String)]) -> [NetworkHeader] {
    headers.map { header in
      NetworkHeader(
        name: header.name,
        value: Redaction.isSecretHeader(header.name)
          ? Redaction.headerValue(header.value) : header.value)
    }
  }

  /// Publishes an exchange to `events`: the answered one to every reader of `.http`, with its
  /// headers and bodies only for readers of `.httpDetail`, and the sent one only to those.
  public static func publish(
    _ events: EventStream, id: UInt64, phase: Phase, sender: String, method: String, url: String,
    requestHeaders: @autoclosure () -> [(name: String, value: String)],
    requestBody: Data?, status: Int? = nil, responseHeaders: [NetworkHeader] = [],
    responseBody: Data? = nil, bytes: Int = 0, milliseconds: Double = 0, error: String? = nil,
    reusedConnection: Bool = false, role: Role = currentRole
  ) {
    guard events.wants(phase == .sent ? .httpDetail : .http) else { return }
    let detail = events.wants(.httpDetail)
    events.publish(.http) {
      .http(
        HTTPExchangeEvent(
          id: id, phase: phase, method: method, url: url,
          requestHeaders: detail ? shownHeaders(requestHeaders()) : [],
          requestBody: detail ? shownBody(requestBody) : nil, status: status,
          responseHeaders: detail ? shownHeaders(responseHeaders.map { ($0.name, $0.value) }) : [],
          responseBody: detail ? shownBody(responseBody) : nil, bytes: bytes,
          milliseconds: milliseconds, error: error, role: role, sender: sender,
          reusedConnection: reusedConnection))
    }
  }

  /// The OAuth2 role of requests made on this thread now (a refresh or a replay sets it).
  @TaskLocal public static var currentRole: Role = .request
}

/// A store write, removal or eviction.
public struct StoreChange: Sendable, Equatable {
  /// What happened to the entry.
  public enum Action: String, Sendable {
    case write, remove, trim, expire
  }
  /// What happened.
  public var action: Action
  /// The store's identifier.
  public var store: String
  /// The entry's key.
  public var key: String
  /// Its size, for a write.
  public var bytes: Int
}

/// A Logger line.
public struct LoggedLine: Sendable, Equatable {
  /// The tag.
  public var tag: String
  /// The level.
  public var level: LogLevel
  /// The message, secrets already redacted.
  public var message: String
}

/// A fact of the shell that runs the architecture, such as a command that began or ended.
///
/// The shell defines its facts (`CommandEvent`, in Commands); the stream only carries them, so
/// that a reader sees each in order with the facts the command caused.
public protocol ShellEvent: Sendable {}
