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
    let documents = run.stdout.split(separator: "\n")
    #expect(documents.count == 1, "\(run.stdout)")
    for document in documents {
      #expect((try? JSONSerialization.jsonObject(with: Data(document.utf8))) != nil, "\(document)")
    }
    #expect(documents.last == #"{"message":"hi"}"#)
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
        -c:1:14: error: expected S between 0 and 1000000000, not '-1'
        -c:1:16: error: expected R between 0 and 1000000000, not '-3'
        -c:1:12: error: expected S between 0 and 1000000000, not '-1'

        """, "\(run.stderr)")
    #expect(
      run.stdout.hasSuffix("total_row_count:  3\nsections:         1\nrows_per_section: 3\n"),
      "\(run.stdout)")
  }
}
