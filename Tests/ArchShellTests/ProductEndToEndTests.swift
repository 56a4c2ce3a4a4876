import Foundation
import Testing

@Suite("products over HTTP through the binary", .serialized)
struct ProductEndToEndTests {
  @Test("a refused connection is one exact error line with exit 1, and the cached copy stays")
  func refusedKeepsCache() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let db = directory + "/workspace.sqlite"
    // The first run fetches from the embedded API and persists the product in the file.
    let first = try Binary.run(["--db", db, "-c", "product update 3"])
    #expect(first.status == 0)
    #expect(first.stdout.contains("name:      iPhone 15\n"))

    // The second points at a port where nothing listens.
    let refused = try Binary.run(
      ["--db", db, "--api", "http://127.0.0.1:9", "-c", "product update 3"])
    #expect(refused.status == 1)
    #expect(refused.stdout == "")
    #expect(
      refused.stderr.replacingOccurrences(
        of: #"127\.0\.0\.1:\d{5}"#, with: "127.0.0.1:PORT", options: .regularExpression)
        == "-c:1:16: error: cannot update 3: connection refused: nothing listens at "
        + "http://127.0.0.1:9/products/3 (the copy cached as http://127.0.0.1:PORT/products/3 "
        + "is unchanged)\n")

    // The copy cached from the embedded API, on another port, is still found by its id.
    let show = try Binary.run(
      [
        "--db", db, "--api", "http://127.0.0.1:9", "-c", "product show 3", "-c",
        "product translate 3",
      ])
    #expect(show.status == 0)
    #expect(show.stdout.contains("price:     $799.00\n"))
    #expect(show.stdout.contains("title:    iPhone 15\n"))
    #expect(show.stdout.contains("cached_as: http://127.0.0.1:"))
  }

  @Test("fault commands need the embedded API and say so against --api")
  func faultsNeedEmbedded() throws {
    let result = try Binary.run(
      ["--api", "http://127.0.0.1:9", "-c", "net fault GET /products/1 --status 500"])
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "-c:1:1: error: 'net fault' needs the embedded demo API, and archsh is using "
        + "http://127.0.0.1:9 (start archsh without --api and ARCHSH_API)\n")
  }

  @Test("bad fault and product arguments get precise errors")
  func badArguments() throws {
    let cases: [(String, String)] = [
      (
        "net fault GET",
        "-c:1:11: error: net fault needs a PATH after GET (for example 'net fault GET /products/42 --status 503')"
      ),
      (
        "net fault GET products",
        "-c:1:15: error: the path must start with '/' (for example /products/42)"
      ),
      (
        "net fault GET /p --empty --drop",
        "-c:1:15: error: choose one of --status, --empty, --malformed, --drop and --redirect (--status N, --empty, --malformed, --drop, --redirect URL, or --delay alone)"
      ),
      ("net fault GET /p --body x", "-c:1:25: error: --body goes with --status (add --status N)"),
      (
        "net fault GET /p --drop --times 0",
        "-c:1:33: error: --times takes a count of 1 or more, or 'always'"
      ),
      (
        "product update iphone",
        "-c:1:16: error: 'iphone' is not a product id, path or URL (for example 'product update 42')"
      ),
      (
        "product show 9",
        "-c:1:14: error: product 9 is not cached (fetch it with 'product update 9')"
      ),
    ]
    for (line, expected) in cases {
      let result = try Binary.run(["--db", ":memory:", "-c", line])
      #expect(result.status == 1, "\(line)")
      #expect(result.stderr == expected + "\n", "\(line)")
    }
  }

  @Test("a decoding error names the JSON kind it expected, not a Swift type")
  func jsonKindsInErrors() throws {
    let result = try Binary.run(
      [
        "--no-rc", "--db", ":memory:", "-c",
        "net fault GET /products/3 --status 200 --body '{\"code\":\"OK\",\"data\":[1]}'",
        "-c", "product update 3",
      ])
    #expect(result.stderr.contains("expected an object"), "\(result.stderr)")
    #expect(!result.stderr.contains("Dictionary<"))
  }

  @Test("net log lists each request with method, URL, status and bytes")
  func netLog() throws {
    let result = try Binary.run([
      "--db", ":memory:", "--json", "-c", "product update 1", "-c", "product update 999",
      "--keep-going", "-c", "net log",
    ])
    let last = try #require(result.stdout.split(separator: "\n").last)
    let rows = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [[String: Any]]
    #expect(rows?.map { $0["status"] as? Int } == [200, 404])
    #expect(rows?.map { $0["method"] as? String } == ["GET", "GET"])
    #expect((rows?.first?["url"] as? String)?.hasSuffix("/products/1") == true)
  }

  @Test(
    "a data source built by a script renders the same in the next process, and bad ds input gets precise errors"
  )
  func dataSourceSurvivesRestart() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let db = directory + "/workspace.sqlite"
    let script = directory + "/build.ash"
    try """
    ds new todo --rows 'Buy milk' 'Call Ada'
    ds register todo Text BasicCell
    ds row add todo 0 0 'Water the plants'
    ds section data todo 0 --header Today

    """.write(toFile: script, atomically: false, encoding: .utf8)
    let build = try Binary.run(["--db", db, "-f", script])
    #expect(build.status == 0)
    let render = try Binary.run(["--db", db, "-c", "ds render todo --width 30"])
    #expect(
      render.stdout == """
        1 section, 3 rows; rows 0–2 shown

         TODAY
        ┌────────────────────────────┐
        │ Water the plants           │
        │                ‹basicCell› │
        ├────────────────────────────┤
        │ Buy milk       ‹basicCell› │
        ├────────────────────────────┤
        │ Call Ada       ‹basicCell› │
        └────────────────────────────┘

        """)
    let cases: [(String, String)] = [
      ("ds render tdo", "-c:1:11: error: no data source named 'tdo' (did you mean 'todo'?)"),
      ("ds new todo", "-c:1:8: error: a data source named 'todo' exists already"),
      (
        "ds section",
        "-c:1:11: error: 'ds section' needs a verb: add, update, data, remove, clear, set (try 'help ds section')"
      ),
      (
        "ds section ad todo",
        "-c:1:12: error: unknown verb 'ad' for 'ds section' (did you mean 'add'?)"
      ),
      ("ds new x 'a b'", "-c:1:10: error: 'a b' is not expected here (rows follow --rows)"),
      (
        "ds rows patch todo 0=1",
        "-c:1:20: error: '0=1' is not S-R=VALUE (for example 0-1='Call Grace')"
      ),
    ]
    for (line, expected) in cases {
      let result = try Binary.run(["--db", db, "-c", line])
      #expect(result.status == 1, "\(line)")
      #expect(result.stderr == expected + "\n", "\(line)")
    }
  }

  @Test("'ds new --products' builds the whole catalog, whatever else is cached")
  func productsDataSourceIsWhole() throws {
    let result = try Binary.run(
      [
        "--no-rc", "--db", ":memory:", "-c", "product update 42", "-c", "ds new shop --products",
      ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.hasSuffix("created shop: 4 sections, 15 rows\n"), "\(result.stdout)")
  }
}
