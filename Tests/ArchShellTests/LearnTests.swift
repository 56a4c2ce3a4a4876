import Foundation
import Testing

/// `learn`: exercises that archsh checks, against the binary that ships.
@Suite("learn: exercises", .serialized)
struct LearnTests {
  /// The exercise files in the repository.
  static var exerciseFiles: [String] {
    let folder = Binary.root + "/Sources/Commands/Learn/Exercises"
    return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
      .filter { $0.hasSuffix(".ash") }.sorted()
  }

  @Test(
    "learn verify plays every exercise: its setup alone and its wrong attempt miss the goal, its solution meets it"
  )
  func everyExercise() throws {
    let files = Self.exerciseFiles
    let run = try Binary.run(["--no-rc", "--db", ":memory:", "--json", "-c", "learn verify"])
    #expect(run.status == 0, "\(run.stderr)")
    let rows = try #require(
      try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
    // Every file is played, each once, and each passes all three checks.
    #expect(
      rows.compactMap { $0["name"] as? String }.sorted() == files.map { String($0.dropLast(4)) })
    for row in rows {
      #expect(row["verdict"] as? String == "ok", "\(row)")
      #expect(row["untouched"] as? String == "not met", "\(row)")
      #expect(row["solution"] as? String == "met", "\(row)")
      #expect(row["wrong"] as? String == "not met", "\(row)")
      #expect(["not met", "-"].contains(row["cheat"] as? String), "\(row)")
    }
    // At least twenty, and at least three for every seed.
    #expect(rows.count >= 20)
    let seeds = Dictionary(grouping: rows, by: { $0["seed"] as? String ?? "" })
    for seed in ["000/001", "002", "003", "004"] {
      #expect((seeds[seed]?.count ?? 0) >= 3, "seed \(seed) has \(seeds[seed]?.count ?? 0)")
    }
  }

  @Test(
    "a check that every state meets, a solution that misses, or a wrong attempt that fails to run, fails learn verify with exit 1"
  )
  func verifyCatchesBadExercises() throws {
    let home = try Binary.makeTemporaryDirectory()
    let always = """
      # Always met
      #: seed archsh
      #: goal Anything.
      #: hint None needed.
      ## setup
      ## check
      echo fine
      expect contains fine
      ## solution
      echo done
      ## wrong
      echo nothing
      """
    try always.write(toFile: home + "/always.ash", atomically: false, encoding: .utf8)
    let never = always.replacingOccurrences(
      of: "expect contains fine", with: "expect contains never")
    try never.write(toFile: home + "/never.ash", atomically: false, encoding: .utf8)
    // A wrong attempt that does not run misses the goal for nothing.
    let broken = always.replacingOccurrences(of: "expect contains fine", with: "expect equals ok")
      .replacingOccurrences(of: "echo fine", with: "echo ${done}")
      .replacingOccurrences(of: "echo done", with: "set done ok")
      .replacingOccurrences(of: "echo nothing", with: "ech nothing")
    try broken.write(toFile: home + "/broken.ash", atomically: false, encoding: .utf8)
    let run = try Binary.run(
      [
        "--no-rc", "--db", ":memory:", "-c",
        "learn verify \(home)/always.ash \(home)/never.ash \(home)/broken.ash",
      ], directory: home)
    #expect(run.status == 1)
    let problem =
      "wrong attempt: \(home)/broken.ash:12:1: error: unknown command 'ech' (did you mean 'echo'?)"
    let rule = String(repeating: "-", count: problem.count)
    #expect(
      run.stdout == """
        name    seed    untouched  solution  wrong    cheat  verdict  problem
        ------  ------  ---------  --------  -------  -----  -------  \(rule)
        always  archsh  MET        met       MET      -      FAIL     -
        never   archsh  not met    NOT MET   not met  -      FAIL     -
        broken  archsh  not met    met       not met  -      FAIL     \(problem)

        """)
    #expect(
      run.stderr
        == "-c:1:1: error: 3 exercises of 3 failed verification (the setup alone, the wrong attempt and the cheat must not meet the goal, and the solution must)\n"
    )
  }

  @Test("a '## never' state breaks an attempt that passes through it, typed or verified")
  func neverState() throws {
    let home = try Binary.makeTemporaryDirectory()
    let file = home + "/keep-k.ash"
    try """
    # Keep the key
    #: seed 000/001
    #: goal Make generalCache hold k with the value 2, and never let k go missing on the way.
    #: never generalCache without k
    ## setup
    store persist generalCache k 1
    ## check
    store retrieve generalCache k
    expect contains 2
    ## solution
    store persist generalCache k 2
    ## wrong
    store persist generalCache k 3
    ## cheat
    store remove generalCache k
    store persist generalCache k 2
    ## never
    store retrieve generalCache k
    expect fails

    """.write(toFile: file, atomically: false, encoding: .utf8)
    // learn verify plays the cheat line by line: its first line passes through the state.
    let verified = try Binary.run(["--no-rc", "--db", ":memory:", "-c", "learn verify \(file)"])
    #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
    #expect(verified.stdout.contains("keep-k  000/001  not met    met       not met  not met  ok"))
    // Typed: said at once, and the goal reached afterwards does not count.
    let typed = try Binary.run([
      "--no-rc", "--db", ":memory:", "-c", "learn start \(file)", "-c",
      "store remove generalCache k",
      "-c", "store persist generalCache k 2", "-c", "learn goal",
    ])
    #expect(
      typed.stdout.contains(
        "✗ the way passed through generalCache without k, which this exercise rules out: this attempt no longer counts for the goal ('learn reset' starts it again)"
      ), "\(typed.stdout)")
    #expect(!typed.stdout.contains("✓ goal met"))
  }

  @Test("an exercise file with a fault is refused with its file, line and a hint")
  func badFiles() throws {
    let home = try Binary.makeTemporaryDirectory()
    try "# T\n#: seed 009\n#: goal G\n## setup\n## check\necho\n## solution\n## wrong\n".write(
      toFile: home + "/seed.ash", atomically: false, encoding: .utf8)
    try "# T\n#: seed 002\n#: goal G\n## setup\n## checks\n".write(
      toFile: home + "/section.ash", atomically: false, encoding: .utf8)
    let seed = try Binary.run(["--no-rc", "--db", ":memory:", "-c", "learn start \(home)/seed.ash"])
    #expect(seed.status == 1)
    #expect(
      seed.stderr
        == "-c:1:13: error: \(home)/seed.ash: unknown seed '009' (the seeds are 000/001, 002, 003, 004, archsh)\n"
    )
    let section = try Binary.run(
      ["--no-rc", "--db", ":memory:", "-c", "learn start \(home)/section.ash"])
    #expect(
      section.stderr
        == "-c:1:13: error: \(home)/section.ash:5:4: unknown section 'checks' (the sections are '## setup', '## check', '## solution', '## wrong', '## cheat', '## never')\n"
    )
    let name = try Binary.run([
      "--no-rc", "--db", ":memory:", "-c", "learn start ds-row-add-new-sectio",
    ])
    #expect(
      name.stderr
        == "-c:1:13: error: no exercise named 'ds-row-add-new-sectio' (did you mean 'ds-row-add-new-section'? 'learn list' shows them all)\n"
    )
  }

  @Test(
    "at the prompt: the goal, a wrong try, hints one at a time, the goal met, the workspace untouched, and the progress kept for the next run"
  )
  func atThePrompt() throws {
    let home = try Binary.makeTemporaryDirectory()
    var environment = Binary.environment(home: home)
    environment["TERM"] = "xterm"
    let database = home + "/ws.sqlite"
    // The learner's own workspace holds a data source that the exercise must not touch.
    let seeded = try Binary.run([
      "--no-rc", "--db", database, "-c", "ds new mine; ds row add mine 0 0 keep",
    ])
    #expect(seeded.status == 0)
    let terminal = try PseudoTerminal(
      [Binary.path, "--no-rc", "--db", database], environment: environment)
    var mark = try terminal.waitFor("archsh> ")
    terminal.type("learn start event-discover-back-to-root\r")
    mark = try terminal.waitFor(
      "goal: The Discover tab shows MediaItem(7), pushed over MediaItem(2).", after: mark)
    try terminal.waitFor("archsh> ", after: mark)
    // The exercise runs in its own workspace: the learner's data source is not there.
    terminal.type("ds list\r")
    mark = try terminal.waitFor("(no rows)", after: mark)
    // A wrong try: the goal is not met, and nothing says it is.
    terminal.type("event send tabbar tabSelected discover\r")
    mark = try terminal.waitFor("archsh> ", after: mark)
    terminal.type("learn hint\r")
    mark = try terminal.waitFor("hint 1 of 3: 'event list discover'", after: mark)
    terminal.type("learn hint\r")
    mark = try terminal.waitFor("hint 2 of 3: Tapping the Discover tab again", after: mark)
    terminal.type("event send discover headerTapped\r")
    mark = try terminal.waitFor("✓ goal met: The Discover tab shows MediaItem(7)", after: mark)
    mark = try terminal.waitFor("why: In UIKit", after: mark)
    terminal.type("learn stop\r")
    mark = try terminal.waitFor(
      "left 'event-discover-back-to-root' (met); commands run in your workspace again", after: mark)
    terminal.type("ds list\r")
    mark = try terminal.waitFor("mine", after: mark)
    try terminal.waitFor("archsh> ", after: mark)
    try terminal.press("\u{04}")
    #expect(try terminal.waitForExit() == 0)
    // The wrong try, and the learn commands, said nothing of the goal.
    #expect(terminal.transcript.components(separatedBy: "goal met").count == 2)

    // The next run lists it as met, with the lines and hints it took.
    let listed = try Binary.run(["--no-rc", "--db", database, "--json", "-c", "learn list"])
    let rows = try #require(
      try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
    let row = try #require(rows.first { $0["name"] as? String == "event-discover-back-to-root" })
    #expect(row["met"] as? Bool == true)
    #expect(row["tries"] as? Int == 3)
    #expect(row["hints"] as? Int == 2)
    #expect(rows.filter { $0["met"] as? Bool == true }.count == 1)
    // The learner's data source is still there, unchanged.
    let mine = try Binary.run(["--no-rc", "--db", database, "-c", "ds model mine 0 0"])
    #expect(mine.stdout.contains("keep"))
  }

  @Test("learn solution waits for a few tries or every hint, unless --now; learn next and reset")
  func solutionNextReset() throws {
    let script = """
      learn start event-discover-back-to-root
      learn solution
      expect fails "try 3 more lines first"
      learn solution --now
      expect contains "event send discover headerTapped"
      event send discover headerTapped
      learn goal
      expect contains "met on line 1 of this attempt; 0 of 3 hints shown"
      learn reset
      learn goal
      expect contains "not met yet, after 0 lines of this attempt"
      learn next
      expect contains "exercise 'app-expired-session'"
      learn stop
      learn goal
      expect fails "no exercise is running"
      """
    let home = try Binary.makeTemporaryDirectory()
    try script.write(toFile: home + "/t.ash", atomically: false, encoding: .utf8)
    let run = try Binary.run(["--no-rc", "--db", ":memory:", "-f", home + "/t.ash"])
    #expect(run.status == 0, "\(run.stderr)")
  }

  @Test(
    "a rule checks the way to the goal: the known shortcuts break it, the attempt stops counting until learn reset, and learn goal counts this attempt's lines up to the goal"
  )
  func rules() throws {
    let store = try Binary.run([
      "--no-rc", "--db", ":memory:", "-c", "learn start store-keep-cover-through-trim", "-c",
      "store limits thumbs --bytes 1MB", "-c", "store persist thumbs page3 page-three", "-c",
      "learn goal", "-c", "learn reset", "-c", "store retrieve thumbs cover", "-c",
      "store persist thumbs page3 page-three", "-c", "learn goal",
    ])
    #expect(store.status == 0, "\(store.stderr)")
    let broken = try #require(store.stdout.range(of: "learn reset' starts it again)\n"))
    #expect(
      store.stdout.contains(
        "✗ 'store limits' is not allowed in this exercise: this attempt no longer counts for the goal ('learn reset' starts it again)\n"
      ), "\(store.stdout)")
    let reset = try #require(store.stdout.range(of: "not met yet, after 2 lines of this attempt"))
    // The shortcut met the check, but not the goal: nothing was said to be met before the reset.
    #expect(!store.stdout[..<reset.lowerBound].contains("✓ goal met"))
    #expect(broken.lowerBound < reset.lowerBound)
    #expect(
      store.stdout.contains(
        "this attempt broke the rule: 'store limits' is not allowed in this exercise ('learn reset' starts again)"
      ))
    #expect(store.stdout[reset.upperBound...].contains("✓ goal met"))
    #expect(store.stdout.contains("met on line 2 of this attempt"), "\(store.stdout)")

    // Presenter events only: resetting and starting the app again is not one.
    let events = try Binary.run([
      "--no-rc", "--db", ":memory:", "-c", "learn start event-discover-back-to-root", "-c",
      "app reset", "-c", "app start --session s3cr3t", "-c", "coord tree",
    ])
    #expect(events.status == 0, "\(events.stderr)")
    #expect(
      events.stdout.contains(
        "✗ only 'event send', 'screen select' may change the state in this exercise, and 'app reset' is not one"
      ), "\(events.stdout)")
    #expect(events.stdout.contains("DiscoverFlowCoordinator [discover]  Discover  ← visible"))
    #expect(!events.stdout.contains("✓ goal met"))
  }
}
