import DemoAPI
import Domain
import Foundation
import TestSupport
import Testing

/// A factory logged in to a demo API of its own with `locations` favourite locations.
private struct Paging: @unchecked Sendable {
  let server: DemoAPI
  let factory: ApplicationFactory

  static func start(locations: Int) async throws -> Paging {
    let server = try await offPool {
      try DemoAPI.start(catalogSize: 5, locations: LocationCatalog(count: locations))
    }
    let factory = ApplicationFactory(
      configuration: ApplicationConfiguration(apiURL: server.baseURL.absoluteString))
    let paging = Paging(server: server, factory: factory)
    try await paging.blocking {
      let api = factory.api
      _ = try api.oAuth2SessionManager().tokenGrant(
        username: Accounts.demoEmail, password: Accounts.demoPassword
      ).get()
      try api.accountUserProvider.logIn(email: Accounts.demoEmail)
    }
    return paging
  }

  func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await offPool(body)
  }

  func create(
    _ name: String, paging: RepositoryDefinition.PagingMode = .standard,
    ordering: RepositoryDefinition.Ordering = .none, limit: Int = 5
  ) throws {
    try factory.api.repositoryStore.create(
      RepositoryDefinition(
        name: name, path: "/users/me/locations", ordering: ordering, paging: paging, limit: limit))
  }

  func fetch(_ name: String) async throws -> FetchResult? {
    let factory = self.factory
    return try await blocking { try factory.api.repository(named: name).fetch() }
  }
}

