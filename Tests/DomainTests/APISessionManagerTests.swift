import DemoAPI
import Foundation
import Plumbing
import TestSupport
import Testing

@testable import Domain

@Suite("APISessionManager over real HTTP", .serialized)
struct APISessionManagerTests {
  private func echo(_ response: APIResponse?) throws -> [String: Any] {
    let data = try #require(response?.data)
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    return try #require(object["data"] as? [String: Any])
  }

  @Test("a task is created suspended and sends nothing until it is resumed")
  func suspended() async throws {
    let session = try await LoggedIn.start()
    defer { session.server.stop() }
    let manager = try session.factory.api.apiSessionManager()
    // A fault that answers normally counts the requests that reach /echo.
    session.server.faults.add(Fault(method: "GET", path: "/echo", kind: .delayOnly, times: nil))
    func hits() -> Int { session.server.faults.active.first?.hits ?? -1 }
    let task = try manager.performRequest(method: .get, path: "/echo")
    #expect(task.state == .suspended)
    // Nothing reached the server: a suspended task has no thread that could send it.
    #expect(hits() == 0)
    #expect(task.response == nil)
    let response = await offPool { task.wait() }
    #expect(hits() == 1)
    #expect(task.state == .completed)
    #expect(response?.statusCode == 200)
  }

  @Test("parameters go in the query for GET, HEAD and DELETE, and in a JSON body otherwise")
  func parameters() async throws {
    let session = try await LoggedIn.start()
    defer { session.server.stop() }
    let manager = try session.factory.api.apiSessionManager()
    let parameters = [(key: "q", value: "swift & more"), (key: "page", value: "2")]
    for method in APISessionManager.Method.allCases where method != .head {
      let task = try manager.performRequest(method: method, path: "/echo", parameters: parameters)
      let echoed = try echo(await offPool { task.wait() })
      #expect(echoed["method"] as? String == method.rawValue)
      let query = echoed["query"] as? [String: String] ?? [:]
      let body = echoed["parameters"] as? [String: String] ?? [:]
      let expected = ["q": "swift & more", "page": "2"]
      if method.sendsParametersInQuery {
        #expect(query == expected && body.isEmpty, "\(method)")
      } else {
        #expect(body == expected && query.isEmpty, "\(method)")
        let headers = echoed["headers"] as? [String: String] ?? [:]
        #expect(headers["content-type"] == "application/json")
      }
    }
    let head = try manager.performRequest(method: .head, path: "/echo", parameters: parameters)
    let answered = await offPool { head.wait() }
    #expect(answered?.statusCode == 200 && answered?.data.isEmpty == true)
    #expect(throws: APISessionError.filesNeedBody(method: "GET")) {
      try manager.performRequest(
        method: .get, path: "/echo",
        files: [FilePart(data: Data([1]), name: "f", fileName: "f.bin", mimeType: "x/y")])
    }
  }

  @Test("multipart parts arrive as sent: parameters as text parts, then each file")
  func multipart() async throws {
    let session = try await LoggedIn.start()
    defer { session.server.stop() }
    let manager = try session.factory.api.apiSessionManager()
    let png = Data((0..<2048).map { UInt8($0 % 251) })
    let files = [
      FilePart(data: png, name: "image", fileName: "image.png", mimeType: "image/png"),
      FilePart(data: Data("notes".utf8), name: "notes", fileName: "a.txt", mimeType: "text/plain"),
    ]
    let task = try manager.performRequest(
      method: .post, path: "/echo", parameters: [(key: "caption", value: "a cat")], files: files)
    let echoed = try echo(await offPool { task.wait() })
    let parts = try #require(echoed["parts"] as? [[String: Any]])
    #expect(parts.map { $0["name"] as? String } == ["caption", "image", "notes"])
    #expect(parts.map { $0["filename"] as? String } == [nil, "image.png", "a.txt"])
    #expect(parts.map { $0["content_type"] as? String } == [nil, "image/png", "text/plain"])
    #expect(parts.map { $0["bytes"] as? Int } == [5, 2048, 5])
  }

  @Test("a redirect's Location swaps dynamicBaseURL for the session manager and the factory")
  func redirect() async throws {
    let session = try await LoggedIn.start()
    defer { session.server.stop() }
    let api = session.factory.api
    let manager = try api.apiSessionManager()
    session.server.faults.add(Fault(method: "GET", path: "/echo", kind: .redirect("/v2")))
    let task = try manager.performRequest(method: .get, path: "/echo", parameters: [("a", "1")])
    let response = await offPool { task.wait() }
    let base = try #require(URL(string: session.server.baseURL.absoluteString + "/v2"))
    #expect(response?.redirectedBaseURL == base)
    #expect(try echo(response)["path"] as? String == "/v2/echo")
    #expect(try echo(response)["query"] as? [String: String] == ["a": "1"])
    #expect(manager.dynamicBaseURL == base)
    #expect(api.dynamicBaseURL == base)
    // A session manager built now starts from the swapped base, which keeps working.
    let next = try api.apiSessionManager()
    #expect(next.dynamicBaseURL == base)
    let again = try next.performRequest(method: .get, path: "/products/1")
    #expect(await offPool { again.wait() }?.statusCode == 200)
  }

  @Test("a server that does not answer is a timeout, and a closed port is refused")
  func unanswered() async throws {
    let session = try await LoggedIn.start()
    let base = session.server.baseURL
    session.server.faults.add(Fault(method: "GET", path: "/echo", kind: .delayOnly, delay: 2))
    let slow = APISessionManager(dynamicBaseURL: base, timeout: 0.3, logger: nil, tracer: Tracer())
    let task = try slow.performRequest(method: .get, path: "/echo")
    let response = await offPool { task.wait() }
    #expect(response?.error == .timeout(url: base.absoluteString + "/echo", seconds: 0.3))
    session.server.stop()
    // Waits for the port to be free (the server's listening socket closed), not a fixed time.
    let port = try #require(base.port)
    let deadline = ContinuousClock.now + .seconds(10)
    while !LoopbackPort.isFree(port), ContinuousClock.now < deadline {
      try await Task.sleep(nanoseconds: 20_000_000)
    }
    let gone = try slow.performRequest(method: .get, path: "/echo")
    let refused = await offPool { gone.wait() }
    #expect(refused?.error == .refused(url: base.absoluteString + "/echo"))
  }
}
