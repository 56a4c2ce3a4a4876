import Foundation
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
    let fast = LaunchOptions.scan(arguments)
    let parsed = try? Options.parse(arguments)
    if let fast {
      // What the scanner answers, ArgumentParser answers the same.
      let parsed = try #require(parsed, "ArgumentParser refused \(arguments)")
      #expect(fast == LaunchOptions(parsed, arguments: arguments))
    } else {
      // What the scanner declines is a form it leaves to ArgumentParser by design.
      let declined = Self.declined.contains(arguments) || parsed == nil
      #expect(declined, "the scanner declined \(arguments), which ArgumentParser accepts")
    }
  }

  /// Forms ArgumentParser accepts and the scanner leaves to it: help, versions, joined forms.
  static let declined: [[String]] = [
    ["--help"], ["--version"], ["-cecho hi"], ["--db=x", "-c", "a"], ["--", "help"],
    ["--api=http://x", "-c", "net api"], ["-c", "-x"],
    // A flag or a single-valued option given twice: ArgumentParser takes the last.
    ["--json", "--json"], ["--db", "a", "--db", "b"],
    // An option-like word after the script is the script's; the scanner leaves it.
    ["-f", "s.ash", "--bogus"],
  ]

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
  }
}
