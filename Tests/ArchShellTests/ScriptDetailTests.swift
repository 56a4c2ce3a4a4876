import Foundation
import Testing

@Suite("script details through the binary", .serialized)
struct ScriptDetailTests {
  /// Runs `lines` as one -c line on a workspace in memory.
  private func run(_ lines: String) throws -> Binary.Result {
    try Binary.run(["--no-rc", "--db", ":memory:", "-c", lines])
  }

  @Test("after a failure, the script stops before the next line is echoed or read")
  func stopsBeforeEcho() throws {
    let directory = try Binary.makeTemporaryDirectory()
    try "echo one\nech two\necho 'three\n".write(
      toFile: directory + "/s.ash", atomically: false, encoding: .utf8)
    let result = try Binary.run(["--echo", "-f", "s.ash"], directory: directory, merge: true)
    #expect(result.status == 1)
    #expect(
      result.stdout == """
        archsh> echo one
        one
        archsh> ech two
        s.ash:2:1: error: unknown command 'ech' (did you mean 'echo'?)

        """)
  }

  @Test("--keep-going prints every error once and runs every other line")
  func keepGoingExact() throws {
    let result = try Binary.run(
      ["--keep-going", "-f", "Tests/ArchShellTests/Fixtures/outer.ash"], merge: true)
    #expect(result.status == 1)
    #expect(
      result.stdout == """
        outer starts
        inner runs with hello
        Tests/ArchShellTests/Fixtures/lib/inner.ash:3:6: error: unknown option '--loud' for 'echo' ('echo' takes no options); in file included from Tests/ArchShellTests/Fixtures/outer.ash:2
        after the error
        outer ends

        """)
  }

  @Test("a line break inside -c separates commands and counts lines")
  func newlinesInLine() throws {
    let result = try Binary.run(["-c", "set a 1\necho $a\nech"], merge: true)
    #expect(result.stdout == "1\n-c:3:1: error: unknown command 'ech' (did you mean 'echo'?)\n")
  }

  @Test("several -c options form one script: an expect in the next -c examines the failure")
  func expectAcrossLines() throws {
    let passing = try Binary.run(
      ["--no-rc", "--db", ":memory:", "-c", "store retrieve bookmarks zz", "-c", "expect fails"])
    #expect(passing.status == 0, "\(passing.stderr)")
    #expect(passing.stderr == "-c#1:1:26: error: no key 'zz' in store 'bookmarks'\n")
    let failing = try Binary.run(
      ["--no-rc", "--db", ":memory:", "-c", "store retrieve bookmarks zz", "-c", "echo next"])
    #expect(failing.status == 1)
    #expect(failing.stdout == "")
  }

  @Test(
    "small things: echo \"\" prints an empty line, $3 says it is an argument, time cannot time itself"
  )
  func smallThings() throws {
    #expect(try Binary.run(["-c", "echo ''; echo x"]).stdout == "\nx\n")
    #expect(
      try Binary.run(["-c", "echo $3"]).stderr
        == "-c:1:6: error: undefined variable '3' (the script was given fewer arguments; $# counts them)\n"
    )
    #expect(
      try Binary.run(["-c", "time time echo"]).stderr
        == "-c:1:6: error: 'time' cannot time itself (write 'time COMMAND')\n")
    #expect(
      try Binary.run(["-c", "unset \"a\\nb\""]).stderr
        == "-c:1:7: error: no variable 'a\\nb' ('vars' lists the variables)\n")
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

  @Test("in a script, every relative path starts in the script's folder, from any directory")
  func scriptRelativePaths() throws {
    // The walkthrough that reads @files/trip.json runs from another directory.
    let elsewhere = try Binary.makeTemporaryDirectory()
    let models = try Binary.run(
      ["--no-rc", "--db", ":memory:", "-f", Binary.root + "/examples/models.ash"],
      directory: elsewhere)
    #expect(models.status == 0, "\(models.stderr)")
    #expect(!models.stderr.contains("cannot read"), "\(models.stderr)")
    #expect(models.stdout.contains("Trip"))

    // A script in its own folder: parse acknowledgements, @FILE, --file NAME=@PATH, source
    // and trace export all start there; a sourced script's paths start in its own folder.
    let folder = try Binary.makeTemporaryDirectory()
    try FileManager.default.createDirectory(
      atPath: folder + "/lib", withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: Binary.root + "/examples/Pods-acknowledgements.plist",
      toPath: folder + "/acks.plist")
    try "from the script's folder".write(
      toFile: folder + "/value.txt", atomically: false, encoding: .utf8)
    try "from lib".write(toFile: folder + "/lib/value.txt", atomically: false, encoding: .utf8)
    try "store persist generalCache inner @value.txt\n".write(
      toFile: folder + "/lib/inner.ash", atomically: false, encoding: .utf8)
    try """
    parse acknowledgements acks.plist
    expect contains "libraries: 6"
    store persist generalCache outer @value.txt
    source lib/inner.ash
    store retrieve generalCache outer inner
    trace on
    factory get tracer
    trace export trace.mmd
    """.write(toFile: folder + "/tour.ash", atomically: false, encoding: .utf8)
    let tour = try Binary.run(["--no-rc", "--db", ":memory:", "-f", folder + "/tour.ash"])
    #expect(tour.status == 0, "\(tour.stderr)")
    #expect(tour.stdout.contains("outer  from the script's folder"), "\(tour.stdout)")
    #expect(tour.stdout.contains("inner  from lib"), "\(tour.stdout)")
    #expect(tour.stdout.contains("wrote a Mermaid sequence diagram to \(folder)/trace.mmd"))
    #expect(FileManager.default.fileExists(atPath: folder + "/trace.mmd"))

    // A missing file says where a relative path started, in a script and at the prompt.
    try "store persist generalCache k @nowhere.json\n".write(
      toFile: folder + "/missing.ash", atomically: false, encoding: .utf8)
    let missing = try Binary.run(["--no-rc", "--db", ":memory:", "-f", folder + "/missing.ash"])
    #expect(
      missing.stderr
        == "\(folder)/missing.ash:1:30: error: cannot read the value file '\(folder)/nowhere.json': no such file (a relative path starts in the script's folder, '\(folder)'; write @@ for a value that starts with @)\n"
    )
    // At the prompt (and for -c), a relative path starts in the current directory.
    let here = try Binary.run(
      ["--no-rc", "--db", ":memory:", "-c", "parse acknowledgements acks.plist"],
      directory: folder)
    #expect(here.status == 0, "\(here.stderr)")
    let away = try Binary.run(
      ["--no-rc", "--db", ":memory:", "-c", "store persist generalCache k @value.txt"],
      directory: elsewhere)
    #expect(
      away.stderr.contains(
        "no such file (a relative path starts in the current directory, '\(elsewhere)'"),
      "\(away.stderr)")
  }
}
