import Foundation
import Hummingbird
import Logging

/// The embedded REST backend the networking controllers talk to, over real HTTP on 127.0.0.1.
///
/// It serves the demo catalog in the BDModules response convention. It shares nothing with the
/// Domain layer but the wire format.
public final class DemoAPI: @unchecked Sendable {
  /// Where the server listens, such as `http://127.0.0.1:49152`.
  public let baseURL: URL
  private let task: Task<Void, Error>

  private init(baseURL: URL, task: Task<Void, Error>) {
    self.baseURL = baseURL
    self.task = task
  }

  /// Starts the server on 127.0.0.1 (port 0 picks a free one) and returns once it listens.
  public static func start(port: Int = 0, catalogSize: Int = 100) throws -> DemoAPI {
    let bound = BoundPort()
    let application = makeApplication(port: port, catalog: Catalog(size: catalogSize), bound: bound)
    let task = Task { try await application.run() }
    guard let actual = bound.wait(seconds: 10) else {
      task.cancel()
      throw DemoAPIError.couldNotStart(port: port)
    }
    guard let url = URL(string: "http://127.0.0.1:\(actual)") else {
      throw DemoAPIError.couldNotStart(port: port)
    }
    return DemoAPI(baseURL: url, task: task)
  }

  /// Stops the server.
  public func stop() { task.cancel() }

  static func makeApplication(port: Int, catalog: Catalog, bound: BoundPort)
    -> some ApplicationProtocol
  {
    let router = Router()
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
    // The server's own logger stays quiet: it must never write into the shell's output.
    var logger = Logger(label: "archsh.demoapi")
    logger.logLevel = .critical
    return Application(
      router: router,
      configuration: .init(
        address: .hostname("127.0.0.1", port: port), serverName: "archsh-demoapi"),
      onServerRunning: { channel in bound.set(channel.localAddress?.port) },
      logger: logger)
  }

  static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
    Response(
      status: status, headers: [.contentType: "application/json; charset=utf-8"],
      body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
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

/// The port the server bound, handed from its start-up callback to the thread that waits for it.
final class BoundPort: @unchecked Sendable {
  private let condition = NSCondition()
  private var port: Int?
  private var done = false

  func set(_ port: Int?) {
    condition.withLock {
      self.port = port
      done = true
      condition.broadcast()
    }
  }

  func wait(seconds: Double) -> Int? {
    condition.withLock {
      let deadline = Date().addingTimeInterval(seconds)
      while !done, condition.wait(until: deadline) {}
      return port
    }
  }
}
