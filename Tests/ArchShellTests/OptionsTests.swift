import Testing

@testable import ArchShell

@Suite("process options")
struct OptionsTests {
  static let vectors: [[String]] = [
    [], ["-c", "echo hi"], ["-c", "a", "-c", "b"], ["-c", "a", "-f", "s.ash", "x", "-c", "y"],
    ["-f", "s.ash", "--json", "arg"],
    ["--db", ":memory:", "--json", "--keep-going", "--echo", "--no-rc"],
    ["help", "--markdown"], ["--echo", "-f", "t.ash", "1", "2"], ["-c", "-x"],
    ["--json", "--json"],
    ["-cecho hi"], ["--db=x", "-c", "a"], ["--", "help"], ["--help"], ["--version"],
    ["-f", "a", "-f", "b"],
    ["--db", "a", "--db", "b"], ["-c"], ["--jsno"], ["-f", "s.ash", "--bogus"],
    ["--api", "http://127.0.0.1:9", "-c", "net api"], ["--api=http://x", "-c", "net api"],
  ]

  @Test(
    "the fast scanner and ArgumentParser agree wherever the scanner answers", arguments: vectors)
  func agree(_ arguments: [String]) throws {
    guard let fast = LaunchOptions.scan(arguments) else { return }
    let parsed = try Options.parse(arguments)
    #expect(fast == LaunchOptions(parsed, arguments: arguments))
  }

  @Test("the scanner leaves help, versions, joined forms and mistakes to ArgumentParser")
  func declines() {
    for arguments in [
      ["--help"], ["--version"], ["-cecho hi"], ["--db=x"], ["--", "help"], ["-c"], ["--jsno"],
      ["-c", "-x"],
      ["--json", "--json"], ["-f", "a", "-f", "b"],
    ] {
      #expect(LaunchOptions.scan(arguments) == nil, "\(arguments)")
    }
  }

  @Test("-c and -f keep their order, and words after -f FILE are the script's arguments")
  func order() throws {
    let arguments = ["-c", "a", "-f", "s.ash", "x", "-c", "y"]
    let options = try #require(LaunchOptions.scan(arguments))
    #expect(options.actions == [.line("a"), .file("s.ash")])
    #expect(options.words == ["x", "-c", "y"])
    let slow = ["--db=w.sqlite", "-c", "a", "-f", "s.ash", "--json", "x"]
    #expect(LaunchOptions.scan(slow) == nil)
    let parsed = LaunchOptions(try Options.parse(slow), arguments: slow)
    #expect(parsed.actions == [.line("a"), .file("s.ash")])
    #expect(parsed.database == "w.sqlite")
    #expect(parsed.json)
    #expect(parsed.words == ["x"])
  }
}
