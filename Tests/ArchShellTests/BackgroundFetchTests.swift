import Foundation
import TestSupport
import Testing

/// `repo fetch --background` in a process that ends before the fetch lands.
@Suite("a background fetch")
struct BackgroundFetchTests {
  @Test("a script that ends while its background fetch waits on a slow server keeps the page")
  func endsAfterTheFetchLands() throws {
    let database = Scratch.file("bg", suffix: ".sqlite")
    let started = try Binary.run(
      [
        "--db", database, "-c", "set password --secret", "-c",
        "auth login ada@example.com $password", "-c",
        "repo new favourites /users/me/locations --limit 5", "-c",
        "net fault GET /users/me/locations --delay 500ms", "-c",
        "repo fetch favourites --background",
      ], input: "lovelace\n")
    #expect(started.status == 0, "\(started.stderr)")
    #expect(started.stdout.contains("fetching 'favourites' in the background"))
    // The process waited for the fetch before it closed the workspace: the page is stored.
    let state = try Binary.run(["--db", database, "-c", "repo state favourites"])
    #expect(state.stdout.contains("state:           Fetched"), "\(state.stdout)")
    #expect(state.stdout.contains("count:           5"), "\(state.stdout)")
  }
}
