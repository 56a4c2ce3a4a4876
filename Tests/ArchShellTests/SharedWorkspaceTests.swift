import Foundation
import Testing

/// Two archsh processes on one workspace: every data-source mutation and every coordinator event
/// applies to what the workspace holds when it runs, so that neither loses the other's.
@Suite("two shells on one workspace lose nothing", .serialized)
struct SharedWorkspaceTests {
  /// Starts archsh on `script` without waiting for it.
  private func start(_ arguments: [String], home: String) throws -> (Process, Pipe, Pipe) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Binary.path)
    process.arguments = arguments
    process.environment = Binary.environment(home: home)
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return (process, output, errors)
  }

  @Test(
    "1,000 data-source rows and 1,000 coordinator pushes from each of two processes at once all stay, each process's in its order"
  )
  func interleaved() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let db = directory + "/shared.sqlite"
    let setup = try Binary.run(
      [
        "--no-rc", "--db", db, "-c", "ds new todo --rows seed", "-c", "app start", "-c",
        "app login ada@example.com",
      ])
    #expect(setup.status == 0, "\(setup.stderr)")
    let count = 1000
    var scripts: [String] = []
    for (name, first) in [("A", 100_000), ("B", 200_000)] {
      var lines: [String] = []
      for index in 0..<count {
        lines.append("ds row add todo 0 999999 \(name)-\(index) --quiet")
        lines.append("event send discover mediaItemSelected \(first + index)")
      }
      let path = directory + "/\(name).ash"
      try lines.joined(separator: "\n").appending("\n").write(
        toFile: path, atomically: true, encoding: .utf8)
      scripts.append(path)
    }
    let running = try scripts.map { try start(["--no-rc", "--db", db, "-f", $0], home: directory) }
    for (process, output, errors) in running {
      // Drained as they run: a full pipe would stop the process.
      let box = ErrorText()
      let reader = DispatchQueue.global()
      let group = DispatchGroup()
      reader.async(group: group) { box.text = errors.fileHandleForReading.readDataToEndOfFile() }
      _ = output.fileHandleForReading.readDataToEndOfFile()
      group.wait()
      process.waitUntilExit()
      #expect(
        process.terminationStatus == 0, "\(String(decoding: box.text, as: UTF8.self).prefix(500))")
    }
    let rows = try Binary.run([
      "--no-rc", "--json", "--db", db, "-c", "ds render todo --count 5000",
    ])
    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(rows.stdout.utf8)) as? [String: Any])
    let sections = try #require(document["sections"] as? [[String: Any]])
    let models = (sections.first?["rows"] as? [[String: Any]] ?? []).compactMap {
      $0["model"] as? String
    }
    #expect(models.count == 1 + 2 * count)
    #expect(models.first == "seed")
    for name in ["A", "B"] {
      // Compared as one text, so that a failure prints where they part, not 2,000 values.
      let rows = models.filter { $0.hasPrefix(name + "-") }.joined(separator: " ")
      #expect(
        rows == (0..<count).map { "\(name)-\($0)" }.joined(separator: " "),
        "\(name)'s rows are all there, in the order \(name) added them")
    }
    let stack = try Binary.run(["--no-rc", "--db", db, "-c", "coord stack discover"])
    // The table's rows, one screen each (the first line draws the whole stack on one line).
    let pushed = stack.stdout.split(separator: "\n").filter { !$0.contains("›") }.compactMap {
      line -> Int? in
      guard let open = line.range(of: "MediaItem("),
        let close = line[open.upperBound...].firstIndex(of: ")")
      else { return nil }
      return Int(line[open.upperBound..<close])
    }
    #expect(pushed.count == 2 * count, "\(stack.stdout.suffix(300))")
    for first in [100_000, 200_000] {
      let screens = pushed.filter { ($0 / 100_000) * 100_000 == first }
      #expect(screens.count == count)
      #expect(screens == screens.sorted(), "each process's pushes in the order it sent them")
    }
  }

  @Test("a command that only reads ends at once while another process holds the write lock")
  func readerDoesNotWaitAtExit() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let db = directory + "/held.sqlite"
    let setup = try Binary.run(["--no-rc", "--db", db, "-c", "ds new todo --rows a b"])
    #expect(setup.status == 0, "\(setup.stderr)")
    // An --atomic run holds the write lock until it ends: 4 s here.
    let holder = try start(
      [
        "--no-rc", "--db", db, "--atomic", "-c", "store persist bookmarks a 1", "-c", "echo held",
        "-c", "sleep 4s",
      ], home: directory)
    let held = holder.1.fileHandleForReading
    var seen = Data()
    while !String(decoding: seen, as: UTF8.self).contains("held") {
      let chunk = held.availableData
      if chunk.isEmpty { break }
      seen += chunk
    }
    let start = ContinuousClock.now
    let reader = try Binary.run(["--no-rc", "--db", db, "-c", "ds count todo"])
    let elapsed = ContinuousClock.now - start
    #expect(reader.status == 0, "\(reader.stderr)")
    #expect(reader.stdout.contains("total_row_count:  2"), "\(reader.stdout)")
    // Before, folding the log at exit waited for the lock: about 2 s, or the holder's end.
    #expect(elapsed < .seconds(1.5), "the reader took \(elapsed)")
    holder.0.waitUntilExit()
    #expect(holder.0.terminationStatus == 0)
  }

  @Test("a writer blocked by an --atomic run is told which workspace is busy and why")
  func busyWorkspace() throws {
    let home = try Binary.makeTemporaryDirectory()
    let database = home + "/work.sqlite"
    _ = try Binary.run(["--no-rc", "--db", database, "-c", "store persist bookmarks a 1"])
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: Binary.path)
    holder.arguments = [
      "--no-rc", "--db", database, "--atomic", "-c", "store persist bookmarks b 2", "-c",
      "echo holding", "-c", "set release --secret",
    ]
    holder.environment = Binary.environment(home: home)
    let output = Pipe()
    holder.standardOutput = output
    // The holder waits on its standard input ('set NAME --secret' reads the next line), so the
    // lock is held until this test lets it go: no sleep decides how long.
    let release = Pipe()
    holder.standardInput = release
    try holder.run()
    defer {
      release.fileHandleForWriting.write(Data("go\n".utf8))
      try? release.fileHandleForWriting.close()
      holder.waitUntilExit()
    }
    // Each command's output is written when it ends: 'holding' means the write is in, and the
    // atomic run holds the workspace's write lock until it reads its release.
    #expect(Binary.firstLine(of: output) == "holding")
    let blocked = try Binary.run(
      ["--no-rc", "--db", database, "-c", "store persist bookmarks c 3"], home: home)
    #expect(blocked.status == 1)
    #expect(
      blocked.stderr.contains("the workspace '\(database)' is busy: another archsh process"),
      "\(blocked.stderr)")
    #expect(!blocked.stderr.contains("SQLite error 5"))
  }

  @Test(
    "a long-lived shell reads what another committed, keeps it when it acts, selects only rows it was shown, and a new process's app start launches into the saved state"
  )
  func staleState() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let db = directory + "/shared.sqlite"
    let setup = try Binary.run(
      ["--no-rc", "--db", db, "-c", "app start", "-c", "app login ada@example.com"])
    #expect(setup.status == 0, "\(setup.stderr)")
    let shellA = try BoardTests.Shell(["--no-rc", "--keep-going", "--db", db])
    defer { shellA.quit() }
    var step = 0
    /// What A printed for `lines`.
    func inA(_ lines: String...) throws -> String {
      step += 1
      for line in lines { shellA.send(line) }
      shellA.send("echo step-\(step)-done")
      return try shellA.read(until: "(?s).*step-\(step)-done\n", seconds: 20)
    }
    /// What another process printed for `lines`, which must succeed.
    func inB(_ lines: String...) throws -> String {
      let run = try Binary.run(["--no-rc", "--db", db] + lines.flatMap { ["-c", $0] })
      #expect(run.status == 0, "\(lines): \(run.stderr)")
      return run.stdout
    }
    // A has the app in memory; B pushes Settings meanwhile.
    _ = try inA("coord tree")
    _ = try inB("event send profile settingsTapped")
    // A's reading commands see B's push...
    let seen = try inA("coord stack profile", "app state")
    #expect(seen.contains("ProfileFlowCoordinator: Profile › Settings"), "\(seen)")
    // ...and A's event applies on top of it: B's push stays.
    _ = try inA("event send tabbar tabSelected favourites")
    let after = try inB("coord stack profile", "coord tree")
    #expect(after.contains("ProfileFlowCoordinator: Profile › Settings"), "\(after)")
    #expect(after.contains("TabBar, tab: favourites"), "\(after)")

    // A draws Discover's products; B switches to the profile tab; A's row 0 is not sent.
    let drawn = try inA("event send tabbar tabSelected discover", "screen show")
    #expect(drawn.contains("screen select 0–14: mediaItemSelected(id)"), "\(drawn)")
    _ = try inB("event send tabbar tabSelected profile")
    let refused = try inA("screen select 0")
    #expect(
      refused.contains(
        "error: another archsh changed the app since 'screen show' drew Discover (DiscoverFlowCoordinator): it shows Settings (ProfileFlowCoordinator) now, so row 0 was not selected (run 'screen show' again, and select from what it draws)"
      ), "\(refused)")
    let unchanged = try inB("coord stack profile", "app state")
    #expect(unchanged.contains("ProfileFlowCoordinator: Profile › Settings"), "\(unchanged)")
    #expect(unchanged.contains("ada@example.com"), "\(unchanged)")
    // Drawn again, the rows are the ones selected from.
    let redrawn = try inA("screen show", "screen select 1")
    #expect(redrawn.contains("sends backTapped"), "\(redrawn)")

    // The saved state is where the app was, not a flag that a process runs it: a new process's
    // app start launches into it.
    let started = try inB("app start")
    #expect(
      started.contains(
        "AppDelegate launches into the state saved in the workspace (the main flow)"),
      "\(started)")
  }
}

/// Bytes one thread reads and another reads after a group wait orders them.
private final class ErrorText: @unchecked Sendable {
  var text = Data()
}
