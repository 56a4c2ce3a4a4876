import DemoAPI
import Foundation
import Testing

@testable import Domain
@testable import Runtime

@Suite("the BDModules Logger")
struct LoggerTests {
  @Test("each tag's switch and threshold decide which lines are kept; settings persist")
  func thresholds() throws {
    let path = NSTemporaryDirectory() + "archsh-log-\(UUID().uuidString).db"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let book = try LogBook(workspace: try Workspace(path: path))
    let api = Logger(tag: "API", book: book)
    let oauth = Logger(tag: "OAuth2", book: book)
    let model = Logger(tag: "Model", book: book)
    api.thresholdLevel = .warning
    oauth.enabled = false
    for logger in [api, oauth, model] {
      logger.logVerbose("\(logger.tag) verbose")
      logger.logInfo("\(logger.tag) info")
      logger.logWarning("\(logger.tag) warning")
      logger.logError("\(logger.tag) error")
    }
    let lines = try book.lines()
    #expect(
      lines.map { "\($0.tag) \($0.level) \($0.message)" } == [
        "API Warning API warning", "API Error API error", "Model Info Model info",
        "Model Warning Model warning", "Model Error Model error",
      ])
    #expect(lines.map(\.number) == [1, 2, 3, 4, 5])
    #expect(try book.lines(tag: "Model", afterNumber: 3).map(\.number) == [4, 5])

