import Foundation
import Testing

/// Under `--json`, standard output holds only documents.
///
/// Errors are documents too, on standard error. And smaller repairs a new user met.
@Suite("one JSON document per command, and smaller repairs")
struct JSONDocumentsTests {
  @Test("under --json standard output holds only documents: the echo goes to standard error")
  func documents() throws {
    let run = try Binary.run(
      [
        "--no-rc", "--db", ":memory:", "--json", "--echo", "-c", "set x 1", "-c",
        "store persist bookmarks a 1", "-c", "echo hi",
      ])
    #expect(run.status == 0, "\(run.stderr)")
    // One document per command: `set` and `store persist`, which have nothing to say, print an
    // empty object, so that a program reading line by line stays in step.
    #expect(run.stdout == "{}\n{}\n" + #"{"message":"hi"}"# + "\n", "\(run.stdout)")
    #expect(run.stderr.contains("archsh> set x 1\n") && run.stderr.contains("archsh> echo hi\n"))
  }

  @Test(
    "an error under --json is one document on standard error: message, hint, file, line, column")
  func errors() throws {
    let run = try Binary.run(["--no-rc", "--db", ":memory:", "--json", "-c", "echo a; ech oops"])
    #expect(run.status == 1)
    let error = try #require(
      try JSONSerialization.jsonObject(with: Data(run.stderr.utf8)) as? [String: Any])
    #expect(error["error"] as? String == "unknown command 'ech'")
    #expect(error["hint"] as? String == "did you mean 'echo'?")
    #expect(error["file"] as? String == "-c")
    #expect(error["line"] as? Int == 1 && error["column"] as? Int == 9)
    #expect(run.stdout == #"{"message":"a"}"# + "\n")
  }

  @Test(
    "indexes are never negative, each a usage error naming its argument; ds count says how many sections"
  )
  func smallerRepairs() throws {
    let run = try Binary.run(
      [
        "--no-rc", "--db", ":memory:", "--keep-going", "-c", "ds new t --rows a b c", "-c",
        "ds row add t -1 0 x", "-c", "ds row add t 0 -3 y", "-c", "ds model t -1 0", "-c",
        "ds count t",
      ])
    #expect(
      run.stderr
        == """
        -c#2:1:14: error: expected S between 0 and 1000000000, not '-1'
        -c#3:1:16: error: expected R between 0 and 1000000000, not '-3'
        -c#4:1:12: error: expected S between 0 and 1000000000, not '-1'

        """, "\(run.stderr)")
    #expect(
      run.stdout.hasSuffix("total_row_count:  3\nsections:         1\nrows_per_section: 3\n"),
      "\(run.stdout)")
  }

  @Test(
    "amounts and durations are numbers under --json, their unit in the field name; people still read them formatted"
  )
  func numbers() throws {
    let commands = [
      "product list --limit 2", "product update 1", "net get /products/1", "time echo x",
    ]
    let json = try Binary.run(
      ["--no-rc", "--db", ":memory:", "--json"] + commands.flatMap { ["-c", $0] })
    #expect(json.status == 0, "\(json.stderr)")
    let documents = try json.stdout.split(separator: "\n").map {
      try JSONSerialization.jsonObject(with: Data($0.utf8))
    }
    #expect(documents.count == 4, "\(json.stdout)")
    let page = try #require(documents[0] as? [Any])
    let listed = try #require((page.first as? [[String: Any]])?.first)
    #expect(
      listed["price"] as? Double != nil && listed["currency"] as? String == "USD", "\(listed)")
    let updated = try #require(documents[1] as? [String: Any])
    let price = try #require(updated["price"] as? Double)
    #expect(updated["currency"] as? String == "USD")
    let fetched = try #require(documents[2] as? [String: Any])
    #expect(fetched["milliseconds"] as? Double != nil && fetched["time"] == nil, "\(fetched)")
    let timed = try #require((documents[3] as? [Any])?.last as? [String: Any])
    #expect(timed["milliseconds"] as? Double != nil, "\(timed)")

    let text = try Binary.run(["--no-rc", "--db", ":memory:"] + commands.flatMap { ["-c", $0] })
    let shownPrice =
      "$"
      + String(format: "%.2f", price).replacingOccurrences(
        of: #"(\d)(?=(\d{3})+\.)"#, with: "$1,", options: .regularExpression)
    #expect(text.stdout.contains("price:     \(shownPrice)\ncurrency:  USD\n"), "\(text.stdout)")
    #expect(
      text.stdout.range(of: #"milliseconds: +\d+\.\d+ m?s\n"#, options: .regularExpression) != nil,
      "\(text.stdout)")
  }

  @Test("a byte limit of 0 reads 'none', as PINCache means it; JSON keeps the 0")
  func noByteLimit() throws {
    let run = try Binary.run(
      ["--no-rc", "--db", ":memory:", "-c", "store limits bookmarks --bytes 0"])
    #expect(
      run.stdout == "store:      bookmarks\nbyte_limit: none\nage_limit:  30d\nttl:        no\n",
      "\(run.stdout)")
    let json = try Binary.run(
      ["--no-rc", "--db", ":memory:", "--json", "-c", "store limits bookmarks --bytes 0"])
    #expect(json.stdout.contains(#""byte_limit":0"#), "\(json.stdout)")
  }

  @Test("trace export replaces a file only with --force, the rule record start follows")
  func exportKeepsFiles() throws {
    let home = try Binary.makeTemporaryDirectory()
    try "keep me\n".write(toFile: home + "/t.mmd", atomically: false, encoding: .utf8)
    let refused = try Binary.run(
      ["--no-rc", "--db", ":memory:", "-c", "trace on; factory get tracer; trace export t.mmd"],
      directory: home)
    #expect(refused.status == 1)
    #expect(
      refused.stderr
        == "-c:1:44: error: 't.mmd' exists (choose another name, or add --force to replace it)\n",
      "\(refused.stderr)")
    #expect(try String(contentsOfFile: home + "/t.mmd", encoding: .utf8) == "keep me\n")
    let forced = try Binary.run(
      [
        "--no-rc", "--db", ":memory:", "-c",
        "trace on; factory get tracer; trace export t.mmd --force",
      ], directory: home)
    #expect(forced.status == 0, "\(forced.stderr)")
    #expect(
      try String(contentsOfFile: home + "/t.mmd", encoding: .utf8).hasPrefix("sequenceDiagram"))
  }

  @Test("a response body reads as JSON: an array keeps its brackets and a string its quotes")
  func bodiesAreJSON() throws {
    let run = try Binary.run(
      [
        "--no-rc", "--db", ":memory:", "-c", "set pw lovelace --secret", "-c",
        "auth login ada@example.com $pw", "-c", "session request GET /users/me/locations --auth",
      ])
    #expect(run.status == 0, "\(run.stderr)")
    let body = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("body:") })
    #expect(
      body.hasPrefix(#"body:         {"code":"OK","data":[{"type":"Location","id":""#),
      "\(body.prefix(200))")
    #expect(
      body.hasSuffix(#"}],"info":{"offset":0,"count":20,"total":100}}"#), "\(body.suffix(200))")
  }
}