@Suite("Repository against the demo API, over real HTTP", .serialized)
struct RepositoryTests {
  @Test("Standard paging sends offsets 0, then 5, then 10, and ends at the total")
  func standard() async throws {
    let paging = try await Paging.start(locations: 12)
    defer { paging.server.stop() }
    try paging.create("fav")
    var sent: [[String]] = []
    var added: [Int] = []
    for _ in 0..<3 {
      let result = try #require(try await paging.fetch("fav"))
      sent.append(result.parameters.map(\.description))
      added.append(result.added)
    }
    #expect(
      sent == [["limit=5", "offset=0"], ["limit=5", "offset=5"], ["limit=5", "offset=10"]])
    #expect(added == [5, 5, 2])
    let record = try paging.factory.api.repositoryStore.record("fav")
    #expect(record.count == 12 && record.total == 12 && record.atEnd)
    #expect(record.fetchState == .fetched)
    #expect(record.firstPagingId == "1" && record.lastPagingId == "12")
    // The elements are stored, in order, and survive in the workspace.
    let stored = try paging.factory.api.repositoryStore.elements("fav", from: 10, count: 5)
    #expect(stored.map(\.position) == [10, 11])
    #expect(stored.first?.json.contains(#""paging_id":11"#) == true)
  }

  @Test("Realtime Ascending sends since_id and picks up locations inserted at the top")
  func realtimeAscending() async throws {
    let paging = try await Paging.start(locations: 7)
    defer { paging.server.stop() }
    try paging.create("tl", paging: .realtime, ordering: .ascending)
    let first = try #require(try await paging.fetch("tl"))
    let second = try #require(try await paging.fetch("tl"))
    #expect(first.parameters.map(\.description) == ["limit=5", "order=asc"])
    #expect(second.parameters.map(\.description) == ["limit=5", "since_id=5", "order=asc"])
    #expect(second.added == 2 && second.record.atEnd)
    paging.server.locations.insert(3)
    let third = try #require(try await paging.fetch("tl"))
    #expect(third.parameters.map(\.description) == ["limit=5", "since_id=7", "order=asc"])
    #expect(third.added == 3)
    #expect(third.record.lastPagingId == "10" && third.record.count == 10)
  }

  @Test("Realtime Descending sends max_id from the last (oldest) element")
  func realtimeDescending() async throws {
    let paging = try await Paging.start(locations: 8)
    defer { paging.server.stop() }
    try paging.create("desc", paging: .realtime, ordering: .descending, limit: 3)
    let first = try #require(try await paging.fetch("desc"))
    let second = try #require(try await paging.fetch("desc"))
    #expect(first.parameters.map(\.description) == ["limit=3", "order=desc"])
    #expect(first.record.firstPagingId == "8" && first.record.lastPagingId == "6")
    #expect(second.parameters.map(\.description) == ["limit=3", "max_id=6", "order=desc"])
    #expect(second.record.lastPagingId == "3")
    let shown = try paging.factory.api.repositoryStore.elements("desc", from: 0, count: 10)
    #expect(shown.compactMap { Self.pagingID($0.json) } == [8, 7, 6, 5, 4, 3])
  }

  @Test(
    "a duplicate across pages is dropped: locations inserted between Standard pages shift the offsets"
  )
  func duplicates() async throws {
    let paging = try await Paging.start(locations: 10)
    defer { paging.server.stop() }
    try paging.create("shift", ordering: .descending, limit: 5)
    _ = try await paging.fetch("shift")
    // Two new locations at the top push two of the first page into the second.
    paging.server.locations.insert(2)
    let second = try #require(try await paging.fetch("shift"))
    #expect(second.received == 5 && second.added == 3 && second.duplicates == 2)
    #expect(second.record.count == 8)
  }

  @Test("a fetch while one is in flight returns nil (the seed's false)")
  func inFlight() async throws {
    let paging = try await Paging.start(locations: 10)
    defer { paging.server.stop() }
    try paging.create("slow")
    paging.server.faults.add(
      Fault(method: "GET", path: "/users/me/locations", kind: .delayOnly, delay: 1.5))
    let factory = paging.factory
    async let slow = paging.blocking { try factory.api.repository(named: "slow").fetch() }
    // The second fetch starts once the first is in flight, however busy the test's threads are.
    let began = Date()
    while try factory.api.repositoryStore.record("slow").fetchState != .fetching,
      Date().timeIntervalSince(began) < 10
    {
      try await Task.sleep(nanoseconds: 10_000_000)
    }
    let second = try await paging.fetch("slow")
    #expect(second == nil)
    #expect(try factory.api.repositoryStore.record("slow").fetchState == .fetching)
    let first = try await slow
    #expect(first?.added == 5)
    #expect(try factory.api.repositoryStore.record("slow").fetchState == .fetched)
  }

  @Test("an error keeps the elements and sets Error; the next fetch goes on from there")
  func error() async throws {
    let paging = try await Paging.start(locations: 10)
    defer { paging.server.stop() }
    try paging.create("err")
    _ = try await paging.fetch("err")
    paging.server.faults.add(
      Fault(method: "GET", path: "/users/me/locations", kind: .status(503, body: nil)))
    await #expect(throws: NetworkError.self) { try await paging.fetch("err") }
    let failed = try paging.factory.api.repositoryStore.record("err")
    #expect(failed.fetchState == .error && failed.count == 5)
    #expect(failed.lastError?.contains("HTTP 503") == true)
    let next = try #require(try await paging.fetch("err"))
    #expect(
      next.parameters.map(\.description) == ["limit=5", "offset=5"] && next.record.count == 10)
  }

  @Test("the server failing in the middle of paging keeps the pages fetched so far")
  func failsMidway() async throws {
    let paging = try await Paging.start(locations: 20)
    defer { paging.server.stop() }
    try paging.create("mid")
    paging.server.faults.add(
      Fault(method: "GET", path: "/users/me/locations", kind: .status(500, body: nil), after: 2))
    var fetched = 0
    do {
      while let result = try await paging.fetch("mid"), !result.record.atEnd { fetched += 1 }
      Issue.record("the third fetch should have failed")
    } catch {
      #expect("\(error)".contains("HTTP 500"))
    }
    #expect(fetched == 2)
    let record = try paging.factory.api.repositoryStore.record("mid")
    #expect(record.count == 10 && record.fetchState == .error && record.lastPagingId == "10")
  }

  @Test("an expired token in the middle of paging is refreshed and the page replayed once")
  func expiredMidPaging() async throws {
    let paging = try await Paging.start(locations: 10)
    defer { paging.server.stop() }
    try paging.create("auth")
    _ = try await paging.fetch("auth")
    paging.server.accounts.expireAccessTokens()
    let second = try #require(try await paging.fetch("auth"))
    #expect(second.added == 5 && second.record.atEnd)
    #expect(paging.server.accounts.refreshGrantCount == 1)
    #expect(try paging.factory.api.oAuth2Authorization.refreshCount == 1)
  }

  @Test("Realtime without an order, and an unknown repository, are errors")
  func mistakes() throws {
    let factory = ApplicationFactory(databasePath: ":memory:")
    #expect(throws: RepositoryError.realtimeNeedsOrder) {
      try factory.api.repositoryStore.create(
        RepositoryDefinition(name: "x", path: "/p", ordering: .none, paging: .realtime, limit: 5))
    }
    try factory.api.repositoryStore.create(
      RepositoryDefinition(name: "favs", path: "/p", ordering: .none, paging: .standard, limit: 5))
    #expect(throws: RepositoryError.unknown("fav", suggestion: "favs")) {
      try factory.api.repository(named: "fav")
    }
    #expect(throws: RepositoryError.exists("favs")) {
      try factory.api.repositoryStore.create(
        RepositoryDefinition(name: "favs", path: "/p", ordering: .none, paging: .standard, limit: 5)
      )
    }
  }

  private static func pagingID(_ json: String) -> Int? {
    guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
    else { return nil }
    return object["paging_id"] as? Int
  }
}
