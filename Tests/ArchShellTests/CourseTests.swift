import Foundation
import TestSupport
import Testing

/// A teacher's course, used as a class would use it: docs/example-course (one walkthrough, one
/// exercise, one command) through --course and ARCHSH_COURSES, with the release binary.
@Suite("courses: what a teacher adds without Swift")
struct CourseTests {
  static let course = Binary.root + "/docs/example-course"

  @Test("the example course's walkthrough, exercise and command work through --course")
  func exampleCourse() throws {
    // Its walkthrough is listed, and checks against its transcript by name.
    let list = try Binary.run(["--course", Self.course, "help", "walkthroughs"])
    #expect(list.status == 0)
    #expect(list.stdout.contains("the course 'example-course' (1 walkthrough):"), "\(list.stdout)")
    #expect(list.stdout.contains("\n  notes "))
    let check = try Binary.run(["--course", Self.course, "--check", "--tour", "notes"])
    #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    #expect(check.stdout.contains("notes.ash: matches"))

    // Its exercise is listed with the course's name, and starts by name.
    let exercises = try Binary.run(
      [
        "--course", Self.course, "--db", ":memory:", "-c", "learn list", "-c",
        "learn start notes-through-the-course-command",
      ])
    #expect(exercises.status == 0, "\(exercises.stderr)")
    #expect(
      exercises.stdout.contains(
        "notes-through-the-course-command         1  A note kept through the course's command  [course example-course]"
      ), "\(exercises.stdout)")
    #expect(exercises.stdout.contains("Keep the note \"call the dentist\" under the key todo"))

    // Its command runs with its words as $1 and $2, and has the help its #: lines give.
    let command = try Binary.run(
      [
        "--course", Self.course, "--db", ":memory:", "-c", "remember k 'two words'", "-c",
        "help remember",
      ])
    #expect(command.status == 0, "\(command.stderr)")
    #expect(command.stdout.hasPrefix("two words\nusage: remember KEY TEXT\n"), "\(command.stdout)")
    // 'help' lists it apart from archsh's own.
    let overview = try Binary.run(["--course", Self.course, "--db", ":memory:", "help"])
    #expect(
      overview.stdout.contains(
        "\n\ncommands of the courses given (--course, ARCHSH_COURSES):\n  remember   keep a note"),
      "\(overview.stdout)")
    // Its usage is checked as a built-in's is.
    let missing = try Binary.run(
      ["--course", Self.course, "--db", ":memory:", "-c", "remember k"])
    #expect(missing.status == 1)
    #expect(
      missing.stderr.contains("missing argument TEXT for 'remember' (usage: remember KEY TEXT)"),
      "\(missing.stderr)")
  }

  @Test("learn verify --course checks exercises with their cheats, walkthroughs and commands")
  func verifyCourse() throws {
    let verified = try Binary.run(
      ["--db", ":memory:", "learn", "verify", "--course", Self.course])
    #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
    let rows = verified.stdout.split(separator: "\n").map {
      $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
    #expect(
      rows.contains("notes-through-the-course-command 000/001 not met met not met not met ok"),
      "\(verified.stdout)")
    #expect(rows.contains("walkthrough notes ok -"))
    #expect(rows.contains("command remember ok -"))

    // A course whose walkthrough no longer matches its transcript fails, with status 1.
    let broken = try Scratch.directory("course")
    try FileManager.default.createDirectory(
      atPath: broken + "/walkthroughs", withIntermediateDirectories: true)
    try "# Broken.\necho now\n".write(
      toFile: broken + "/walkthroughs/b.ash", atomically: true, encoding: .utf8)
    try "# Broken.\narchsh> echo now\nthen\n".write(
      toFile: broken + "/walkthroughs/b.out", atomically: true, encoding: .utf8)
    let failed = try Binary.run(["--db", ":memory:", "learn", "verify", "--course", broken])
    #expect(failed.status == 1)
    #expect(failed.stdout.contains("differs from its transcript"), "\(failed.stdout)")
    #expect(
      failed.stderr.contains(
        "1 part of the course '\((broken as NSString).lastPathComponent)' failed verification"))
  }

  @Test(
    "a course command cannot shadow a built-in, an error inside one names its file's line, and ARCHSH_COURSES adds courses"
  )
  func commandRules() throws {
    let course = try Scratch.directory("cx")
    let commands = course + "/commands"
    try FileManager.default.createDirectory(atPath: commands, withIntermediateDirectories: true)
    try "#: summary my own store\nstore keys generalCache\n".write(
      toFile: commands + "/store.ash", atomically: true, encoding: .utf8)
    try "#: summary count the words\n#: usage count WORD...\necho \"$# words\"\nproduct show 999\n"
      .write(toFile: commands + "/count.ash", atomically: true, encoding: .utf8)

    let run = try Binary.run(
      ["--db", ":memory:", "-c", "count a b c"], environment: ["ARCHSH_COURSES": course])
    #expect(run.status == 1)
    #expect(run.stdout == "3 words\n")
    let name = (course as NSString).lastPathComponent
    #expect(
      run.stderr.contains(
        "archsh: warning: course '\(name)': commands/store.ash is not added: a course command cannot shadow 'store', archsh's own command; rename the file"
      ), "\(run.stderr)")
    #expect(
      run.stderr.contains(
        "\(commands)/count.ash:4:14: error: product 999 is not cached (fetch it with 'product update 999'); in file included from -c:1"
      ), "\(run.stderr)")
    // A usage line is outside text: an option name with an escape byte is refused, and the
    // warning shows the byte escaped, never raw.
    try "#: summary odd\n#: usage odd [--x\u{1B}[31m]\necho odd\n".write(
      toFile: commands + "/odd.ash", atomically: true, encoding: .utf8)
    let odd = try Binary.run(
      ["--db", ":memory:", "-c", "echo ok"], environment: ["ARCHSH_COURSES": course])
    #expect(odd.stdout == "ok\n")
    #expect(
      odd.stderr.contains(
        "commands/odd.ash is not added: in its '#: usage' line, '--x\\e[31m' is not an option name"),
      "\(odd.stderr)")
    #expect(!odd.stderr.contains("\u{1B}"))
    // store is still archsh's.
    let store = try Binary.run(
      ["--db", ":memory:", "-c", "store keys generalCache"], environment: ["ARCHSH_COURSES": course]
    )
    #expect(store.stdout == "key\n---\n(no rows)\n", "\(store.stdout)")

    // A --course that is no course is a usage error.
    let none = try Binary.run(["--course", course + "/nothing", "-c", "echo hi"])
    #expect(none.status == 2)
    #expect(
      none.stderr.contains("archsh: error: --course: the course '\(course)/nothing' does not exist")
    )
  }
}
