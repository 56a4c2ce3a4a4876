import Foundation
import Testing

@testable import ArchShell

@Suite("process options")
struct OptionsTests {
  /// What happens to one command line.
  enum Outcome: Sendable {
    /// The fast scanner answers, and ArgumentParser answers the same.
    case scanned
    /// The scanner leaves it to ArgumentParser by design (joined forms, a repeated option, an
    /// option-like word after the script), which accepts it.
    case leftToParser
    /// ArgumentParser ends the run cleanly: help or the version.
    case cleanExit
    /// A usage error: the scanner declines it and ArgumentParser refuses it.
    case refused
  }

  static let vectors: [([String], Outcome)] = [
    ([], .scanned), (["-c", "echo hi"], .scanned), (["-c", "a", "-c", "b"], .scanned),
    (["-c", "a", "-f", "s.ash", "x", "-c", "y"], .scanned),
    (["-f", "s.ash", "--json", "arg"], .scanned),
    (["--db", ":memory:", "--json", "--keep-going", "--echo", "--no-rc"], .scanned),
    (["help", "--markdown"], .scanned), (["--echo", "-f", "t.ash", "1", "2"], .scanned),
    // A line that looks like an option, and a joined short option, are usage errors.
    (["-c", "-x"], .refused), (["--json", "--json"], .leftToParser),
    (["-cecho hi"], .refused), (["--db=x", "-c", "a"], .leftToParser),
    (["--", "help"], .leftToParser), (["--help"], .cleanExit), (["--version"], .cleanExit),
    (["-f", "a", "-f", "b"], .refused), (["--db", "a", "--db", "b"], .leftToParser),
    (["-c"], .refused), (["--jsno"], .refused), (["-f", "s.ash", "--bogus"], .leftToParser),
    (["--api", "http://127.0.0.1:9", "-c", "net api"], .scanned),
    (["--api=http://x", "-c", "net api"], .leftToParser),
  ]

  @Test(
    "the fast scanner and ArgumentParser agree on every command line: the same options, or the same refusal",
    arguments: vectors)
  func agree(_ arguments: [String], _ outcome: Outcome) throws {
    let fast = LaunchOptions.scan(arguments)
    let parsed: Result<Options, Error> = Result { try Options.parse(arguments) }
    switch outcome {
    case .scanned:
      let scanned = try #require(fast, "the scanner declined \(arguments)")
      let options = try #require(try? parsed.get(), "ArgumentParser refused \(arguments)")
      #expect(scanned == LaunchOptions(options, arguments: arguments))
    case .leftToParser:
      #expect(fast == nil, "the scanner answered \(arguments)")
      #expect((try? parsed.get()) != nil, "ArgumentParser refused \(arguments)")
    case .cleanExit, .refused:
      #expect(fast == nil, "the scanner answered \(arguments)")
      guard case .failure(let error) = parsed else {
        Issue.record("ArgumentParser accepted \(arguments)")
        return
      }
      let status = Options.exitCode(for: error)
      #expect(
        outcome == .cleanExit ? status == .success : status == .validationFailure,
        "\(arguments): \(status)")
    }
  }

  /// ArgumentParser's own model of the options (`--experimental-dump-help`).
  static func declared() throws -> [(name: String, valued: Bool, repeating: Bool)] {
    let run = try Binary.run(["--experimental-dump-help"])
    let dump = try #require(
      try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let command = try #require(dump["command"] as? [String: Any])
    let arguments = try #require(command["arguments"] as? [[String: Any]])
    return arguments.compactMap { argument in
      guard argument["kind"] as? String != "positional",
        let name = (argument["names"] as? [[String: Any]])?.first,
        let spelled = name["name"] as? String
      else { return nil }
      let dashes = (name["kind"] as? String) == "long" ? "--" : "-"
      guard !["--help", "-h", "--version"].contains(dashes + spelled) else { return nil }
      return (
        dashes + spelled, argument["kind"] as? String == "option",
        argument["isRepeating"] as? Bool ?? false
      )
    }
  }

  @Test("the scanner's table is ArgumentParser's declarations, option for option")
  func tableIsDeclared() throws {
    let declared = try Self.declared()
    #expect(declared.count >= 16, "\(declared)")
    #expect(Set(declared.filter(\.valued).map(\.name)) == OptionTable.valued)
    #expect(Set(declared.filter(\.repeating).map(\.name)) == OptionTable.repeating)
    #expect(Set(declared.filter { !$0.valued }.map(\.name)) == OptionTable.flags)
    // The checked-in table is what scripts/option-table writes from the binary.
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Binary.root + "/scripts/option-table")
    process.arguments = [Binary.path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let written = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let checkedIn = try String(
      contentsOfFile: Binary.root + "/Sources/ArchShell/OptionTable.swift", encoding: .utf8)
    #expect(String(decoding: written, as: UTF8.self) == checkedIn, "run 'make docs'")
  }

  @Test("for every declared option, the scanner and ArgumentParser read the same launch")
  func everyOption() throws {
    let declared = try Self.declared()
    #expect(declared.count >= 16)
    for option in declared {
      // A value for the options that take one, and the company some need.
      var arguments = option.valued ? [option.name, "value.ash"] : [option.name]
      switch option.name {
      case "--from": arguments = ["--step", "-f", "tour.ash"] + arguments
      case "-c": arguments += ["-c", "second line"]
      default: break
      }
      arguments += ["word", "--json"]
      let fast = try #require(LaunchOptions.scan(arguments), "the scanner declined \(arguments)")
      let parsed = LaunchOptions(try Options.parse(arguments), arguments: arguments)
      #expect(fast == parsed, "\(arguments)")
      #expect(fast != LaunchOptions.scan(["word", "--json"]), "\(option.name) changed nothing")
    }
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
    // `-c=LINE` keeps its place too; before, it ran nothing and ended with status 0.
    let equals = ["-c=echo a", "--db", ":memory:", "-c", "echo b"]
    #expect(
      LaunchOptions(try Options.parse(equals), arguments: equals).actions == [
        .line("echo a"), .line("echo b"),
      ])
    let run = try Binary.run(["-c=echo a", "--db", ":memory:", "-c", "echo b"])
    #expect(run.stdout == "a\nb\n", "\(run.stderr)")
    // `--` ends the options, and is not itself a word of the command.
    let ended = ["--", "help", "--markdown"]
    #expect(
      LaunchOptions(try Options.parse(ended), arguments: ended).words == ["help", "--markdown"])
  }
}
