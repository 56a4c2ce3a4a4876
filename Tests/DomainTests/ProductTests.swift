import DemoAPI
import Foundation
import TestSupport
import Testing

@testable import Domain
@testable import Runtime

/// An updater over the test server and a fresh in-memory workspace.
private struct Fixture: @unchecked Sendable {
  let server: DemoAPI
  let network: NetworkController
  let cache: PersistenceController
  let updater: ProductUpdater
  let tracer = Tracer()
  /// Where the coders come from, as in the app.
  let factory = ApplicationFactory()

  init(timeout: Double = 5) async throws {
    server = try await TestServer.shared.get()
    network = NetworkController(baseURL: server.baseURL, timeout: timeout, tracer: tracer)
    let workspace = try Workspace(path: ":memory:")
    cache = PersistenceController(identifier: .productCache, workspace: workspace, tracer: tracer)
    updater = ProductUpdater(
      networkController: network, productPersistenceController: cache,
      decoder: factory.json.decoder(), encoder: factory.json.encoder(), tracer: tracer)
  }

  func url(_ path: String) -> URL { server.baseURL.appendingPathComponent(path) }
}

@Suite("ProductUpdater, Translator and MagazineIssueUpdater over real HTTP", .serialized)
struct ProductTests {
  @Test(
    "updateProduct(from:) persists the product under url.absoluteString; product(from:) reads it back"
  )
  func updateAndRead() async throws {
    let fixture = try await Fixture()
    let url = fixture.url("products/3")
    #expect(try fixture.updater.product(from: url) == nil)
    let product = try await offPool { try fixture.updater.updateProduct(from: url).get() }
    #expect(
      product
        == Product(
          id: 3, name: "iPhone 15", family: "iPhones", priceCents: 79_900,
          details: "6.1-inch display, A16 Bionic, Dynamic Island"))
    #expect(try fixture.cache.keys() == [url.absoluteString])
    #expect(try fixture.updater.product(from: url) == product)
  }

  @Test(
    "each injected fault fails the update with its own error, and the cached copy survives",
    arguments: [
      (
        Fault.Kind.status(503, body: nil),
        "HTTP 503 ServiceUnavailable: injected fault: HTTP 503 for /products/4"
      ),
      (.empty, "emptyResponseData: URL answered with no body"),
      (.malformed, "cannot decode the response: the body is not valid JSON"),
      (
        .drop,
        "request to URL failed: the body ended after 20 of 4096 bytes: the server closed the "
          + "connection before the rest"
      ),
      (
        .status(200, body: #"{"code":"OK","data":{"type":"product","id":4,"name":"x"}}"#),
        "cannot decode the response at 'data.family': the field is missing"
      ),
    ])
  func faults(kind: Fault.Kind, message: String) async throws {
    let fixture = try await Fixture()
    let url = fixture.url("products/4")
    let good = try await offPool { try fixture.updater.updateProduct(from: url).get() }
    let before = try await fixture.cache.retrieve(forKey: url.absoluteString)
    fixture.server.faults.add(Fault(method: "GET", path: "/products/4", kind: kind))
    let result = await offPool { fixture.updater.updateProduct(from: url) }
    #expect(throws: (any Error).self) { try result.get() }
    if case .failure(let error) = result {
      #expect(
        String(describing: error)
          == message.replacingOccurrences(of: "URL", with: url.absoluteString))
    }
    #expect(try await fixture.cache.retrieve(forKey: url.absoluteString) == before)
    #expect(try fixture.updater.product(from: url) == good)
    // The fault was used up. (Only this path's: other suites share the server and add their own.)
    #expect(fixture.server.faults.active.filter { $0.path == "/products/4" }.isEmpty)
  }

  @Test("a delay past the timeout is a timeout; a shorter one only slows the answer")
  func delay() async throws {
    let fixture = try await Fixture(timeout: 0.3)
    let url = fixture.url("products/5")
    fixture.server.faults.add(Fault(method: "GET", path: "/products/5", kind: .delayOnly, delay: 1))
    let late = await offPool { fixture.updater.updateProduct(from: url) }
    #expect(throws: NetworkError.timeout(url: url.absoluteString, seconds: 0.3)) { try late.get() }
    #expect(try fixture.updater.product(from: url) == nil)
    fixture.server.faults.add(
      Fault(method: "GET", path: "/products/5", kind: .delayOnly, delay: 0.05))
    let slow = await offPool { fixture.updater.updateProduct(from: url) }
    #expect(try slow.get().id == 5)
  }

  @Test("a cancelled request returns at once with 'cancelled'")
  func cancel() async throws {
    let server = try await TestServer.shared.get()
    let flag = Flag()
    let network = NetworkController(
      baseURL: server.baseURL, tracer: Tracer(), isCancelled: { flag.isSet })
    server.faults.add(Fault(method: "GET", path: "/products/6", kind: .delayOnly, delay: 5))
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { flag.set() }
    // Not cancelled, the answer would come after 5 s, and succeed: 'cancelled' is the proof.
    let response = await offPool { network.perform(NetworkRequest(path: "/products/6")) }
    let url = server.baseURL.absoluteString + "/products/6"
    #expect(throws: NetworkError.cancelled(url: url)) { try response.result.get() }
  }

  @Test(
    "a fault matches its method and path, a trailing * matches a prefix, and --times counts down")
  func faultMatching() {
    let table = FaultTable()
    table.add(Fault(method: "get", path: "/products/*", kind: .drop, times: 2))
    table.add(Fault(method: "*", path: "/issues/1", kind: .empty, times: nil))
    #expect(table.take(method: "POST", path: "/products/1") == nil)
    #expect(table.take(method: "GET", path: "/product") == nil)
    #expect(table.take(method: "GET", path: "/products/9")?.kind == .drop)
    #expect(table.take(method: "GET", path: "/products/")?.hits == 2)
    #expect(table.take(method: "GET", path: "/products/9") == nil)
    for _ in 0..<5 { #expect(table.take(method: "DELETE", path: "/issues/1")?.kind == .empty) }
    #expect(table.active.map(\.hits) == [5])
    #expect(table.clear() == 1)
    #expect(table.active.isEmpty)
  }

  @Test("the completion form reports objectDeallocated when the updater is gone before the answer")
  func objectDeallocated() async throws {
    let fixture = try await Fixture()
    fixture.server.faults.add(
      Fault(method: "GET", path: "/products/7", kind: .delayOnly, delay: 0.3))
    let result = await withCheckedContinuation { continuation in
      var updater: ProductUpdater? = ProductUpdater(
        networkController: fixture.network, productPersistenceController: fixture.cache,
        decoder: fixture.factory.json.decoder(), encoder: fixture.factory.json.encoder(),
        tracer: fixture.tracer)
      updater?.updateProduct(from: fixture.url("products/7"), completionQueue: .global()) {
        continuation.resume(returning: $0)
      }
      updater = nil
    }
    #expect(throws: ProductUpdater.Error.objectDeallocated) { try result.get() }
    #expect(try fixture.cache.keys().isEmpty)
  }

  @Test(
    "the trace follows the flow: updater, network with status and bytes, decoding, persistence, completion"
  )
  func trace() async throws {
    let fixture = try await Fixture()
    fixture.tracer.enable()
    _ = try await offPool {
      try fixture.updater.updateProduct(from: fixture.url("products/8")).get()
    }
    let root = try #require(fixture.tracer.drainCompleted().last)
    #expect(root.component == "ProductUpdater")
    #expect(
      root.children.map { "\($0.component) \($0.operation)" } == [
        "NetworkController GET /products/8", "PersistenceController persist",
        "ProductUpdater completion(.success(Product 8))",
      ])
    let network = root.children[0]
    #expect(network.attributes.first { $0.key == "status" }?.value == "200")
    #expect(network.children.map(\.operation) == ["decode Product"])
  }

  @Test("the Translator formats the price and picks the badge by price tier")
  func translator() {
    let translator = ProductToProductCellViewModelTranslator()
    let watch = translator.translate(
      product: Product(id: 1, name: "Apple TV HD", family: "Apple TVs", priceCents: 9_900))
    #expect(
      watch
        == ProductCellViewModel(
          title: "Apple TV HD", subtitle: "Apple TVs", formattedPrice: "$99.00", badge: "Value"))
    let pro = translator.translate(
      product: Product(
        id: 2, name: "iPad Pro", family: "iPads", priceCents: 1_234_567, details: "M4"))
    #expect(pro.formattedPrice == "$12,345.67")
    #expect(pro.subtitle == "iPads · M4")
    #expect(pro.badge == "Premium")
    let euro = translator.translate(
      product: Product(id: 3, name: "x", family: "y", priceCents: 50_005, currency: "EUR"))
    #expect(euro.formattedPrice == "500.05 EUR")
    #expect(euro.badge == nil)
  }

  @Test(
    "MagazineIssueUpdater persists the issue in 'issues' and the asset's bytes in 'issueAssets'")
  func magazine() async throws {
    let fixture = try await Fixture()
    let workspace = try Workspace(path: ":memory:")
    let issues = PersistenceController(
      identifier: .issues, workspace: workspace, tracer: fixture.tracer)
    let assets = PersistenceController(
      identifier: .issueAssets, workspace: workspace, tracer: fixture.tracer)
    let updater = MagazineIssueUpdater(
      networkController: fixture.network, issuePersistenceController: issues,
      assetPersistenceController: assets, decoder: fixture.factory.json.decoder(),
      encoder: fixture.factory.json.encoder(), tracer: fixture.tracer)
    let issueURL = fixture.url("issues/2")
    let issue = try await offPool { try updater.updateIssue(from: issueURL).get() }
    #expect(issue.title == "Parsers")
    #expect(issue.assets.map(\.name) == ["cover.rgb", "article.html", "styles.css"])
    #expect(try issues.keys() == [issueURL.absoluteString])
    let assetURL = fixture.url("issues/2/assets/cover.rgb")
    let saved = try await offPool {
      try updater.loadAsset(from: assetURL, inIssueWithIdentifier: 2).get()
    }
    #expect(saved.data.count == 64 * 64 * 3)
    #expect(saved.contentType == "application/octet-stream")
    #expect(try await assets.retrieve(forKey: assetURL.absoluteString) == saved.data)
    let missing = await offPool {
      updater.loadAsset(from: fixture.url("issues/2/assets/none.png"), inIssueWithIdentifier: 2)
    }
    #expect(
      throws: NetworkError.http(
        status: 404, code: "ResourceNotFound", message: "issue 2 has no asset 'none.png'")
    ) { try missing.get() }
  }
}

/// A flag set from another thread.
private final class Flag: @unchecked Sendable {
  private let lock = NSLock()
  private var value = false
  var isSet: Bool { lock.withLock { value } }
  func set() { lock.withLock { value = true } }
}
