import Foundation
import Synchronization

/// Something that happened to one request on its way through `OAuth2Authorization`, for a
/// timeline.
public enum AuthorizationEvent: Sendable, Equatable {
  /// The request was sent; `replay` is true for the second attempt.
  case sent(replay: Bool)
  /// A response (or a transport failure, with no status) came back.
  case answered(status: Int?, replay: Bool)
  /// The 401 was queued to wait for a refresh.
  case queued
  /// This request's 401 started the refresh.
  case refreshStarted
  /// The refresh this request started ended.
  case refreshFinished(succeeded: Bool)
  /// The 401 came for a token a finished refresh had already replaced, so the request was
  /// replayed at once with the current token, without another refresh.
  case tokenChangedInFlight
  /// The caller got the outcome.
  case delivered
}

/// Refreshes an expired credential when requests answer 401 and replays them, after BDModules'
/// `OAuth2Authorization` (a singleton).
///
/// - Logged out, or any status but 401: the response goes straight to the caller.
/// - 401: the request is queued, and a refresh starts unless one is running, so any number of
///   concurrent 401s cause one refresh.
/// - The refresh succeeds: each queued request is replayed once with the new token; a second 401
///   goes to its caller.
/// - The refresh fails: every queued caller gets its error, and the credential is kept.
/// - A 401 for a token that a finished refresh has already replaced (the request was in flight
///   during the refresh) is replayed at once with the current token. The seed checks for this
///   too, but its check can never be true; archsh makes it work, so that a late 401 does not
///   spend the refresh token a second time.
public final class OAuth2Authorization: @unchecked Sendable {
  // @unchecked: `accountUserProvider` and `makeSessionManager` are not Sendable; the provider
  // keeps its state in the workspace, and a session manager is made for each refresh.
  /// What a caller gets: the response (any status), or the refresh's error.
  public typealias Outcome = Result<APIResponse, OAuth2Error>
  /// Builds one request: given the `Authorization` header to send (nil when logged out), the span
  /// it belongs under, and the handler its response must go to, it returns the task suspended.
  public typealias MakeTask =
    @Sendable (
      _ authorization: String?, _ span: Span?, _ handler: @escaping @Sendable (APIResponse) -> Void
    ) throws -> APISessionTask

  private struct Waiter {
    let replay: @Sendable (OAuth2Credential) -> Void
    let fail: @Sendable (OAuth2Error) -> Void
  }

  private let accountUserProvider: AccountUserProvider
  private let makeSessionManager: () throws -> OAuth2SessionManager
  private let logger: Logger?
  private let tracer: Tracer
  /// Whether a refresh runs, the callers queued behind it, the latest credential, how many
  /// refreshes there were, and whether the last 401 delivered answered a replay.
  private struct RefreshState {
    var isRefreshing = false
    var waiters: [Waiter] = []
    var latest: OAuth2Credential?
    var refreshes = 0
    var lastUnauthorizedWasReplay = false
  }

  private let state = Mutex(RefreshState())

  /// Creates the authorization over the account provider; `sessionManager` makes the
  /// OAuth2SessionManager a refresh goes through.
  public init(
    accountUserProvider: AccountUserProvider,
    sessionManager: @escaping () throws -> OAuth2SessionManager, logger: Logger?, tracer: Tracer
  ) {
    self.accountUserProvider = accountUserProvider
    self.makeSessionManager = sessionManager
    self.logger = logger
    self.tracer = tracer
  }

  /// The usual request: `method path` through `sessionManager`, with `headers` and the
  /// `Authorization` header this authorization gives (none when logged out).
  public static func request(
    _ sessionManager: APISessionManager, method: APISessionManager.Method, path: String,
    parameters: [(key: String, value: String)] = [],
    headers: [(name: String, value: String)] = [], files: [any MultipartFile] = []
  ) -> MakeTask {
    { authorization, span, handler in
      try sessionManager.performRequest(
        method: method, path: path, parameters: parameters,
        headers: headers + (authorization.map { [("Authorization", $0)] } ?? []), files: files,
        parentSpan: span, handler: handler)
    }
  }

  /// Whether the last 401 this authorization saw answered a request replayed with a fresh token:
  /// a 401 that no refresh can fix.
  public var lastUnauthorizedWasReplay: Bool { state.withLock { $0.lastUnauthorizedWasReplay } }

