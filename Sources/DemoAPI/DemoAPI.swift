import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Plumbing
import ServiceLifecycle

/// The embedded REST backend the networking controllers talk to, over real HTTP on 127.0.0.1.
///
/// It serves the demo catalog in the BDModules response convention. It shares nothing with the
/// Domain layer but the wire format.
public final class DemoAPI: Sendable {
  /// Where the server listens, such as `http://127.0.0.1:49152`.
  public let baseURL: URL
  /// The faults it injects; `net fault` adds to them.
  public let faults: FaultTable
  /// Its accounts, OAuth2 client and tokens.
  public let accounts: Accounts
  /// The demo user's favourite locations.
  public let locations: LocationCatalog
  private let group: ServiceGroup

  private init(
    baseURL: URL, group: ServiceGroup, faults: FaultTable, accounts: Accounts,
    locations: LocationCatalog
  ) {
    self.baseURL = baseURL
    self.group = group
    self.faults = faults
    self.accounts = accounts
    self.locations = locations
  }

  /// Starts the server on 127.0.0.1 (port 0 picks a free one) and returns once it listens.
  public static func start(
    port: Int = 0, catalogSize: Int = 100, accounts: Accounts = Accounts(),
    locations: LocationCatalog = LocationCatalog()
  ) throws -> DemoAPI {
    let bound = BoundPort()
    let faults = FaultTable()
    let application = makeApplication(
      port: port, catalog: Catalog(size: catalogSize), faults: faults, accounts: accounts,
      locations: locations, bound: bound)
    // The application runs in a group of its own, so that stopping it is a graceful shutdown.
    let group = ServiceGroup(
      configuration: .init(services: [.init(service: application)], logger: quietLogger))
    // A port that cannot be bound ends run() at once: say so instead of waiting for a port.
    Task<Void, Never>(executorPreference: ServerThreads.shared) {
      do {
        try await group.run()
      } catch {
        bound.set(nil)
      }
    }
    guard let actual = bound.wait(seconds: 10) else {
      shutDown(group)
      throw DemoAPIError.couldNotStart(port: port)
    }
    guard let url = URL(string: "http://127.0.0.1:\(actual)") else {
      shutDown(group)
      throw DemoAPIError.couldNotStart(port: port)
    }
    return DemoAPI(
      baseURL: url, group: group, faults: faults, accounts: accounts, locations: locations)
  }

  /// Stops the server, and returns at once.
  ///
  /// The server stops listening, closes its idle connections and ends once the requests it is
  /// answering are answered.
  public func stop() { Self.shutDown(group) }

  /// Shuts the server down gracefully instead of cancelling its task.
  ///
  /// Cancelling could hang the process for good: Hummingbird's date cache waits on a merged
  /// sequence (swift-async-algorithms 1.1) whose lock is held across an executor switch, and with
  /// a task executor preference (`ServerThreads`) that switch takes the task's status lock, which a
  /// cancellation holds while it runs the merge's cancellation handler, which takes the merge's
  /// lock. A graceful shutdown ends the date cache through its own sequence, and cancels nothing
  /// that is waiting on the merge.
  private static func shutDown(_ group: ServiceGroup) {
    Task<Void, Never>(executorPreference: ServerThreads.shared) {
      await group.triggerGracefulShutdown()
    }
  }

  /// One path for each route that answers GET, with example parameters.
  ///
  /// Tab offers them for a request path while the embedded API is in use. A test asks the server
  /// for each one.
  public static let examplePaths = [
    "/echo", "/issues/1", "/products", "/products/1", "/users/me", "/users/me/locations",
    "/users/me/trips",
  ]

  /// The second base path the API also answers under.
  public static let secondBasePath = "/v2"
  /// The header that tells a route the second base path was there.
  static let basePathHeader = HTTPField.Name("X-Archsh-Base-Path")

