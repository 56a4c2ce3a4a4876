import Foundation
import Hummingbird

/// The demo user's favourite locations: `count` of them, computed from their paging id, so that
/// a million cost no memory and page k costs what page 0 does.
///
/// Paging ids run from 1 (the oldest) up; a location inserted on demand takes the next one, so
/// Realtime paging picks it up.
public final class LocationCatalog: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Int

  /// Creates a catalog of `count` locations.
  public init(count: Int = 100) { stored = max(0, count) }

  /// How many locations there are.
  public var count: Int {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = max(0, newValue) } }
  }

  /// Adds `n` new locations at the top (the newest paging ids); returns the new count.
  @discardableResult
  public func insert(_ n: Int) -> Int {
    lock.withLock {
      stored += max(0, n)
      return stored
    }
  }

  /// The location with paging id `pagingId` (1...count), in the convention.
  static func location(_ pagingId: Int) -> String {
    let names = ["Home", "Work", "Café", "Gym", "Library", "Park", "Station", "Market"]
    let name = "\(names[(pagingId - 1) % names.count]) \(pagingId)"
    let latitude = 51.0 + Double(pagingId % 1000) / 1000
    let longitude = -0.5 + Double(pagingId % 997) / 997
    let id = Accounts.uuid(time: 1_767_225_600 + pagingId, counter: pagingId)
    return """
      {"type":"Location","id":"\(id)","paging_id":\(pagingId),"name":\(Envelope.quote(name)),\
      "latitude":\(String(format: "%.3f", latitude)),"longitude":\(String(format: "%.4f", longitude)),\
      "address":null,"created_at":\(1_767_225_600 + pagingId)}
      """
  }

  /// One page: Standard (`offset`) or Realtime (`since_id` or `max_id`), ascending or
  /// descending by paging id; nil and a message for parameters that do not make a page.
  func page(_ query: [String: String]) -> (items: [String], offset: Int, total: Int)? {
    let total = count
    let limit = Int(query["limit"] ?? "20") ?? -1
    guard (1...1000).contains(limit) else { return nil }
    let descending: Bool
    switch query["order"] ?? "asc" {
    case "asc": descending = false
    case "desc": descending = true
    default: return nil
    }
    let ids: [Int]
    let offset: Int
    if let text = query["since_id"] {
      // Newer than since_id (exclusive): ascending from just after it; descending from the top.
      guard let since = Int(text), since >= 0 else { return nil }
      ids =
        descending
        ? Array(stride(from: total, to: max(since, total - limit), by: -1))
        : Array(stride(from: since + 1, through: min(total, since + limit), by: 1))
      offset = descending ? 0 : min(since, total)
    } else if let text = query["max_id"] {
      // Older than max_id (exclusive): descending from just below it; ascending from the oldest.
      guard let maximum = Int(text), maximum >= 1 else { return nil }
      let below = min(maximum - 1, total)
      ids =
        descending
        ? Array(stride(from: below, to: max(0, below - limit), by: -1))
        : Array(stride(from: 1, through: min(below, limit), by: 1))
      offset = descending ? total - below : 0
    } else {
      guard let start = Int(query["offset"] ?? "0"), start >= 0 else { return nil }
      let end = min(total, start + limit)
      ids = start < end ? (start..<end).map { descending ? total - $0 : $0 + 1 } : []
      offset = start
    }
    return (ids.map(Self.location), offset, total)
  }
}

extension LocationCatalog {
  /// Trip `n` (1-based): from location n to location n + 1, by way of location n + 2, with the
  /// user's profile; nested objects inside an object, as the convention has them.
  static func trip(_ n: Int, profile: String) -> String {
    let id = Accounts.uuid(time: 1_767_300_000 + n, counter: n)
    return """
      {"type":"Trip","id":"\(id)","paging_id":\(n),"profile":\(profile),\
      "start_location":\(location(n)),"end_location":\(location(n + 1)),\
      "stops":[\(location(n + 2))],"distance_meters":\(1000 + (n * 137) % 9000)}
      """
  }
}

extension DemoAPI {
  /// `GET /users/me/trips`, protected: the user's trips, one fewer than half the locations,
  /// newest first, by offset and limit.
  static func addTripRoutes(
    to router: Router<DemoContext>, accounts: Accounts, locations: LocationCatalog
  ) {
    router.get("users/me/trips") { request, _ -> Response in
      guard let account = bearer(request).flatMap(accounts.account(forAccessToken:)) else {
        return json(
          .unauthorized,
          Envelope.error("Unauthorized", "a valid bearer token is required for /users/me/trips"))
      }
      let total = max(0, locations.count / 2 - 1)
      let offset = max(0, request.uri.queryParameters.get("offset", as: Int.self) ?? 0)
      let limit = min(1000, max(1, request.uri.queryParameters.get("limit", as: Int.self) ?? 20))
      let end = min(total, offset + limit)
      let profile = Envelope.profile(account)
      let items =
        offset < end
        ? (offset..<end).map { LocationCatalog.trip(total - $0, profile: profile) } : []
      return json(.ok, Envelope.collection(items, offset: offset, total: total))
    }
  }

  /// `GET /users/me/locations` and `GET /users/{id}/locations`, protected.
  static func addLocationRoutes(
    to router: Router<DemoContext>, accounts: Accounts, locations: LocationCatalog
  ) {
    let handler: @Sendable (Request, DemoContext) async throws -> Response = { request, context in
      guard let account = bearer(request).flatMap(accounts.account(forAccessToken:)) else {
        return json(
          .unauthorized,
          Envelope.error(
            "Unauthorized", "a valid bearer token is required for \(request.uri.path)"))
      }
      if let id = context.parameters.get("id"), id != account.id {
        return json(.notFound, Envelope.error("ResourceNotFound", "no user with id \(id)"))
      }
      var query: [String: String] = [:]
      for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
      guard let page = locations.page(query) else {
        return json(
          .badRequest,
          Envelope.error(
            "InvalidParameters",
            "limit is 1...1000; offset, since_id and max_id are whole numbers; order is asc or desc"
          ))
      }
      return json(.ok, Envelope.collection(page.items, offset: page.offset, total: page.total))
    }
    router.get("users/me/locations", use: handler)
    router.get("users/{id}/locations", use: handler)
  }
}
