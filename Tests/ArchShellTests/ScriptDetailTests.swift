import Foundation
import Testing

@Suite("script details through the binary", .serialized)
struct ScriptDetailTests {
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
}
