import Foundation
import Testing

@testable import Domain

/// A reader that keeps everything it is given.
private final class Collector: EventSubscriber, @unchecked Sendable {
  private let lock = NSLock()
  private var stored: [ArchEvent] = []
  var events: [ArchEvent] { lock.withLock { stored } }
  func receive(_ event: ArchEvent) { lock.withLock { stored.append(event) } }
}

@Suite("The event stream")
struct EventStreamTests {
  @Test("with no reader of a kind, an event of that kind is never even made")
  func nobodyListening() {
    // Given a stream with a reader of HTTP exchanges only
    let stream = EventStream()
    let reader = Collector()
    stream.subscribe(reader, to: .http)
    var made = 0
    // When a factory event and a store event are published
    stream.publish(.factory) {
      made += 1
      return .factory(FactoryProductEvent(product: "workspace", factory: "F", built: true))
    }
    stream.publish(.store) {
      made += 1
      return .store(StoreChange(action: .write, store: "s", key: "k", bytes: 1))
    }
    // Then neither builder ran, and nothing arrived
    #expect(made == 0)
    #expect(reader.events.isEmpty)
    #expect(!stream.wants(.factory) && stream.wants(.http))
    // And after the reader leaves, no kind is wanted
    stream.unsubscribe(reader)
    #expect(!stream.wants(.all))
  }

  @Test("readers get each event once, in order, numbered, with the command that was running")
  func orderAndCommand() {
    let stream = EventStream()
    let reader = Collector()
    stream.subscribe(reader, to: [.navigation, .store])
    stream.command = 7
    stream.publish(.navigation) {
      .navigation(
        NavigationChange(component: "DiscoverFlowCoordinator", text: "pushes MediaItem(42)"))
    }
    stream.command = 8
    stream.publish(.store) { .store(StoreChange(action: .trim, store: "s", key: "old", bytes: 0)) }
    let events = reader.events
    #expect(events.map(\.sequence) == [1, 2])
    #expect(events.map(\.command) == [7, 8])
    guard case .navigation(let change) = events.first?.payload else {
      Issue.record("expected a navigation change")
      return
    }
    #expect(change.kind == .push)
  }

  @Test("an exchange's secrets are redacted where it is made: headers and bodies")
  func exchangeRedacted() {
    let stream = EventStream()
    let reader = Collector()
    stream.subscribe(reader, to: [.http, .httpDetail])
    let body = Data(#"{"grant_type":"password","username":"ada","password":"lovelace"}"#.utf8)
    let answer = Data(
      #"{"access_token":"abcdefgh12345678","refresh_token":"zyxwvuts98765432"}"#.utf8)
    HTTPExchangeEvent.publish(
      stream, id: 1, phase: .answered, sender: "APISessionManager", method: "POST",
      url: "http://127.0.0.1:1/oauth/token",
      requestHeaders: [
        ("Authorization", "Bearer secrettoken9876"), ("Accept", "application/json"),
      ],
      requestBody: body, status: 200, responseBody: answer, bytes: answer.count)
    guard case .http(let exchange) = reader.events.first?.payload else {
      Issue.record("no exchange")
      return
    }
    let all =
      exchange.requestHeaders.map(\.value).joined() + (exchange.requestBody ?? "")
      + (exchange.responseBody ?? "")
    for secret in ["secrettoken9876", "lovelace", "abcdefgh12345678", "zyxwvuts98765432"] {
      #expect(!all.contains(secret), "\(secret) reached the stream")
    }
    #expect(exchange.requestHeaders.map(\.name) == ["Authorization", "Accept"])
    #expect(exchange.requestHeaders.last?.value == "application/json")
  }

  @Test("without a reader of details, an exchange carries no headers or bodies and no sent event")
  func exchangeSummaryOnly() {
    let stream = EventStream()
    let reader = Collector()
    stream.subscribe(reader, to: .http)
    for phase in [HTTPExchangeEvent.Phase.sent, .answered] {
      HTTPExchangeEvent.publish(
        stream, id: 1, phase: phase, sender: "NetworkController", method: "GET",
        url: "http://127.0.0.1:1/products/1", requestHeaders: [("Accept", "*/*")],
        requestBody: nil, status: 200, responseBody: Data("{}".utf8), bytes: 2)
    }
    #expect(reader.events.count == 1)
    guard case .http(let exchange) = reader.events.first?.payload else {
      Issue.record("no HTTP exchange was read: \(reader.events)")
      return
    }
    #expect(exchange.phase == .answered && exchange.requestHeaders.isEmpty)
    #expect(exchange.responseBody == nil && exchange.bytes == 2)
  }

  @Test("spans are built while anyone reads them; trace keeps only what came after 'trace on'")
  func tracerFollowsReaders() {
    let tracer = Tracer()
    #expect(!tracer.isEnabled)
    let board = Collector()
    tracer.events.subscribe(board, to: .span)
    #expect(tracer.isEnabled && !tracer.isTraceOn)
    tracer.withSpan("A", "one") { _ in }
    #expect(board.events.count == 1)
    #expect(tracer.drainCompleted().isEmpty)
    tracer.enable()
    tracer.withSpan("A", "two") { _ in }
    #expect(tracer.drainCompleted().map(\.operation) == ["two"])
    tracer.disable()
    #expect(tracer.isEnabled, "the board still reads spans")
    tracer.events.unsubscribe(board)
    #expect(!tracer.isEnabled)
    #expect(tracer.recorded.map(\.operation) == ["two"])
  }
}
