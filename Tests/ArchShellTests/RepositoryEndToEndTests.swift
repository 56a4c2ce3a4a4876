import Foundation
import Testing

@Suite("repositories and models through the binary, against the embedded API")
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
}