  /// How many refreshes this authorization has made.
  public var refreshCount: Int { state.withLock { $0.refreshes } }

  /// Sends a request with the current bearer token and handles a 401.
  ///
  /// `makeTask` builds the request with the `Authorization` header to send (nil when logged
  /// out) and the span it belongs under; `completion` gets the outcome once, on any thread.
  public func perform(
    _ label: String, observer: (@Sendable (AuthorizationEvent) -> Void)? = nil,
    makeTask: @escaping MakeTask, completion: @escaping @Sendable (Outcome) -> Void
  ) {
    perform(label, observer: observer, runsHere: nil, makeTask: makeTask, completion: completion)
  }

  /// The public `perform`, which may run the first request on the calling thread.
  ///
  /// With `runsHere`, the first request runs on the calling thread, which would only wait for it
  /// (Ctrl-C, as `runsHere` tells, cancels it). Replays after a refresh run on their own.
  private func perform(
    _ label: String, observer: (@Sendable (AuthorizationEvent) -> Void)?,
    runsHere: (@Sendable () -> Bool)?,
    makeTask: @escaping MakeTask, completion: @escaping @Sendable (Outcome) -> Void
  ) {
    let span = tracer.startSpan("OAuth2Authorization", "authorize \(label)")
    let finish: @Sendable (Outcome) -> Void = { [tracer] outcome in
      if case .failure(let error) = outcome { span.setAttribute("error", error.description) }
      tracer.endSpan(span)
      observer?(.delivered)
      completion(outcome)
    }
    let credential = current()
    guard let credential else {
      span.addEvent("logged out: sent without a token")
      send(
        makeTask, authorization: nil, span: span, replay: false, observer: observer,
        runsHere: runsHere
      ) { finish(.success($0)) }
      return
    }
    send(
      makeTask, authorization: "Bearer \(credential.accessToken)", span: span, replay: false,
      observer: observer, runsHere: runsHere
    ) { [self] response in
      guard response.statusCode == 401 else { return finish(.success(response)) }
      unauthorized(
        label, token: credential.accessToken, span: span, observer: observer,
        replay: { [self] fresh in
          send(
            makeTask, authorization: "Bearer \(fresh.accessToken)", span: span, replay: true,
            observer: observer
          ) { finish(.success($0)) }
        }, fail: { finish(.failure($0)) })
    }
  }

