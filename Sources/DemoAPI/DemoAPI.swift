import Foundation
import Plumbing

/// The embedded REST backend the networking controllers talk to, over real HTTP on 127.0.0.1.
///
/// It serves the demo catalog in the BDModules response convention. It shares nothing with the
/// Domain layer but the wire format. It runs on `LoopbackServer` (SwiftNIO's HTTP/1.1 server
/// pipeline); its routes are the `route(_:)` table below.
public final class DemoAPI: Sendable {
  /// Where the server listens, such as `http://127.0.0.1:49152`.
  public let baseURL: URL
  /// The faults it injects; `net fault` adds to them.
  public let faults: FaultTable
  /// Its accounts, OAuth2 client and tokens.
  public let accounts: Accounts
  /// The demo user's favourite locations.
  public let locations: LocationCatalog
  private let server: LoopbackServer

  private init(
    baseURL: URL, server: LoopbackServer, faults: FaultTable, accounts: Accounts,
    locations: LocationCatalog
  ) {
    self.baseURL = baseURL
    self.server = server
    self.faults = faults
    self.accounts = accounts
    self.locations = locations
  }

  /// Starts the server on 127.0.0.1 (port 0 picks a free one) and returns once it listens.
  public static func start(
    port: Int = 0, catalogSize: Int = 100, accounts: Accounts = Accounts(),
    locations: LocationCatalog = LocationCatalog()
  ) throws -> DemoAPI {
    let faults = FaultTable()
    let routes = Routes(
      catalog: Catalog(size: catalogSize), faults: faults, accounts: accounts,
      locations: locations)
    let server: LoopbackServer
    do {
      // A connection that sends no complete request for 10 s is closed: a head sent a byte at a
      // time, or one never finished, holds nothing for long.
      server = try LoopbackServer.start(
        port: port, name: "archsh-demoapi", bodyLimit: echoBodyLimit, idleTimeout: .seconds(10),
        responder: routes.respond)
    } catch {
      throw DemoAPIError.couldNotStart(port: port)
    }
    guard let url = URL(string: "http://127.0.0.1:\(server.port)") else {
      server.stop()
      throw DemoAPIError.couldNotStart(port: port)
    }
    return DemoAPI(
      baseURL: url, server: server, faults: faults, accounts: accounts, locations: locations)
  }

  /// Stops the server, and returns at once.
  ///
  /// The server stops listening, closes its idle connections and closes each other one once the
  /// request it is answering is answered.
  public func stop() { server.stop() }

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
  static let basePathHeader = "x-archsh-base-path"

  static func json(_ status: Int, _ body: String) -> ServerResponse {
    ServerResponse(status: status, contentType: "application/json; charset=utf-8", body)
  }
}

/// The demo API's routes, and what comes before them: the `Host` check, the second base path and
/// the faults.
struct Routes: Sendable {
  let catalog: Catalog
  let faults: FaultTable
  let accounts: Accounts
  let locations: LocationCatalog

  /// Answers a request: refused unless its `Host` is this server; with the second base path
  /// taken off (`/v2/products/1` is `/products/1`, so that a redirect that swaps the base URL to
  /// `…/v2` keeps working, and the request carries the prefix in `X-Archsh-Base-Path`, so that
  /// `/echo` can show the path as it was asked for); then the first matching fault, or the route.
  func respond(_ original: ServerRequest) -> ServerResponse {
    guard original.namesThisServer else {
      let port = original.port
      return DemoAPI.json(
        421,
        Envelope.error(
          "MISDIRECTED", "this server answers only to 127.0.0.1:\(port) and localhost:\(port)"))
    }
    var request = original
    let prefix = DemoAPI.secondBasePath
    let path = request.path
    if path == prefix || path.hasPrefix(prefix + "/") {
      let rest = String(path.dropFirst(prefix.count))
      request.path = rest.isEmpty ? "/" : rest
      request.headers.removeAll { $0.name == DemoAPI.basePathHeader }
      request.headers.append((DemoAPI.basePathHeader, prefix))
    }
    guard let fault = faults.take(method: request.method, path: request.path) else {
      return route(request)
    }
    guard fault.delay > 0 else { return answer(fault, to: request) }
    // The server waits, then does what the fault says (the route, for a delay alone).
    let delayed = request
    return .after(fault.delay) { answer(fault, to: delayed) }
  }

