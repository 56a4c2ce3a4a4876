import Domain
import Foundation
import TestSupport
import Testing

@testable import Commands

@Suite("help reaches every command")
struct HelpTests {
  @Test("help NAME VERB [SUBVERB] prints the usage of every command, two-word verbs included")
  func everyCommand() {
    // Given every command of every group
    for group in AllGroups.groups {
      for command in group.commands {
        // When its help is asked for by its full name
        let harness = Harness()
        let name = group.isBuiltins ? command.name : "\(group.name) \(command.name)"
        harness.script(["help \(name)"])
        // Then it prints that command's usage, and nothing goes wrong
        #expect(harness.sink.stderr == "", "help \(name)")
        #expect(harness.sink.stdout.hasPrefix("usage: \(name)"), "help \(name)")
      }
    }
  }

  @Test("a misspelt second word gets a did-you-mean at its column")
  func misspelt() {
    let harness = Harness()
    harness.prompt(["help ds section sett", "help ds render table", "help echo x"])
    #expect(
      harness.sink.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") } == [
        "error: unknown verb 'sett' for 'ds section' (did you mean 'set'?)",
        "error: 'ds render' has no second word (try 'help ds render')",
        "error: 'echo' is a builtin and has no verbs (try 'help echo')",
      ])
  }
}
