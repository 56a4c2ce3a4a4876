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

  @Test("store drop removes a created store with its entries; the seed's stores are refused")
  func storeDrop() throws {
    let db = try Binary.makeTemporaryDirectory() + "/workspace.sqlite"
    let made = try Binary.run([
      "--no-rc", "--db", db, "-c",
      "store create scratch; store persist scratch a 1234; store persist scratch b 56",
    ])
    #expect(made.status == 0, "\(made.stderr)")
    let dropped = try Binary.run(["--no-rc", "--db", db, "-c", "store drop scratch"])
    #expect(dropped.status == 0, "\(dropped.stderr)")
    #expect(dropped.stdout == "dropped store 'scratch' with 2 entries, 6 bytes\n")
    // Gone in the next process, with its entries: a store of that name starts empty.
    let after = try Binary.run([
      "--no-rc", "--db", db, "-c", "store stores; store create scratch; store keys scratch",
    ])
    #expect(after.status == 0, "\(after.stderr)")
    #expect(!after.stdout.contains("scratch  "))
    #expect(after.stdout.contains("key\n---\n"))
    #expect(!after.stdout.contains("\na\n"))

    let seed = try Binary.run(["--no-rc", "--db", db, "-c", "store drop bookmarks"])
    #expect(seed.status == 1)
    #expect(
      seed.stderr
        == "-c:1:12: error: 'bookmarks' is one of the seed's stores, which cannot be dropped ('store trim bookmarks --to-bytes 0' removes its entries)\n"
    )
    let unknown = try Binary.run(["--no-rc", "--db", db, "-c", "store drop scratc"])
    #expect(unknown.stderr.contains("unknown store 'scratc' (did you mean 'scratch'?)"))
    #expect(
      try Binary.run(["--no-rc", "--db", db, "help", "store", "drop"]).stdout.contains(
        "usage: store drop NAME"))
  }

  @Test("net fault clear PATH removes that path's faults, --method only one of them")
  func clearOneFault() throws {
    let result = try run(
      """
      net fault GET /products/1 --status 503 --times always
      net fault POST /products/1 --status 500
      net fault GET /products/2 --drop
      net fault clear /products/1 --method get
      net faults
      net fault clear /products/1
      net faults
      net get /products/1
      """)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.contains("removed 1 fault: GET /products/1"))
    #expect(lines.contains("removed 1 fault: POST /products/1"))
    // After the first clear, the POST and /products/2 remain; after the second, /products/2.
    #expect(lines.filter { $0.hasPrefix("POST    /products/1") }.count == 1)
    #expect(lines.filter { $0.hasPrefix("GET     /products/2") }.count == 2)
    #expect(lines.contains("status:       200"), "\(result.stdout)")

    let missing = try run("net fault GET /products/1 --drop; net fault clear /products/9")
    #expect(missing.status == 1)
    #expect(
      missing.stderr
        == "-c:1:51: error: no fault for '/products/9' (did you mean '/products/1'?)\n")
    let misplaced = try run("net fault GET /products/1 --drop --method GET")
    #expect(misplaced.stderr.contains("--method goes with 'net fault clear PATH'"))
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
