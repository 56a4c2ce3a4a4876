import Foundation
import Testing

/// The smaller defects a new user met (issue 20): empty names, `sleep`'s hint, `--help`, dropping
/// a store and clearing one fault; each driven through the binary.
@Suite("a new user's conveniences, through the binary", .serialized)
struct NewUserConvenienceTests {
  private func run(_ lines: String) throws -> Binary.Result {
    try Binary.run(["--no-rc", "--db", ":memory:", "-c", lines])
  }

  @Test("an empty name or key is refused at its column, and nothing is created")
  func emptyNames() throws {
    let dataSource = try run("ds new '' --rows a")
    #expect(dataSource.status == 1)
    #expect(dataSource.stdout == "")
    #expect(dataSource.stderr == "-c:1:8: error: NAME cannot be empty (give a name)\n")

    let key = try run("store persist bookmarks '' x")
    #expect(key.status == 1)
    #expect(key.stderr == "-c:1:25: error: KEY cannot be empty (give a name)\n")

    // The same line with a real key works, and no blank key was ever stored.
    let kept = try run(
      "store persist bookmarks '' x; expect fails 'KEY cannot be empty'; store bytes bookmarks")
    #expect(kept.status == 0, "\(kept.stderr)")
    #expect(kept.stdout == "store: bookmarks\nbytes: 0\n")
    #expect(try run("store create ''").stderr.contains("NAME cannot be empty"))
    #expect(try run("source ''").stderr.contains("FILE cannot be empty (give a file's path)"))
  }

  @Test("sleep's hint gives sleep's own bound, and a bare number is told to take a unit")
  func sleepHint() throws {
    let bare = try run("sleep 5")
    #expect(bare.status == 1)
    #expect(
      bare.stderr
        == "-c:1:7: error: expected a duration for DURATION, not '5' (a duration needs a unit, such as 5s; at most 60s)\n"
    )
    #expect(!bare.stderr.contains("30d"))
    let wrong = try run("sleep soon")
    #expect(
      wrong.stderr
        == "-c:1:7: error: expected a duration for DURATION, not 'soon' (for example 500ms or 2s; at most 60s)\n"
    )
    let long = try run("sleep 90s")
    #expect(long.stderr == "-c:1:7: error: expected at most 60s for DURATION, not '90s'\n")
    // What the hint offers is accepted.
    #expect(try run("sleep 5ms").status == 0)
    // Durations without a bound keep their examples.
    #expect(
      try run("store limits bookmarks --age soon").stderr.contains(
        "(for example 90s, 12h, 30d or 0 for none)"))
  }

  @Test("--help after a command, a group, a two-word verb or a builtin shows its help")
  func helpOption() throws {
    for (line, help) in [
      ("store persist --help", "help store persist"),
      ("store persist bookmarks k --help", "help store persist"),
      ("factory --help", "help factory"),
      ("ds section --help", "help ds section"),
      ("ds section add --help", "help ds section add"),
      ("sleep --help", "help sleep"),
      ("time --help", "help time"),
    ] {
      let asked = try run(line)
      let expected = try run(help)
      #expect(asked.status == 0, "\(line): \(asked.stderr)")
      #expect(asked.stdout == expected.stdout, "\(line)")
      #expect(asked.stdout.contains("usage: ") || asked.stdout.contains("commands:"), "\(line)")
    }
    #expect(try run("store persist --help").stdout.hasPrefix("usage: store persist STORE KEY"))
    // Inside a command line that `time` runs, the help is that command's.
    #expect(try run("time store keys --help").stdout.hasPrefix("usage: store keys STORE"))
    // `--help` as a value, quoted, or after `--` is an argument like any other.
    let value = try run("store keys bookmarks --prefix --help")
    #expect(value.status == 0, "\(value.stderr)")
    #expect(value.stdout.hasPrefix("key\n---\n"))
    #expect(!value.stdout.contains("usage:"))
    #expect(try run("echo '--help'").stdout == "--help\n")
    #expect(try run("echo -- --help").stdout == "--help\n")
    // An unknown group is still an unknown command.
    #expect(try run("stor --help").stderr.contains("unknown command 'stor'"))
  }
}
