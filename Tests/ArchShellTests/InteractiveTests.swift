import Foundation
import Testing

@Suite("interactive shell on a pseudo-terminal", .serialized)
struct InteractiveTests {
  @Test("Tab completes, Up recalls, Ctrl-C discards the line, Ctrl-D exits 0 and saves history")
  func session() throws {
    let home = try Binary.makeTemporaryDirectory()
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    let terminal = try PseudoTerminal([Binary.path], environment: environment)
    try terminal.waitFor("archsh> ")

    // "he" then Tab completes to "help"; Enter runs it.
    var mark = terminal.mark
    try terminal.press("he\t")
    try terminal.waitFor("lp ", after: mark)
    terminal.type("\r")
    mark = try terminal.waitFor("groups:", after: mark)
    try terminal.waitFor("archsh> ", after: mark)

    // The Up arrow recalls "help"; Enter runs it again.
    mark = terminal.mark
    try terminal.press("\u{1B}[A")
    try terminal.waitFor("help", after: mark)
    terminal.type("\r")
    mark = try terminal.waitFor("groups:", after: mark)
    try terminal.waitFor("archsh> ", after: mark)

    // Ctrl-C on a half-typed line gives a fresh prompt; the line never runs.
    mark = terminal.mark
    terminal.type("echo half-typed")
    try terminal.waitFor("half-typed", after: mark)
    try terminal.press("\u{03}")
    mark = try terminal.waitFor("archsh> ", after: mark)
    terminal.type("echo after-interrupt\r")
    mark = try terminal.waitFor("after-interrupt\r\nafter-interrupt", after: mark)
    #expect(!terminal.transcript.contains("half-typed\r\nhalf-typed"))

    // Ctrl-C on an empty line gives a fresh prompt too, and the session goes on.
    try terminal.waitFor("archsh> ", after: mark)
    mark = terminal.mark
    try terminal.press("\u{03}")
    mark = try terminal.waitFor("archsh> ", after: mark)
    terminal.type("echo still-here\r")
    mark = try terminal.waitFor("still-here\r\nstill-here", after: mark)

    // An error does not end the session; a secret line is kept out of history.
    try terminal.waitFor("archsh> ", after: mark)
    mark = terminal.mark
    terminal.type("ech oops\r")
    mark = try terminal.waitFor("error: unknown command 'ech' (did you mean 'echo'?)", after: mark)
    try terminal.waitFor("archsh> ", after: mark)
    mark = terminal.mark
    terminal.type("set token s3cr3t --secret\r")
    mark = try terminal.waitFor("set token s3cr3t --secret\r\n", after: mark)
    try terminal.waitFor("archsh> ", after: mark)

    // Ctrl-D exits with status 0, and the history file exists with mode 0600.
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
    let history = home + "/state/archsh/history"
    let attributes = try FileManager.default.attributesOfItem(atPath: history)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    let saved = try String(contentsOfFile: history, encoding: .utf8)
    #expect(saved.contains("echo\\040after-interrupt"))
    #expect(saved.contains("ech\\040oops"))
    #expect(!saved.contains("s3cr3t"))
    #expect(!saved.contains("half-typed"))
  }

  @Test("the rc file runs at start, history is loaded back, and --no-rc skips the rc file")
  func rcAndHistory() throws {
    let home = try Binary.makeTemporaryDirectory()
    try FileManager.default.createDirectory(
      atPath: home + "/config/archsh", withIntermediateDirectories: true)
    try "set greeting from-rc".write(
      toFile: home + "/config/archsh/rc.ash", atomically: false, encoding: .utf8)
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"

    let first = try PseudoTerminal([Binary.path], environment: environment)
    try first.waitFor("archsh> ")
    var mark = first.mark
    first.type("echo $greeting\r")
    try first.waitFor("archsh> ", after: first.waitFor("from-rc\r\n", after: mark))
    first.type("quit\r")
    #expect(try first.waitForExit() == 0)

    let second = try PseudoTerminal([Binary.path, "--no-rc"], environment: environment)
    try second.waitFor("archsh> ")
    mark = second.mark
    second.type("history\r")
    try second.waitFor("archsh> ", after: second.waitFor("1  echo $greeting", after: mark))
    mark = second.mark
    second.type("echo $greeting\r")
    try second.waitFor(
      "archsh> ", after: second.waitFor("error: undefined variable 'greeting'", after: mark))
    second.type("exit 4\r")
    #expect(try second.waitForExit() == 4)
  }

  @Test("SIGTERM at the prompt saves the history before leaving")
  func terminate() throws {
    let home = try Binary.makeTemporaryDirectory()
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    let terminal = try PseudoTerminal([Binary.path], environment: environment)
    try terminal.waitFor("archsh> ")
    let mark = terminal.mark
    terminal.type("echo before-term\r")
    try terminal.waitFor("archsh> ", after: terminal.waitFor("before-term\r\n", after: mark))
    kill(terminal.pid, SIGTERM)
    let status = try terminal.waitForExit()
    #expect(status == 143, "\(terminal.transcript)")
    let saved = try String(contentsOfFile: home + "/state/archsh/history", encoding: .utf8)
    #expect(saved.contains("echo\\040before-term"))
  }

  @Test("two shells on one history file each add their lines: the one that leaves last keeps both")
  func sharedHistory() throws {
    let home = try Binary.makeTemporaryDirectory()
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    let first = try PseudoTerminal([Binary.path, "--db", ":memory:"], environment: environment)
    try first.waitFor("archsh> ")
    let second = try PseudoTerminal([Binary.path, "--db", ":memory:"], environment: environment)
    try second.waitFor("archsh> ")
    for (terminal, word) in [(first, "from-first"), (second, "from-second")] {
      let mark = terminal.mark
      terminal.type("echo \(word)\r")
      try terminal.waitFor("archsh> ", after: terminal.waitFor("\(word)\r\n", after: mark))
    }
    try first.press("\u{04}")
    #expect(try first.waitForExit() == 0)
    try second.press("\u{04}")
    #expect(try second.waitForExit() == 0)
    let history = home + "/state/archsh/history"
    let saved = try String(contentsOfFile: history, encoding: .utf8)
    #expect(saved.contains("echo\\040from-first"), "\(saved)")
    #expect(saved.contains("echo\\040from-second"), "\(saved)")
    let mode = try FileManager.default.attributesOfItem(atPath: history)[.posixPermissions] as? Int
    #expect(mode == 0o600)
    // A third shell finds both, oldest first.
    let third = try PseudoTerminal([Binary.path, "--db", ":memory:"], environment: environment)
    try third.waitFor("archsh> ")
    let mark = third.mark
    third.type("history\r")
    let listed = try third.waitFor("archsh> ", after: third.waitFor("from-second", after: mark))
    #expect(third.transcript[mark..<listed].contains("from-first"), "\(third.transcript)")
    try third.press("\u{04}")
    #expect(try third.waitForExit() == 0)
  }
}
