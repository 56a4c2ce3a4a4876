import DemoAPI
import Foundation
import TestSupport
import Testing

@testable import Domain

private struct Envelope<T: Decodable & Sendable>: Decodable, Sendable {
  let code: String
  let data: T
}

private struct Product: Decodable, Sendable, Equatable {
  let id: Int
  let name: String
  let family: String
  let priceCents: Int
}

private struct ProductWithWeight: Decodable, Sendable {
  let id: Int
  let weight: Double
}

@Suite("NetworkController over real HTTP", .serialized)
struct NetworkTests {
  private func controller(timeout: Double = 5) async throws -> NetworkController {
    let base = try await TestServer.shared.get().baseURL
    return NetworkController(baseURL: base, timeout: timeout, tracer: Tracer())
  }

  @Test("a product decodes from the envelope, snake_case fields included")
  func decodes() async throws {
    let controller = try await controller()
    let response = await offPool {
      let decoder = JSONDecoder()
      decoder.keyDecodingStrategy = .convertFromSnakeCase
      return controller.perform(
        NetworkRequest(path: "/products/2"), decoding: Envelope<Product>.self, with: decoder)
    }
    let envelope = try response.result.get()
    #expect(envelope.code == "OK")
    #expect(
      envelope.data == Product(id: 2, name: "iPhone 15 Pro", family: "iPhones", priceCents: 99_900))
    #expect(response.response?.statusCode == 200)
  }

  @Test("collections carry info, and the catalog has the requested size")
  func collection() async throws {
    let controller = try await controller()
    let response = await offPool {
      controller.perform(NetworkRequest(path: "/products?offset=28&limit=5"))
    }
    let object = try JSONSerialization.jsonObject(with: try response.result.get()) as? [String: Any]
    let info = object?["info"] as? [String: Int]
    #expect(info == ["offset": 28, "count": 2, "total": 30])
  }

  @Test("a decoding error names the field path")
  func decodingPath() async throws {
    let controller = try await controller()
    let response = await offPool {
      controller.perform(
        NetworkRequest(path: "/products/1"), decoding: Envelope<ProductWithWeight>.self,
        with: JSONDecoder())
    }
    #expect(throws: NetworkError.decoding(path: "data.weight", detail: "the field is missing")) {
      try response.result.get()
    }
  }

  @Test("an error status carries the API's code and message")
  func httpError() async throws {
    let controller = try await controller()
    let response = await offPool { controller.perform(NetworkRequest(path: "/products/999")) }
    #expect(
      throws: NetworkError.http(
        status: 404, code: "ResourceNotFound", message: "no product with id 999")
    ) {
      try response.result.get()
    }
    #expect(
      NetworkError.http(status: 404, code: "ResourceNotFound", message: "no product with id 999")
        .description
        == "HTTP 404 ResourceNotFound: no product with id 999")
  }

  @Test("a refused connection is a transport failure that says so")
  func refused() throws {
    let tracer = Tracer()
    let log = NetworkLog()
    tracer.events.subscribe(log, to: .http)
    let controller = NetworkController(
      baseURL: try #require(URL(string: "http://127.0.0.1:9")), tracer: tracer)
    let response = controller.perform(NetworkRequest(path: "/products/1"))
    #expect(throws: NetworkError.refused(url: "http://127.0.0.1:9/products/1")) {
      try response.result.get()
    }
    #expect(log.log.map(\.status) == [nil])
  }

  @Test("every request is logged with method, URL, status and bytes, and traced")
  func logAndTrace() async throws {
    let tracer = Tracer()
    tracer.enable()
    let log = NetworkLog()
    tracer.events.subscribe(log, to: .http)
    let base = try await TestServer.shared.get().baseURL
    let controller = NetworkController(baseURL: base, tracer: tracer)
    _ = await offPool { controller.perform(NetworkRequest(path: "/products/1")) }
    #expect(
      log.log.map { "\($0.method) \($0.url) \($0.status ?? 0)" } == [
        "GET \(base.absoluteString)/products/1 200"
      ])
    let span = try #require(tracer.drainCompleted().first)
    #expect(span.operation == "GET /products/1")
    #expect(span.attributes.map(\.key) == ["method", "url", "status", "connection", "bytes"])
  }

  @Test("the catalog starts with the example app's families and is the same every time")
  func catalog() {
    let catalog = Catalog(size: 40)
    #expect(catalog.products.count == 40)
    #expect(
      Array(Set(catalog.products.prefix(15).map(\.family))).sorted() == [
        "Apple TVs", "Apple Watches", "iPads", "iPhones",
      ])
    #expect(catalog.products == Catalog(size: 40).products)
    #expect(Catalog(size: 3).products.count == 15)
    #expect(catalog.product(id: 0) == nil && catalog.product(id: 41) == nil)
  }

  @Test("every path that completion offers for the demo API is one of its routes")
  func examplePathsAnswer() async throws {
    let controller = try await controller()
    for path in DemoAPI.examplePaths {
      let response = await offPool { controller.perform(NetworkRequest(path: path)) }
      // A protected route answers 401 without a token; an unknown path answers 404.
      let status = response.response?.statusCode
      #expect(
        status == 200 || status == 401, "\(path) answered \(status.map(String.init) ?? "nothing")")
    }
  }
}
