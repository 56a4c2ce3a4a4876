import DemoAPI
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

@testable import Domain
@testable import Plumbing

@Suite("framing responses with NIOHTTP1")
struct HTTPFramerTests {
  /// What the framer makes of `text`, handed to it 7 bytes at a time, then the end of the stream.
  private func frame(_ text: String, bodyLimit: Int = 1 << 20, method: HTTPMethod = .GET) throws
    -> (TransportResponse, clean: Bool)
  {
    let framer = try HTTPFramer(bodyLimit: bodyLimit)
    _ = try framer.encode(HTTPRequestHead(version: .http1_1, method: method, uri: "/"), body: nil)
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let slice = Array(bytes.prefix(7))
      bytes = bytes.dropFirst(7)
      if let response = try slice.withUnsafeBytes({ try framer.feed($0) }) {
        let rest = Array(bytes)
        _ = try rest.withUnsafeBytes { try framer.feed($0) }
        return (response, framer.isClean)
      }
    }
    return (try framer.endOfStream(), false)
  }

  private func failure(_ text: String, bodyLimit: Int = 1 << 20) -> TransportError? {
    do {
      _ = try frame(text, bodyLimit: bodyLimit)
      return nil
    } catch {
      return error as? TransportError
    }
  }

  @Test("a chunked body's trailer is read, an interim 100 is skipped, and the stream is clean")
  func trailerAndInterim() throws {
    let (response, clean) = try frame(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "2\r\nok\r\n3\r\n!!!\r\n0\r\nX-Checksum: 1\r\n\r\n")
    #expect(response.head.status.code == 200)
    #expect(String(buffer: response.body) == "ok!!!")
    #expect(clean)
  }

  @Test("a body read to the close ends with the stream; a HEAD's answer has no body")
  func closeAndHead() throws {
    let (closed, _) = try frame("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it")
    #expect(String(buffer: closed.body) == "all of it")
    let framer = try HTTPFramer()
    _ = try framer.encode(HTTPRequestHead(version: .http1_1, method: .HEAD, uri: "/"), body: nil)
    let head = try Array("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n".utf8).withUnsafeBytes {
      try framer.feed($0)
    }
    #expect(head?.body.readableBytes == 0)
    #expect(framer.isClean)
  }

  @Test("bytes after a whole response leave it whole and the connection unclean")
  func leftovers() throws {
    let (response, clean) = try frame(
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nSMUGGLED"
    )
    #expect(String(buffer: response.body) == "ok")
    #expect(!clean)
    #expect(try !frame("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokX").clean)
  }

  /// What the framer makes of `text` handed to it in one read, then the end of the stream.
  private func frameInOneRead(
    _ text: String, bodyLimit: Int = 1 << 20, method: HTTPMethod = .GET
  ) throws -> (TransportResponse, clean: Bool) {
    let framer = try HTTPFramer(bodyLimit: bodyLimit)
    _ = try framer.encode(HTTPRequestHead(version: .http1_1, method: method, uri: "/"), body: nil)
    guard let response = try Array(text.utf8).withUnsafeBytes({ try framer.feed($0) }) else {
      return (try framer.endOfStream(), false)
    }
    return (response, framer.isClean)
  }

  @Test("a head and its body in one read are framed as when they come in pieces")
  func oneRead() throws {
    let cases: [(text: String, body: String, clean: Bool)] = [
      ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", "ok", true),
      ("HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\nnope", "nope", true),
      ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokX", "ok", false),
      (
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nSMUGGLED",
        "ok", false
      ),
      ("HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nX-A: ", "", false),
      ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 2", "", false),
      ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", "ok", true),
      ("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", "ok", true),
    ]
    for (text, body, clean) in cases {
      let (whole, wholeIsClean) = try frameInOneRead(text)
      #expect(String(buffer: whole.body) == body, "\(text)")
      #expect(wholeIsClean == clean, "\(text)")
      let (pieces, piecesAreClean) = try frame(text)
      #expect(String(buffer: pieces.body) == body, "\(text)")
      #expect(piecesAreClean == clean, "\(text)")
    }
    // NIOHTTP1 reads a CONNECT's answer as having no body: what follows it in the same read
    // never makes the connection clean, nor one that it could read as a whole next answer.
    let tunnel = try frameInOneRead(
      "HTTP/1.1 200 OK\r\nContent-Length: 23\r\n\r\nHTTP/1.1 200 OK\r\nX-AB: ", method: .CONNECT)
    #expect(!tunnel.clean)
    // A head refused by its own check is the error, whatever fails after it in the same read.
    let fields = (0..<100).map { "X-F\($0): v\r\n" }.joined()
    #expect(throws: TransportError.tooManyFields(limit: 100)) {
      try frameInOneRead("HTTP/1.1 200 OK\r\n\(fields)Content-Length: 2\r\n\r\nhiZ")
    }
    #expect(throws: TransportError.bodyTooLarge(limit: 3)) {
      try frameInOneRead("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloZZZ", bodyLimit: 3)
    }
  }

  @Test("a status must be three digits from 100 to 599, and the reply must be HTTP")
  func statusLines() {
    for line in ["HTTP/1.1 -1 Bad", "HTTP/1.1 +20 OK", "HTTP/1.1 2000 OK", "HTTP/1.1 999 Odd"] {
      #expect(failure(line + "\r\nContent-Length: 0\r\n\r\n") == .badStatusLine(line), "\(line)")
    }
    #expect(
      failure("SSH-2.0-OpenSSH_9.2p1\r\n")
        == .notHTTP("SSH-2.0-OpenSSH_9.2p1"))
    #expect(
      failure("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nok") == .conflictingLengths(["-1"]))
  }

  @Test("every limit holds, and the error names it")
  func limits() {
    let fields = (0..<101).map { "X-F\($0): v\r\n" }.joined()
    #expect(
      failure("HTTP/1.1 200 OK\r\n\(fields)Content-Length: 0\r\n\r\n")
        == .tooManyFields(limit: 100))
    let big = String(repeating: "a", count: 90_000)
    #expect(failure("HTTP/1.1 200 OK\r\nX-Big: \(big)\r\n\r\n") == .headTooLarge(limit: 81_920))
    #expect(
      failure("HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n12345678901234567890", bodyLimit: 10)
        == .bodyTooLarge(limit: 10))
    let chunks = String(repeating: "5\r\nhello\r\n", count: 5)
    #expect(
      failure("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(chunks)", bodyLimit: 10)
        == .bodyTooLarge(limit: 10))
    #expect(
      failure("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n\(big)", bodyLimit: 10)
        == .bodyTooLarge(limit: 10))
    #expect(
      failure("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello!!")
        == .conflictingLengths(["5", "7"]))
  }

  @Test("a head framed by Transfer-Encoding and Content-Length is read as chunked, and marked")
  func framedTwoWays() throws {
    let framer = try HTTPFramer()
    _ = try framer.encode(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/"), body: nil)
    let text =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 100\r\n\r\n2\r\nok\r\n0\r\n\r\n"
    let response = try Array(text.utf8).withUnsafeBytes { try framer.feed($0) }
    #expect(response.map { String(buffer: $0.body) } == "ok")
    #expect(framer.framedTwoWays)
  }

  @Test("a framer frames the next exchange when the last response ended where its length said")
  func reuse() throws {
    let framer = try HTTPFramer()
    func exchange(_ method: HTTPMethod, _ text: String) throws -> String? {
      framer.reset(bodyLimit: 1 << 20)
      _ = try framer.encode(HTTPRequestHead(version: .http1_1, method: method, uri: "/"), body: nil)
      let response = try Array(text.utf8).withUnsafeBytes { try framer.feed($0) }
      return response.map { String(buffer: $0.body) }
    }
    #expect(try exchange(.GET, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") == "ok")
    #expect(framer.isClean && framer.isReusable)
    #expect(try exchange(.HEAD, "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n") == "")
    #expect(framer.isClean && framer.isReusable)
    #expect(try exchange(.GET, "HTTP/1.1 204 No Content\r\n\r\n") == "")
    #expect(framer.isClean && framer.isReusable)
    #expect(try exchange(.GET, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nyes") == "yes")
    #expect(framer.isClean && framer.isReusable)
    // A chunked body ends where the decoder says: clean, but the decoder was asked by closing it.
    let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"
    #expect(try exchange(.GET, chunked) == "ok")
    #expect(framer.isClean && !framer.isReusable)
  }

  @Test("a head of exactly the limit is read")
  func headAtTheLimit() throws {
    let prefix = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Pad: "
    let pad = String(repeating: "p", count: 81_920 - prefix.utf8.count - 4)
    let (response, _) = try frame(prefix + pad + "\r\n\r\n")
    #expect(response.head.status.code == 200)
  }
}
