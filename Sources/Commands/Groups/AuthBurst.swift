import Domain
import Foundation
import Synchronization

/// One `auth burst`: N authenticated GETs started at once through OAuth2Authorization, and the
/// timeline of what happened to each.
struct BurstRun {
  /// One line of the timeline.
  struct Entry {
    let nanoseconds: UInt64
    let request: Int?
    let event: String
  }

  private(set) var entries: [Entry] = []
  private(set) var outcomes: [Int: OAuth2Authorization.Outcome] = [:]
  let count: Int
  let path: String
  let nanoseconds: UInt64

  init(_ invocation: Invocation, count: Int, path: Word) throws {
    let api = invocation.session.factory.api
    let manager = try api.apiSessionManager()
    let authorization = try api.oAuth2Authorization
    guard try api.accountUserProvider.credential() != nil else { throw OAuth2Error.notLoggedIn }
    let recorder = Recorder()
    let tracer = invocation.session.tracer
    let target = path.text
    let start = DispatchTime.now().uptimeNanoseconds
    let group = DispatchGroup()
    tracer.withSpan(
      "auth", "burst \(count) GET \(target)", attributes: [(key: "requests", value: "\(count)")]
    ) { _ in
      for number in 1...count {
        group.enter()
        authorization.perform(
          "GET \(target) #\(number)",
          observer: { event in recorder.record(number, event) },
          makeTask: OAuth2Authorization.request(manager, method: .get, path: target),
          completion: { outcome in
            recorder.finish(number, outcome)
            group.leave()
          })
      }
      while group.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
        if invocation.session.interruptCheck() { break }
      }
    }
    self.count = count
    self.path = target
    self.nanoseconds = DispatchTime.now().uptimeNanoseconds - start
    (entries, outcomes) = recorder.take(since: start)
  }

  /// The timeline and the counts, or the counts alone.
  func output(summaryOnly: Bool) -> Output {
    var statuses: [Int: Int] = [:]
    var failures: [String: Int] = [:]
    var firstStatuses: [Int: Int] = [:]
    for outcome in outcomes.values {
      switch outcome {
      case .success(let response):
        if let status = response.statusCode {
          statuses[status, default: 0] += 1
        } else {
          failures[response.error?.description ?? "no response", default: 0] += 1
        }
      case .failure(let error): failures[error.description, default: 0] += 1
      }
    }
    for entry in entries where entry.event.hasPrefix("answered ") {
      if let status = Int(entry.event.dropFirst("answered ".count)) {
        firstStatuses[status, default: 0] += 1
      }
    }
    let refreshes = entries.filter { $0.event.hasPrefix("refresh started") }.count
    let replays = entries.filter { $0.event.hasPrefix("replayed") }.count
    let unanswered = count - outcomes.count
    var parts = ["\(plural(count, "request"))"]
    parts.append("\(firstStatuses[401] ?? 0) × 401")
    parts.append(
      plural(refreshes, "refresh").replacingOccurrences(of: "refreshs", with: "refreshes"))
    parts.append(plural(replays, "replay"))
    for (status, number) in statuses.sorted(by: { $0.key < $1.key }) {
      parts.append("\(number) × \(status) delivered")
    }
    for (error, number) in failures.sorted(by: { $0.key < $1.key }) {
      parts.append("\(number) failed: \(error)")
    }
    if unanswered > 0 { parts.append("\(unanswered) unanswered (interrupted)") }
    let milliseconds = Double(nanoseconds) / 1_000_000
    let summaryText =
      parts.joined(separator: ", ") + " in " + String(format: "%.2f ms", milliseconds)
    let summary = Output.sentence(
      summaryText,
      [
        Field("requests", .int(count)),
        Field("unauthorized", .int(firstStatuses[401] ?? 0)),
        Field("refreshes", .int(refreshes)),
        Field("replays", .int(replays)),
        Field(
          "delivered",
          .object(statuses.sorted { $0.key < $1.key }.map { Field(String($0.key), .int($0.value)) })
        ),
        Field(
          "failed",
          .object(failures.sorted { $0.key < $1.key }.map { Field($0.key, .int($0.value)) })),
        Field("unanswered", .int(unanswered)),
        Field("milliseconds", .double(milliseconds)),
      ])
    if summaryOnly { return summary }
    let table = Table(
      columns: ["at", "request", "event"],
      rows: entries.map { entry in
        [
          .string(String(format: "+%.2f ms", Double(entry.nanoseconds) / 1_000_000)),
          entry.request.map { .string("#\($0)") } ?? .string("-"), .string(entry.event),
        ]
      })
    return .sequence([.table(table), summary])
  }
}

/// Collects the timeline from the event loops and worker threads.
private final class Recorder: Sendable {
  /// What the requests reported, and how each ended.
  private struct State {
    var entries: [(UInt64, Int?, String)] = []
    var outcomes: [Int: OAuth2Authorization.Outcome] = [:]
  }
  private let state = Mutex(State())

  func record(_ number: Int, _ event: AuthorizationEvent) {
    let now = DispatchTime.now().uptimeNanoseconds
    let text: String
    var request: Int? = number
    switch event {
    case .sent(let replay): text = replay ? "replayed with the new token" : "sent"
    case .answered(let status, let replay):
      text = (replay ? "replay answered " : "answered ") + (status.map(String.init) ?? "nothing")
    case .queued: text = "queued until the refresh ends"
    case .refreshStarted:
      text = "refresh started (OAuth2SessionManager refreshToken)"
      request = nil
    case .refreshFinished(let succeeded):
      text = succeeded ? "refresh succeeded: new credential stored" : "refresh failed"
      request = nil
    case .tokenChangedInFlight: text = "401 for a replaced token: replayed at once"
    case .delivered: return
    }
    state.withLock { $0.entries.append((now, request, text)) }
  }

  func finish(_ number: Int, _ outcome: OAuth2Authorization.Outcome) {
    state.withLock { $0.outcomes[number] = outcome }
  }

  func take(since start: UInt64) -> ([BurstRun.Entry], [Int: OAuth2Authorization.Outcome]) {
    state.withLock { state in
      let sorted = state.entries.sorted { $0.0 < $1.0 }.map {
        BurstRun.Entry(nanoseconds: $0.0 &- start, request: $0.1, event: $0.2)
      }
      return (sorted, state.outcomes)
    }
  }
}
