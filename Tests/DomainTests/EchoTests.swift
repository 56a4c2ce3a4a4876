import DemoAPI
import Foundation
import TestSupport
import Testing

@testable import Domain

@Suite("The demo API's /echo, over real HTTP", .serialized)
struct EchoTests {
  private func echo(
    _ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil
  ) async throws -> (status: Int, data: [String: Any]) {
    let server = try await TestServer.shared.get()
    let controller = NetworkController(baseURL: server.baseURL, timeout: 5, tracer: Tracer())
    let request = NetworkRequest(method: method, path: path, headers: headers, body: body)
    let response = await offPool { controller.perform(request) }
    let object =
      (try? JSONSerialization.jsonObject(with: response.data ?? Data())) as? [String: Any]
    return (response.response?.statusCode ?? 0, object?["data"] as? [String: Any] ?? [:])
  }

  @Test("it answers with the method, query, form or JSON parameters, and the token redacted")
  func fields() async throws {
    let form = try await echo(
      "POST", "/echo?page=2&order=asc",
      headers: [
        "Content-Type": "application/x-www-form-urlencoded",
        "Authorization": "Bearer 0123456789abcdef",
      ],
      body: Data("name=Ada+Lovelace&lang=en".utf8))
    #expect(form.status == 200)
    #expect(form.data["type"] as? String == "echo")
    #expect(form.data["method"] as? String == "POST")
    #expect(form.data["query"] as? [String: String] == ["page": "2", "order": "asc"])
    #expect(form.data["parameters"] as? [String: String] == ["lang": "en", "name": "Ada Lovelace"])
    let headers = try #require(form.data["headers"] as? [String: String])
    #expect(headers["authorization"] == "Bearer …cdef")
    #expect(!String(describing: form.data).contains("0123456789abcdef"))

    let json = try await echo(
      "PATCH", "/echo", headers: ["Content-Type": "application/json"],
      body: Data(#"{"title":"Tea"}"#.utf8))
    #expect(json.data["method"] as? String == "PATCH")
    #expect(json.data["parameters"] as? [String: String] == ["title": "Tea"])
    for method in ["GET", "PUT", "DELETE", "HEAD"] {
      #expect(try await echo(method, "/echo").status == 200, "\(method)")
    }
  }

  @Test("each multipart part arrives with its name, filename, type and size")
  func multipart() async throws {
    let boundary = "archsh-boundary-42"
    var body = Data()
    body.append(
      Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\n".utf8))
    body.append(Data("A cat\r\n".utf8))
    body.append(
      Data(
        "--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"cat.png\"\r\nContent-Type: image/png\r\n\r\n"
          .utf8))
    body.append(Data(repeating: 0x89, count: 1000))
    body.append(Data("\r\n--\(boundary)--\r\n".utf8))
    let result = try await echo(
      "POST", "/echo", headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"],
      body: body)
    let parts = try #require(result.data["parts"] as? [[String: Any]])
    #expect(parts.count == 2)
    #expect(parts.first?["name"] as? String == "caption")
    #expect(parts.first?["filename"] is NSNull)
    #expect(parts.first?["bytes"] as? Int == 5)
    #expect(parts.last?["name"] as? String == "photo")
    #expect(parts.last?["filename"] as? String == "cat.png")
    #expect(parts.last?["content_type"] as? String == "image/png")
    #expect(parts.last?["bytes"] as? Int == 1000)
  }
}