  static func makeApplication(
    port: Int, catalog: Catalog, faults: FaultTable, accounts: Accounts,
    locations: LocationCatalog, bound: BoundPort
  ) -> some ApplicationProtocol {
    let router = Router(context: DemoContext.self)
    // Faults come first, so that they apply to every route, unknown paths included.
    router.add(middleware: FaultMiddleware(faults: faults))
    addAuthRoutes(to: router, accounts: accounts)
    addLocationRoutes(to: router, accounts: accounts, locations: locations)
    addTripRoutes(to: router, accounts: accounts, locations: locations)
    addEchoRoute(to: router)
    router.get("products") { request, _ -> Response in
      let offset = max(0, request.uri.queryParameters.get("offset", as: Int.self) ?? 0)
      let limit = min(1000, max(0, request.uri.queryParameters.get("limit", as: Int.self) ?? 20))
      let page = catalog.products.dropFirst(offset).prefix(limit).map(Envelope.product)
      return json(
        .ok, Envelope.collection(Array(page), offset: offset, total: catalog.products.count))
    }
    router.get("products/{id}") { _, context -> Response in
      guard let id = context.parameters.get("id", as: Int.self),
        let product = catalog.product(id: id)
      else {
        let id = context.parameters.get("id") ?? ""
        return json(.notFound, Envelope.error("ResourceNotFound", "no product with id \(id)"))
      }
      return json(.ok, Envelope.ok(Envelope.product(product)))
    }
    router.get("issues/{id}") { _, context -> Response in
      guard let id = context.parameters.get("id", as: Int.self), let issue = Magazine.issue(id: id)
      else {
        let id = context.parameters.get("id") ?? ""
        return json(.notFound, Envelope.error("ResourceNotFound", "no issue with id \(id)"))
      }
      return json(.ok, Envelope.ok(Envelope.issue(issue)))
    }
    router.get("issues/{id}/assets/{name}") { _, context -> Response in
      let id = context.parameters.get("id") ?? ""
      let name = context.parameters.get("name") ?? ""
      guard let issue = Int(id).flatMap(Magazine.issue(id:)) else {
        return json(.notFound, Envelope.error("ResourceNotFound", "no issue with id \(id)"))
      }
      guard let asset = issue.asset(named: name) else {
        return json(
          .notFound, Envelope.error("ResourceNotFound", "issue \(id) has no asset '\(name)'"))
      }
      return Response(
        status: .ok, headers: [.contentType: asset.contentType],
        body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.data)))
    }
    return Application(
      responder: BasePathResponder(inner: router.buildResponder(), bound: bound),
      // A connection that sends no complete request for 10 s is closed: a head sent a byte at a
      // time, or one never finished, holds nothing for long.
      server: .http1(configuration: .init(idleTimeout: .seconds(10))),
      configuration: .init(
        address: .hostname("127.0.0.1", port: port), serverName: "archsh-demoapi"),
      onServerRunning: { channel in bound.set(channel.localAddress?.port) },
      logger: quietLogger)
  }

  /// The server's own logger stays quiet: it must never write into the shell's output.
  static var quietLogger: Logger {
    var logger = Logger(label: "archsh.demoapi")
    logger.logLevel = .critical
    return logger
  }

  static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
    Response(
      status: status, headers: [.contentType: "application/json; charset=utf-8"],
      body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
  }
}

/// Serves the API under its second base path too: `/v2/products/1` is `/products/1`, so that a
/// redirect that swaps the base URL to `…/v2` keeps working.
///
/// The prefix is taken off before routing, and the request carries it in `X-Archsh-Base-Path`,
/// so that `/echo` can show the path as it was asked for.
struct BasePathResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context == DemoContext {
  typealias Context = DemoContext
  let inner: Inner
  /// The port it listens on, which a request's `Host` must name.
  let bound: BoundPort

  func respond(to request: Request, context: DemoContext) async throws -> Response {
    // DNS rebinding: a web page whose own name was made to resolve to 127.0.0.1 still sends that
    // name; only this server's own address is answered.
    let port = bound.value ?? 0
    let host = request.head.authority ?? ""
    guard host == "127.0.0.1:\(port)" || host == "localhost:\(port)" else {
      return DemoAPI.json(
        .misdirectedRequest,
        Envelope.error(
          "MISDIRECTED", "this server answers only to 127.0.0.1:\(port) and localhost:\(port)"))
    }
    let prefix = DemoAPI.secondBasePath
    guard let path = request.head.path, let header = DemoAPI.basePathHeader,
      path == prefix || path.hasPrefix(prefix + "/") || path.hasPrefix(prefix + "?")
    else { return try await inner.respond(to: request, context: context) }
    var head = request.head
    let rest = String(path.dropFirst(prefix.count))
    head.path = rest.isEmpty || rest.hasPrefix("?") ? "/" + rest : rest
    head.headerFields[header] = prefix
    return try await inner.respond(to: Request(head: head, body: request.body), context: context)
  }
}