    // A later session reads the same settings and lines.
    let reopened = try LogBook(workspace: try Workspace(path: path))
    #expect(Logger(tag: "API", book: reopened).thresholdLevel == .warning)
    #expect(Logger(tag: "OAuth2", book: reopened).enabled == false)
    #expect(try reopened.lines().count == 5)
  }

  @Test("a script's lines are written in batches: at 256 lines, after half a second, or on flush")
  func batches() throws {
    let path = NSTemporaryDirectory() + "archsh-log-\(UUID().uuidString).db"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let book = try LogBook(workspace: try Workspace(path: path))
    // Another shell on the same workspace counts what has been written.
    let other = try Workspace(path: path)
    func written() throws -> Int {
      try other.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM log_lines") ?? -1 }
    }
    let api = Logger(tag: "API", book: book)
    // Asked as of a moment before any line was held, only the count can make the lines due.
    for index in 1..<LogBook.batch { api.logInfo("line \(index)") }
    try book.flushIfDue(now: .distantPast)
    #expect(try written() == 0)
    api.logInfo("line \(LogBook.batch)")
    try book.flushIfDue(now: .distantPast)
    #expect(try written() == LogBook.batch)

    api.logInfo("one more")
    try book.flushIfDue(now: .distantPast)
    #expect(try written() == LogBook.batch)
    try book.flushIfDue(now: Date().addingTimeInterval(LogBook.longestWait))
    #expect(try written() == LogBook.batch + 1)

    api.logInfo("the last")
    try book.flush()
    #expect(try written() == LogBook.batch + 2)
  }

  @Test("lines written at once, several INSERTs' worth, keep their order, numbers and text")
  func manyAtOnce() throws {
    let book = try LogBook(workspace: try Workspace(path: ":memory:"))
    let api = Logger(tag: "API", book: book)
    let model = Logger(tag: "Model", book: book)
    // Two full INSERTs and part of a third, the tags and levels alternating.
    let count = 2 * LogStore.rowsPerInsert + 5
    for index in 1...count {
      if index % 2 == 0 {
        model.logError("line \(index) 'ñ'")
      } else {
        api.logInfo("line \(index)")
      }
    }
    try book.flush()
    let lines = try book.lines()
    #expect(lines.map(\.number) == Array(1...Int64(count)))
    #expect(
      lines.map { "\($0.tag) \($0.level) \($0.message)" }
        == (1...count).map {
          $0 % 2 == 0 ? "Model Error line \($0) 'ñ'" : "API Info line \($0)"
        })
    // The next flush goes on numbering after them.
    api.logInfo("the last")
    try book.flush()
    #expect(try book.lines().last.map { "\($0.number) \($0.message)" } == "\(count + 1) the last")
  }

  @Test("tokens, passwords and Authorization values are redacted before a line is kept")
  func redaction() {
    let token = String(repeating: "ab12", count: 16)
    let scrubbed = Redaction.scrub(
      "Authorization: Bearer \(token); body {\"access_token\":\"\(token)\",\"password\":\"lovelace\"}"
        + " form refresh_token=\(token)&password=lovelace&client_secret=archsh-demo-secret")
    #expect(!scrubbed.contains(token))
    #expect(!scrubbed.contains("lovelace"))
    #expect(!scrubbed.contains("archsh-demo-secret"))
    #expect(
      scrubbed
        == "Authorization: Bearer …ab12; body {\"access_token\":\"…ab12\",\"password\":\"…\"}"
        + " form refresh_token=…ab12&password=…&client_secret=…")
    #expect(Redaction.scrub("nothing secret here") == "nothing secret here")
  }

  @Test("redaction keeps the text around a token whole: other scripts, a redacted value, the end")
  func redactionAroundTokens() {
    #expect(
      Redaction.scrub("héllo Bearer ñandú-token-ü9x8 ünd Bearer …a1b2, Bearer zz")
        == "héllo Bearer …ü9x8 ünd Bearer …a1b2, Bearer …zz")
    #expect(Redaction.scrub("Bearer ") == "Bearer …")
    #expect(Redaction.scrub("{\"password\": \"pässwörd\"}") == "{\"password\": \"…\"}")
    let secrets = SecretValues()
    secrets.remember("lovelace")
    #expect(secrets.hide("pw lovelace, LOVELACE") == "pw <redacted>, LOVELACE")
  }

  @Test("a secret header's value is shown as scrubbing would show it, the usual bearer one too")
  func headerValues() {
    let values = [
      "Bearer abcdef123456", "Bearer ab", "Bearer ñandú-ü9x8", "Bearer …a1b2", "Bearer ",
      "Bearer a b", "Basic dXNlcjpwYXNz", "session=abc", "bearer lower", "Bearer x,y",
    ]
    for value in values {
      let scrubbed = Redaction.scrub(value)
      #expect(
        Redaction.headerValue(value) == (scrubbed == value ? "…" : scrubbed), "\(value)")
    }
    #expect(Redaction.headerValue("Bearer abcdef123456") == "Bearer …3456")
    #expect(Redaction.headerValue("Basic dXNlcjpwYXNz") == "…")
  }

  @Test("the byte search finds a marker at either end, after a near miss, and not past the text")
  func markerSearch() {
    #expect(Redaction.holdsAny(["oken"], in: "oken"))
    #expect(Redaction.holdsAny(["oken"], in: "a token"))
    #expect(Redaction.holdsAny(["oken"], in: "oke okeoken x"))
    #expect(!Redaction.holdsAny(["oken"], in: "a toke"))
    #expect(!Redaction.holdsAny(["oken"], in: "oke"))
    #expect(!Redaction.holdsAny(["oken"], in: ""))
    #expect(Redaction.holdsAny(["assword"], in: "ünïcödé password"))
    // The markers of a secret, looked for in one pass: any one of them is enough.
    #expect(Redaction.holdsAny(Redaction.secretMarkers, in: "grant_type=x&client_secret=y"))
    #expect(Redaction.holdsAny(Redaction.secretMarkers, in: "Authorization: Bearer abcd"))
    #expect(!Redaction.holdsAny(Redaction.secretMarkers, in: "a plain value, Bear, toke, pass"))
    #expect(!Redaction.holdsAny([], in: "token"))
  }

  @Test(
    "a secret is hidden raw, percent-encoded in either case, form-encoded, JSON-escaped and in a picture's XML"
  )
  func secretForms() {
    let secrets = SecretValues()
    secrets.remember("hunter2 p@ss/\"x")
    for form in [
      "hunter2 p@ss/\"x", "hunter2%20p%40ss%2F%22x", "hunter2%20p%40ss%2f%22x",
      "hunter2+p%40ss%2F%22x", "hunter2 p@ss\\/\\\"x", "hunter2 p@ss/\\\"x", "hunter2%20p@ss/%22x",
      "hunter2 p@ss/&quot;x",
    ] {
      #expect(secrets.hide("a=\(form)&b") == "a=<redacted>&b", "\(form)")
    }
    // Its encodings are remembered with it, and nothing else is hidden.
    #expect(SecretValues.encodedForms(of: "plain").count == 1)
    #expect(secrets.hide("hunter2 is not the secret") == "hunter2 is not the secret")
  }

  @Test(
    "a cookie or API key header's value is redacted in text and JSON; a set cookie's attributes stay"
  )
  func secretHeaderLines() {
    #expect(
      Redaction.scrub("Content-Type: text/plain; Set-Cookie: session=abc123; Path=/; HttpOnly")
        == "Content-Type: text/plain; Set-Cookie: …; Path=/; HttpOnly")
    #expect(
      Redaction.scrub("set-cookie: id=9f8e7d\nx-api-key: k-12345\n")
        == "set-cookie: …\nx-api-key: …\n")
    #expect(Redaction.scrub("Cookie: a=1; b=2\nAccept: */*") == "Cookie: …\nAccept: */*")
    #expect(
      Redaction.scrub(#"{"Set-Cookie":"session=abc123","X-API-KEY": "k"}"#)
        == #"{"Set-Cookie":"…","X-API-KEY": "…"}"#)
    #expect(Redaction.scrub("a cookie jar, an api-key word") == "a cookie jar, an api-key word")
  }
}