  /// `perform`, waiting for the outcome; Ctrl-C cancels the wait.
  public func performAndWait(
    _ label: String, isCancelled: @escaping @Sendable () -> Bool = { false },
    makeTask: @escaping MakeTask
  ) -> Outcome {
    let box = OutcomeBox()
    let done = DispatchSemaphore(value: 0)
    perform(label, observer: nil, runsHere: isCancelled, makeTask: makeTask) { outcome in
      box.value = outcome
      done.signal()
    }
    while done.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
      // The requests finish on their own, within the timeout; the caller stops waiting now.
      if isCancelled() { return .failure(.network(.cancelled(url: label))) }
    }
    return box.value ?? .failure(.network(.transport(url: label, detail: "no outcome")))
  }

  // MARK: - Private

  /// The stored credential, which a refresh's delegate call has replaced; remembered as the
  /// latest unless a refresh ran or began while it was read.
  ///
  /// A read that a refresh overtook would otherwise put the spent credential back as the latest,
  /// and the next 401 would refresh again with a refresh token the server no longer takes.
  private func current() -> OAuth2Credential? {
    let generation = state.withLock { $0.refreshes }
    let stored = (try? accountUserProvider.credential()) ?? nil
    return state.withLock { state in
      if !state.isRefreshing, state.refreshes == generation { state.latest = stored }
      return stored
    }
  }

  private func send(
    _ makeTask: MakeTask, authorization: String?, span: Span, replay: Bool,
    observer: (@Sendable (AuthorizationEvent) -> Void)?, runsHere: (@Sendable () -> Bool)? = nil,
    then: @escaping @Sendable (APIResponse) -> Void
  ) {
    do {
      let task = try makeTask(authorization, span) { [self] response in
        if response.statusCode == 401 {
          state.withLock { $0.lastUnauthorizedWasReplay = replay }
        }
        observer?(.answered(status: response.statusCode, replay: replay))
        then(response)
      }
      observer?(.sent(replay: replay))
      HTTPExchangeEvent.$currentRole.withValue(replay ? .replay : .request) {
        if let runsHere { task.wait(isCancelled: runsHere) } else { task.resume() }
      }
    } catch {
      then(
        APIResponse(
          method: "", url: URL(fileURLWithPath: "/"), requestHeaders: [], head: nil, data: Data(),
          error: .transport(url: "", detail: String(describing: error)), milliseconds: 0,
          redirectedBaseURL: nil))
    }
  }

  private func unauthorized(
    _ label: String, token: String, span: Span,
    observer: (@Sendable (AuthorizationEvent) -> Void)?,
    replay: @escaping @Sendable (OAuth2Credential) -> Void,
    fail: @escaping @Sendable (OAuth2Error) -> Void
  ) {
    enum Next {
      case wait, loggedOut
      case refresh(OAuth2Credential)
      case replayAtOnce(OAuth2Credential)
    }
    let waiter = Waiter(replay: replay, fail: fail)
    let next: Next = state.withLock { state in
      if state.isRefreshing {
        state.waiters.append(waiter)
        return .wait
      }
      if let latest = state.latest, latest.accessToken != token { return .replayAtOnce(latest) }
      guard let latest = state.latest else { return .loggedOut }
      state.isRefreshing = true
      state.refreshes += 1
      state.waiters.append(waiter)
      return .refresh(latest)
    }
    switch next {
    case .loggedOut:
      // Logged out while the request was in flight: there is nothing to refresh with.
      fail(.notLoggedIn)
    case .replayAtOnce(let fresh):
      span.addEvent("401 for a token already replaced: replayed with the current one")
      logger?.logInfo("401 for \(label) with a token a refresh already replaced: replayed at once")
      observer?(.tokenChangedInFlight)
      replay(fresh)
    case .wait:
      span.addEvent("401: queued")
      logger?.logInfo("401 for \(label): queued until the refresh ends")
      observer?(.queued)
    case .refresh(let credential):
      span.addEvent("401: queued, refresh started")
      logger?.logInfo("401 for \(label): queued; refreshing the credential")
      observer?(.queued)
      observer?(.refreshStarted)
      DispatchQueue.global().async { [self] in
        let result = tracer.withParent(span) {
          tracer.withSpan("OAuth2Authorization", "refresh") { refreshSpan in
            refreshSpan.setAttribute("queued", String(state.withLock { $0.waiters.count }))
            let result: Result<OAuth2Credential, OAuth2Error>
            do {
              result = try HTTPExchangeEvent.$currentRole.withValue(.refresh) {
                try makeSessionManager().refreshToken(credential.refreshToken)
              }
            } catch let error as OAuth2Error {
              result = .failure(error)
            } catch {
              result = .failure(.network(.transport(url: "/oauth/token", detail: "\(error)")))
            }
            if case .failure(let error) = result {
              refreshSpan.setAttribute("error", error.description)
            }
            return result
          }
        }
        finishRefresh(result, observer: observer)
      }
    }
  }

  private func finishRefresh(
    _ result: Result<OAuth2Credential, OAuth2Error>,
    observer: (@Sendable (AuthorizationEvent) -> Void)?
  ) {
    let queued: [Waiter] = state.withLock { state in
      state.isRefreshing = false
      if case .success(let fresh) = result { state.latest = fresh }
      defer { state.waiters = [] }
      return state.waiters
    }
    switch result {
    case .success(let fresh):
      logger?.logInfo("refresh succeeded: replaying \(queued.count) queued request(s)")
      observer?(.refreshFinished(succeeded: true))
      for waiter in queued { waiter.replay(fresh) }
    case .failure(let error):
      logger?.logWarning(
        "refresh failed: \(error); \(queued.count) queued request(s) get the error, "
          + "and the credential is kept")
      observer?(.refreshFinished(succeeded: false))
      for waiter in queued { waiter.fail(error) }
    }
  }
}

/// The outcome a waiting caller reads once the completion has written it.
private final class OutcomeBox: Sendable {
  private let stored = Mutex<OAuth2Authorization.Outcome?>(nil)
  var value: OAuth2Authorization.Outcome? {
    get { stored.withLock { $0 } }
    set { stored.withLock { $0 = newValue } }
  }
}
