import Foundation
import Plumbing
import Synchronization

/// The demo user's favourite locations: `count` of them, computed from their paging id, so that
/// a million cost no memory and page k costs what page 0 does.
///
/// Paging ids run from 1 (the oldest) up; a location inserted on demand takes the next one, so
/// Realtime paging picks it up.
public final class LocationCatalog: Sendable {
  private let stored: Mutex<Int>

  /// Creates a catalog of `count` locations.
  public init(count: Int = 100) { stored = Mutex(max(0, count)) }

  /// How many locations there are.
  public var count: Int {
    get { stored.withLock { stored in stored } }
    set { stored.withLock { stored in stored = max(0, newValue) } }
  }

  /// Adds `n` new locations at the top (the newest paging ids); returns the new count.
  @discardableResult
  public func insert(_ n: Int) -> Int {
    stored.withLock { stored in
      stored += max(0, n)
      return stored
    }
  }

  /// The places titles and subtitles come from, in the example app's San Francisco.
  static let places: [(title: String, subtitle: String)] = [
    ("Polk Street", "San Francisco, CA"), ("Ferry Building", "The Embarcadero, San Francisco, CA"),
    ("Dolores Park", "Mission District, San Francisco, CA"),
    ("Coit Tower", "Telegraph Hill, San Francisco, CA"),
    ("Lands End", "Outer Richmond, San Francisco, CA"),
    ("San Francisco International Airport (SFO)", "San Francisco, CA 94128, USA"),
    ("Pier 39", "Fisherman's Wharf, San Francisco, CA"),
    ("703 Bradford Way", "Pacifica, CA"),
  ]

  /// The location with paging id `pagingId` (1...count), in the shape of the original example
  /// app's `Location` (its stubs): title, subtitle, an optional nickname, coordinates and
  /// `image_url`; the id is a time-sortable UUID and the paging id a number, as the convention
  /// has them.
  static func location(_ pagingId: Int) -> String {
    let place = places[(pagingId - 1) % places.count]
    let title = "\(place.title) \(pagingId)"
    let nickname = pagingId % 5 == 0 ? Envelope.quote("Favourite \(pagingId / 5)") : "null"
    let latitude = 37.6 + Double(pagingId % 1000) / 5000
    let longitude = -122.5 + Double(pagingId % 997) / 4985
    let id = Accounts.uuid(time: 1_767_225_600 + pagingId, counter: pagingId)
    return """
      {"type":"Location","id":"\(id)","paging_id":\(pagingId),"title":\(Envelope.quote(title)),\
      "subtitle":\(Envelope.quote(place.subtitle)),"nickname":\(nickname),\
      "latitude":\(String(format: "%.4f", latitude)),"longitude":\(String(format: "%.4f", longitude)),\
      "image_url":"https://example.com/locations/\(pagingId).jpg"}
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
  /// Trip `n` (1-based): from location n to location n + 1, with the user as its profile, in
  /// the shape of the original example app's `Trip` (its `trip_stub.json`).
  static func trip(_ n: Int, profile: String) -> String {
    let id = Accounts.uuid(time: 1_767_300_000 + n, counter: n)
    return """
      {"type":"Trip","id":"\(id)","paging_id":\(n),"profile":\(profile),\
      "start_location":\(location(n)),"end_location":\(location(n + 1))}
      """
  }
}

extension DemoAPI {
  /// `GET /users/me/trips`, protected: the user's trips, one fewer than half the locations,
  /// newest first, by offset and limit.
  static func trips(
    _ request: ServerRequest, accounts: Accounts, locations: LocationCatalog
  ) -> ServerResponse {
    guard let account = bearer(request).flatMap(accounts.account(forAccessToken:)) else {
      return json(
        401, Envelope.error("Unauthorized", "a valid bearer token is required for /users/me/trips"))
    }
    let total = max(0, locations.count / 2 - 1)
    let offset = max(0, request.query("offset").flatMap { Int($0) } ?? 0)
    let limit = min(1000, max(1, request.query("limit").flatMap { Int($0) } ?? 20))
    let end = min(total, offset + limit)
    let profile = Envelope.user(account)
    let items =
      offset < end
      ? (offset..<end).map { LocationCatalog.trip(total - $0, profile: profile) } : []
    return json(200, Envelope.collection(items, offset: offset, total: total))
  }

  /// `GET /users/me/locations` and `GET /users/{id}/locations` (`user` is the id), protected.
  static func locations(
    _ request: ServerRequest, user: String?, accounts: Accounts, locations: LocationCatalog
  ) -> ServerResponse {
    guard let account = bearer(request).flatMap(accounts.account(forAccessToken:)) else {
      return json(
        401, Envelope.error("Unauthorized", "a valid bearer token is required for \(request.path)"))
    }
    if let user, user != account.id {
      return json(404, Envelope.error("ResourceNotFound", "no user with id \(user)"))
    }
    var query: [String: String] = [:]
    for (key, value) in request.query { query[key] = value }
    guard let page = locations.page(query) else {
      return json(
        400,
        Envelope.error(
          "InvalidParameters",
          "limit is 1...1000; offset, since_id and max_id are whole numbers; order is asc or desc"
        ))
    }
    return json(200, Envelope.collection(page.items, offset: page.offset, total: page.total))
  }
}
