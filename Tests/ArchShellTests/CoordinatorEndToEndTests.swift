import Foundation
import Testing

@Suite("coordinators through the binary", .serialized)
struct CoordinatorEndToEndTests {
  @Test("the app's stacks survive a restart; app reset clears them and the session stays")
  func restart() throws {
    let db = try Binary.makeTemporaryDirectory() + "/workspace.sqlite"
    // Given a first process that logs in and moves around
    let first = try Binary.run(
      [
        "--db", db, "-c",
        "app start; app login ada@example.com; event send discover mediaItemSelected 4; "
          + "event send tabbar tabSelected profile; event send profile settingsTapped",
      ])
    #expect(first.status == 0, "\(first.stderr)")

    // When a second process looks, then the whole tree is back, stacks and tab included
    let second = try Binary.run(["--db", db, "-c", "coord tree"])
    #expect(second.status == 0)
    #expect(
      second.stdout == """
        AppConfigurator [app]  flow: main
        └─ TabBarContainer [tabbar]  TabBar, tab: profile
           ├─ DiscoverFlowCoordinator [discover]  Discover › MediaItem(4)
           ├─ FavouritesFlowCoordinator [favourites]  Favourites
           └─ ProfileFlowCoordinator [profile]  Profile › Settings  ← visible

        """)

    // An event in a third process goes on from the restored stack
    let third = try Binary.run([
      "--db", db, "-c", "event send profile backTapped; coord stack profile",
    ])
    #expect(
      third.stdout == """
        ~ Presenter(Settings) sends backTapped
        ~ ProfileFlowCoordinator pops Settings
        ~ ProfileFlowCoordinator stack: Profile
        ProfileFlowCoordinator: Profile
        position  screen   role  visible
        --------  -------  ----  -------
               0  Profile  top   yes

        """)

    // app reset clears the saved state: the next process finds no app, with one error line
    #expect(try Binary.run(["--db", db, "-c", "app reset"]).status == 0)
    let after = try Binary.run(["--db", db, "-c", "coord tree"])
    #expect(after.status == 1)
    #expect(after.stdout.isEmpty)
    #expect(after.stderr == "-c:1:1: error: the app is not running (start it with 'app start')\n")

    // The session stayed in 'user', so a new start chooses the main flow
    let restart = try Binary.run(["--db", db, "-c", "app start"])
    #expect(
      restart.stdout.hasPrefix(
        "~ AppConfigurator finds a session for ada@example.com in 'user': main flow\n"))
    let attributes = try FileManager.default.attributesOfItem(atPath: db)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
  }

  @Test("a session id given to app start is stored but never shown or traced")
  func sessionIsSecret() throws {
    let db = try Binary.makeTemporaryDirectory() + "/workspace.sqlite"
    let result = try Binary.run(
      ["--db", db, "-c", "trace on; app start --session t0psecret; app state; trace export"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!result.stdout.contains("t0psecret"))
    #expect(result.stdout.contains("archsh app start --session <redacted>"))
    #expect(result.stdout.contains("session:      stored in 'user' (id hidden)\n"))
    // The id is in the user store, where the user can ask for it explicitly
    let stored = try Binary.run(["--db", db, "-c", "store retrieve user sessionID"])
    #expect(stored.stdout == "t0psecret\n")
  }

  @Test("script errors from the coordinator commands say where, and stop the script")
  func scriptErrors() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let script = directory + "/nav.ash"
    try """
    app start
    event send login loginSucceeded
    echo not reached
    """.write(toFile: script, atomically: false, encoding: .utf8)
    let result = try Binary.run(["--db", ":memory:", "-f", script])
    #expect(result.status == 1)
    #expect(!result.stdout.contains("not reached"))
    #expect(
      result.stderr
        == "\(script):2:18: error: loginSucceeded needs an email address (see 'event list')\n")
  }
}
