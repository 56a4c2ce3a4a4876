import Foundation
import Testing

@Suite("repositories and models through the binary, against the embedded API", .serialized)
struct RepositoryEndToEndTests {
  @Test("a repository survives a restart with its elements and cursors, and goes on from them")
  func survivesRestart() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let db = directory + "/work.sqlite"
    let first = try Binary.run([
      "--db", db, "-c", "set pw lovelace --secret", "-c", "auth login ada@example.com $pw",
      "-c", "net locations 9", "-c", "repo new fav /users/me/locations --limit 4",
      "-c", "repo fetch fav",
    ])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.stdout.contains("sent limit=4&offset=0: +4 new (0 duplicates)\n"))
    // A new process: the embedded API starts again (with 100 locations), the credential and the
    // repository come from the workspace.
    let second = try Binary.run([
      "--db", db, "-c", "repo state fav", "-c", "repo fetch fav", "-c",
      "repo show fav --from 6 --count 2",
    ])
    #expect(second.status == 0, "\(second.stderr)")
    #expect(second.stdout.contains("count:           4\n"))
    #expect(second.stdout.contains("next_fetch:      limit=4&offset=4\n"))
    #expect(second.stdout.contains("sent limit=4&offset=4: +4 new (0 duplicates)\n"))
    #expect(second.stdout.contains(" FAV: ELEMENTS 6–7 OF 8\n"))
    #expect(second.stdout.contains("│ Pier 39 7 "))
  }

  @Test("a user's locations by id need that user's token; another id is not found")
  func locationsByID() throws {
    let result = try Binary.run([
      "--db", ":memory:", "--keep-going", "-c", "auth login ada@example.com lovelace",
      "-c", "net locations 3",
      "-c", "client get User /users/me",
      "-c",
      "session request GET /users/6955b900-0000-4000-8000-000000000000/locations --auth --json",
      "-c", "session request GET /users/6955b900-0000-4000-8000-00000000ffff/locations --auth",
      "-c", "auth logout", "-c", "session request GET /users/me/locations",
    ])
    #expect(result.stdout.contains(#""info":{"offset":0,"count":3,"total":3}"#))
    // 'session request' shows any status as a response, as curl does.
    #expect(result.stderr.isEmpty, "\(result.stderr)")
    #expect(
      result.stdout.contains(
        "status:       404\n")
        && result.stdout.contains("no user with id 6955b900-0000-4000-8000-00000000ffff"))
    #expect(
      result.stdout.contains("status:       401\n")
        && result.stdout.contains("a valid bearer token is required for /users/me/locations"))
  }

  @Test("'repo fetch --all' shows its progress at a terminal; Ctrl-C says what was kept")
  func repositoryFetchProgressAndCancel() throws {
    let home = try Binary.makeTemporaryDirectory()
    let terminal = try PseudoTerminal(
      [Binary.path, "--no-rc", "--db", home + "/work.sqlite"],
      environment: terminalEnvironment(home: home))
    try terminal.waitFor("archsh> ")
    try terminal.typeAtPrompt([
      "auth login ada@example.com lovelace", "net locations 1000000",
      "repo new all /users/me/locations --limit 50",
    ])
    var mark = terminal.mark
    terminal.type("repo fetch all --all\r")
    mark = try terminal.waitFor("repo fetch all: ", after: mark, seconds: 10)
    mark = try terminal.waitFor(" of 1000000 elements, ", after: mark)
    try terminal.waitFor("pages/s", after: mark)
    try terminal.interrupt()
    mark = try terminal.waitFor("error: the fetch of 'all' was cancelled after ", after: mark)
    mark = try terminal.waitFor("elements stored are kept", after: mark)
    try terminal.waitFor("archsh> ", after: mark)
    #expect(!terminal.transcript.contains("token request failed"))
    mark = terminal.mark
    terminal.type("repo state all\r")
    mark = try terminal.waitFor("state:           Fetched", after: mark)
    try terminal.waitFor("archsh> ", after: mark)
    let state = terminal.transcript[mark...]
    #expect(!state.contains("Error"), "\(state)")
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
  }

  @Test("'model parse' shows each element's own warnings: data[1]'s are not data[10]'s")
  func parseWarningsPerElement() throws {
    let items = (0...10).map { index in
      let subtitle = index == 10 ? "" : #","subtitle":"S""#
      return #"{"type":"Location","id":"\#(index)","title":"T\#(index)""#
        + subtitle + #","latitude":1,"longitude":2,"image_url":null}"#
    }
    let response =
      #"{"code":"OK","data":["# + items.joined(separator: ",")
      + #"],"info":{"total":11}}"#
    let result = try Binary.run(["--no-rc", "--db", ":memory:", "-c", "model parse '\(response)'"])
    #expect(result.status == 0, "\(result.stderr)")
    let warnings = result.stdout.split(separator: "\n").filter { $0.hasPrefix("warning:") }
    // Every element warns of its own missing imageUrl; only data[10] of its subtitle.
    #expect(warnings.count == 12, "\(result.stdout)")
    #expect(
      warnings.filter { $0.contains("subtitle") } == [
        "warning: data[10].subtitle: required field 'subtitle' is missing"
      ])
    #expect(warnings.filter { $0.hasPrefix("warning: data[1].") }.count == 1)
  }
}
