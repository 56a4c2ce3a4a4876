import Foundation
import Testing

/// Every way out of archsh writes what it printed and closes the workspace: the write-ahead log
/// is folded back into the file, and the prompt's history is saved.
@Suite("leaving archsh loses nothing", .serialized)
struct LeavingTests {
  /// How a session at the prompt ends, and the status it ends with.
  enum Way: CaseIterable, CustomStringConvertible {
    case controlD, quit, exit, sigterm, sighup

    var description: String {
      switch self {
      case .controlD: return "Ctrl-D"
      case .quit: return "quit"
      case .exit: return "exit 3"
      case .sigterm: return "SIGTERM"
      case .sighup: return "SIGHUP"
      }
    }

    var status: Int32 {
      switch self {
      case .controlD, .quit: return 0
      case .exit: return 3
      case .sigterm: return 128 + SIGTERM
      case .sighup: return 128 + SIGHUP
      }
    }
  }

  /// The size of a workspace's write-ahead log: 0 when it was folded in (emptied, or removed).
  private func walBytes(_ db: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: db + "-wal"))?[.size] as? Int) ?? 0
  }

  @Test(
    "the prompt closes its workspace and saves its history, however it ends",
    arguments: Way.allCases)
  func prompt(_ way: Way) throws {
    let home = try Binary.makeTemporaryDirectory()
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    let db = home + "/iw.sqlite"
    let terminal = try PseudoTerminal([Binary.path, "--db", db], environment: environment)
    var mark = try terminal.waitFor("archsh> ")
    let value = "https://example.com/\(way.status)"
    terminal.type("store persist bookmarks home \(value)\r")
    mark = try terminal.waitFor("archsh> ", after: mark)
    switch way {
    case .controlD: try terminal.press("\u{04}")
    case .quit: terminal.type("quit\r")
    case .exit: terminal.type("exit 3\r")
    case .sigterm: kill(terminal.pid, SIGTERM)
    case .sighup: kill(terminal.pid, SIGHUP)
    }
    #expect(try terminal.waitForExit() == way.status)
    // The log was folded into the file: the file alone holds the value.
    #expect(walBytes(db) == 0, "\(way)")
    let copy = home + "/copy.sqlite"
    try FileManager.default.copyItem(atPath: db, toPath: copy)
    let read = try Binary.run(["--no-rc", "--db", copy, "-c", "store retrieve bookmarks home"])
    #expect(read.stdout == value + "\n", "\(way): \(read.stderr)")
    let history = try String(contentsOfFile: home + "/state/archsh/history", encoding: .utf8)
    #expect(history.contains("store\\040persist") || history.contains("store persist"), "\(way)")
  }

  @Test(
    "a script's output reaches a file or a pipe as each command ends, and a signal loses none of it"
  )
  func scriptOutput() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let script = directory + "/s.ash"
    // "start" comes after the persist: once it arrives, the persist has committed.
    try "store persist bookmarks a 1\necho start\nsleep 10s\necho never\n".write(
      toFile: script, atomically: true, encoding: .utf8)
    for (signal, status) in [
      (SIGTERM, 128 + SIGTERM), (SIGINT, 128 + SIGINT), (SIGHUP, 128 + SIGHUP),
    ] {
      let db = directory + "/s\(signal).sqlite"
      let process = Process()
      process.executableURL = URL(fileURLWithPath: Binary.path)
      process.arguments = ["--no-rc", "--db", db, "-f", script]
      process.environment = Binary.environment(home: directory)
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      process.standardInput = FileHandle.nullDevice
      try process.run()
      // "start" comes through the pipe while the script still runs.
      var seen = Data()
      while !String(decoding: seen, as: UTF8.self).contains("start\n") {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        seen.append(chunk)
      }
      #expect(String(decoding: seen, as: UTF8.self).hasPrefix("start\n"))
      kill(process.processIdentifier, signal)
      seen.append(output.fileHandleForReading.readDataToEndOfFile())
      process.waitUntilExit()
      #expect(process.terminationStatus == Int32(status), "signal \(signal)")
      #expect(!String(decoding: seen, as: UTF8.self).contains("never"))
      #expect(walBytes(db) == 0, "signal \(signal)")
      let read = try Binary.run(["--no-rc", "--db", db, "-c", "store retrieve bookmarks a"])
      #expect(read.stdout == "1\n")
    }
  }
}