  /// What a fault answers instead of the route.
  private func answer(_ fault: Fault, to request: ServerRequest) -> ServerResponse {
    switch fault.kind {
    case .delayOnly:
      return route(request)
    case .redirect(let base):
      // The Location is the new base with the path that was asked for, as a moved API answers.
      // A base that is a path stays on this server: the Host the request came to.
      let absolute =
        base.hasPrefix("/") ? "http://\(request.authority ?? "127.0.0.1")\(base)" : base
      var target = absolute.hasSuffix("/") ? String(absolute.dropLast()) : absolute
      target += request.path
      if let query = request.queryString, !query.isEmpty { target += "?" + query }
      return ServerResponse(status: 307, headers: [("Location", target), ("Content-Length", "0")])
    case .status(let status, let body):
      let text =
        body
        ?? Envelope.error(
          Fault.code(forStatus: status), "injected fault: HTTP \(status) for \(request.path)")
      let isJSON = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil
      return ServerResponse(
        status: status,
        contentType: isJSON ? "application/json; charset=utf-8" : "text/plain; charset=utf-8", text)
    case .empty:
      return ServerResponse(status: 200, headers: [("Content-Length", "0")])
    case .malformed:
      return DemoAPI.json(200, #"{"code":"OK","data":{"type":"product","id":"#)
    case .drop:
      // Part of an answer, then the connection closes: a client cannot take this for a stale
      // keep-alive connection and quietly retry, as it would if nothing had arrived.
      return ServerResponse(
        status: 200,
        headers: [("Content-Type", "application/json; charset=utf-8"), ("Content-Length", "4096")],
        body: .cut(Array(#"{"code":"OK","data":"#.utf8)))
    }
  }

  /// The route a request's method and path name; 404 with no body when none does.
  func route(_ request: ServerRequest) -> ServerResponse {
    let parts = request.path.split(separator: "/").map(String.init)
    let get = request.method == "GET"
    switch parts.count {
    case 1 where parts[0] == "echo":
      guard DemoAPI.echoMethods.contains(request.method) else { break }
      return DemoAPI.json(200, Envelope.ok(Echo(request: request).json))
    case 1 where get && parts[0] == "products":
      return products(request)
    case 2 where get && parts[0] == "products":
      guard let id = Int(parts[1]), let product = catalog.product(id: id) else {
        return DemoAPI.json(
          404, Envelope.error("ResourceNotFound", "no product with id \(parts[1])"))
      }
      return DemoAPI.json(200, Envelope.ok(Envelope.product(product)))
    case 2 where get && parts[0] == "issues":
      guard let issue = Int(parts[1]).flatMap(Magazine.issue(id:)) else {
        return DemoAPI.json(404, Envelope.error("ResourceNotFound", "no issue with id \(parts[1])"))
      }
      return DemoAPI.json(200, Envelope.ok(Envelope.issue(issue)))
    case 4 where get && parts[0] == "issues" && parts[2] == "assets":
      return asset(issue: parts[1], name: parts[3])
    case 2 where request.method == "POST" && parts == ["oauth", "token"]:
      return DemoAPI.token(request, accounts: accounts)
    case 2 where get && parts == ["users", "me"]:
      return DemoAPI.me(request, accounts: accounts)
    case 3 where get && parts == ["users", "me", "trips"]:
      return DemoAPI.trips(request, accounts: accounts, locations: locations)
    case 3 where get && parts[0] == "users" && parts[2] == "locations":
      return DemoAPI.locations(
        request, user: parts[1] == "me" ? nil : parts[1], accounts: accounts, locations: locations)
    default:
      break
    }
    return ServerResponse(status: 404)
  }

  private func products(_ request: ServerRequest) -> ServerResponse {
    let offset = max(0, request.query("offset").flatMap { Int($0) } ?? 0)
    let limit = min(1000, max(0, request.query("limit").flatMap { Int($0) } ?? 20))
    let page = catalog.products.dropFirst(offset).prefix(limit).map(Envelope.product)
    return DemoAPI.json(
      200, Envelope.collection(Array(page), offset: offset, total: catalog.products.count))
  }

  private func asset(issue id: String, name: String) -> ServerResponse {
    guard let issue = Int(id).flatMap(Magazine.issue(id:)) else {
      return DemoAPI.json(404, Envelope.error("ResourceNotFound", "no issue with id \(id)"))
    }
    guard let asset = issue.asset(named: name) else {
      return DemoAPI.json(
        404, Envelope.error("ResourceNotFound", "issue \(id) has no asset '\(name)'"))
    }
    return ServerResponse(
      status: 200, headers: [("Content-Type", asset.contentType)], body: .bytes(Array(asset.data)))
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
