import Domain
import Foundation
import Testing

@testable import Commands

@Suite("Errors reach their column by their subject")
struct ErrorSubjectTests {
  /// Runs `setup` then `line` with keep-going, and returns the error line `line` gave.
  private func error(_ line: String, after setup: [String] = []) -> String {
    var settings = InterpreterSettings()
    settings.keepGoing = true
    let harness = Harness(settings: settings)
    harness.script(setup + [line])
    return harness.sink.stderr.split(separator: "\n").last.map(String.init) ?? ""
  }

  @Test("each Domain error points at the word that gave the input it concerns")
  func columns() {
    #expect(
      error("store retrieve bookmarkz home")
        == "test.ash:1:16: error: unknown store 'bookmarkz' (did you mean 'bookmarks'?)")
    #expect(
      error("store retrieve bookmarks nope")
        == "test.ash:1:26: error: no key 'nope' in store 'bookmarks'")
    #expect(
      error(
        "store persist tiny k 12345", after: ["store create tiny", "store limits tiny --bytes 4"])
        == "test.ash:3:22: error: the value (5 bytes) is larger than the byte limit of store 'tiny' (4 bytes) (raise it with 'store limits tiny --bytes N')"
    )
    #expect(
      error("store create generalCache")
        == "test.ash:1:14: error: store 'generalCache' already exists")
    #expect(
      error("event send discover mediaItemSelected x", after: ["app start --session s"])
        == "test.ash:2:39: error: mediaItemSelected: 'x' is not a product id (see 'event list')")
    #expect(
      error("event send discover headerTapped now", after: ["app start --session s"])
        == "test.ash:2:34: error: headerTapped takes no argument, and 'now' was given (see 'event list')"
    )
    #expect(
      error("event send discover flyAway", after: ["app start --session s"]).hasPrefix(
        "test.ash:2:21: error: Discover cannot send 'flyAway'"))
    #expect(
      error("screen select 99", after: ["app start"])
        == "test.ash:2:15: error: Login has no row 99; it has 2 rows ('screen show' lists the rows to select)"
    )
    #expect(
      error("screen select 0 login", after: ["app start"])
        == "test.ash:2:15: error: row 0-0 of Login needs an email address, which selecting cannot give (log in with 'app login EMAIL')"
    )
    #expect(
      error("ds drop nothing")
        == "test.ash:1:9: error: no data source named 'nothing' (see 'ds list')")
  }
}