/// Why the demo API could not run.
public enum DemoAPIError: Error, CustomStringConvertible {
  /// The server did not start listening.
  case couldNotStart(port: Int)

  /// A one-line description.
  public var description: String {
    switch self {
    case .couldNotStart(let port):
      return port == 0
        ? "the demo API could not start on 127.0.0.1"
        : "the demo API could not listen on 127.0.0.1:\(port)"
    }
  }
}

/// The request context: Hummingbird's basic one, plus the connection, so that a fault can drop it.
struct DemoContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  /// Closes the connection the request came on.
  let closeConnection: @Sendable () async throws -> Void
  /// Waits, on the connection's event loop: unlike `Task.sleep`, whose wake-up needs a thread of
  /// the cooperative pool, this wakes the task on the server's own threads (`ServerThreads`).
  let pause: @Sendable (Double) async throws -> Void

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    let channel = source.channel
    closeConnection = { try await channel.close() }
    pause = { seconds in
      let scheduled = channel.eventLoop.scheduleTask(
        in: .nanoseconds(Int64(seconds * 1_000_000_000))
      ) {}
      // Stopping the server ends a pause at once, as Task.sleep's cancellation did.
      try await withTaskCancellationHandler {
        try await scheduled.futureResult.get()
      } onCancel: {
        scheduled.cancel()
      }
    }
  }
}

/// Applies the first matching fault: waits its delay, then answers with it instead of the route.
struct FaultMiddleware: RouterMiddleware {
  typealias Context = DemoContext
  let faults: FaultTable

  func handle(
    _ request: Request, context: DemoContext,
    next: (Request, DemoContext) async throws -> Response
  ) async throws -> Response {
    guard let fault = faults.take(method: request.method.rawValue, path: request.uri.path) else {
      return try await next(request, context)
    }
    if fault.delay > 0 { try await context.pause(fault.delay) }
    switch fault.kind {
    case .delayOnly:
      return try await next(request, context)
    case .redirect(let base):
      // The Location is the new base with the path that was asked for, as a moved API answers.
      // A base that is a path stays on this server: the Host the request came to.
      let absolute =
        base.hasPrefix("/") ? "http://\(request.head.authority ?? "127.0.0.1")\(base)" : base
      var target = absolute.hasSuffix("/") ? String(absolute.dropLast()) : absolute
      target += request.uri.path
      if let query = request.uri.query, !query.isEmpty { target += "?" + query }
      return Response(
        status: .temporaryRedirect, headers: [.location: target, .contentLength: "0"],
        body: ResponseBody())
    case .status(let status, let body):
      let text =
        body
        ?? Envelope.error(
          Fault.code(forStatus: status), "injected fault: HTTP \(status) for \(request.uri.path)")
      let isJSON = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil
      return Response(
        status: .init(code: status),
        headers: [
          .contentType: isJSON ? "application/json; charset=utf-8" : "text/plain; charset=utf-8"
        ],
        body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    case .empty:
      return Response(status: .ok, headers: [.contentLength: "0"], body: ResponseBody())
    case .malformed:
      return DemoAPI.json(.ok, #"{"code":"OK","data":{"type":"product","id":"#)
    case .drop:
      // Part of an answer, then the connection closes: a client cannot take this for a stale
      // keep-alive connection and quietly retry, as it would if nothing had arrived.
      let closeConnection = context.closeConnection
      return Response(
        status: .ok,
        headers: [.contentType: "application/json; charset=utf-8", .contentLength: "4096"],
        body: ResponseBody { writer in
          try await writer.write(ByteBuffer(string: #"{"code":"OK","data":"#))
          try await closeConnection()
          throw CancellationError()
        })
    }
  }
}
