// A libFuzzer target over the whole command language: the lexer, the interpreter, the registry and
// the signatures, every command group, the Domain code they reach, and the completer. Built by
// Fuzz/run.sh with `swift build --sanitize=fuzzer` (the target exists only when ARCHSH_FUZZ=1),
// which instruments every module for coverage; libFuzzer's own main calls LLVMFuzzerTestOneInput.
import Commands

private final class NullSink: OutputSink {
  func standardOutput(_ text: String) {}
  func standardError(_ text: String) {}
}

/// The commands the fuzz target replaces by ones that fail at once.
///
/// The replacements keep the signature, so that their arguments are still parsed and checked.
/// These would wait, or reach outside the scratch directory:
/// - `sleep` waits for as long as it is told;
/// - `serve` runs a server until Ctrl-C, which never comes;
/// - `source` runs any file as a script, a device or a pipe that never ends included;
/// - `trace export` writes a file at any path the fuzzer invents.
///
/// And some are bounded:
/// - `ds new --generate N` is limited to 1,000 rows: a ten-million-row data source takes seconds
///   and gigabytes, and finds nothing a thousand rows would not.
///
/// Networking is out of play: the session's API address is not an http URL, so every command that
/// needs the network fails at once with that error, instead of starting the demo API for each
/// input (the server's threads, and `net fault --delay`, would wait) or trying a connection on
/// the event loop's threads, which made runs nondeterministic and cost a millisecond each.
/// NetworkController and the demo API are covered by their own tests over real HTTP.
private let skipped: Set<String> = ["sleep", "serve", "source", "trace export"]

private func bounded(_ command: Command, group: CommandGroup) -> Command {
  let name = group.isBuiltins ? command.name : "\(group.name) \(command.name)"
  func replacement(_ run: @escaping @Sendable (Invocation) throws -> Output) -> Command {
    Command(
      command.name, aliases: command.aliases, summary: command.summary,
      discussion: command.discussion, signature: command.signature, examples: command.examples,
      isTransparent: command.isTransparent, isExpectation: command.isExpectation, run: run)
  }
  if skipped.contains(name) {
    return replacement { _ in throw ShellError("'\(name)' is skipped in the fuzz target") }
  }
  if name == "ds new" {
    return replacement { invocation in
      if let rows = generatedRows(invocation.parsed.words), rows > 1000 {
        throw ShellError("--generate is limited to 1,000 rows in the fuzz target")
      }
      return try command.run(invocation)
    }
  }
  return command
}

/// The row count `ds new` was given with `--generate N` or `--generate=N`; the handle is the
/// group's own, so the fuzz target reads the parsed words.
private func generatedRows(_ words: [Word]) -> Int? {
  for (index, word) in words.enumerated() {
    if word.text.hasPrefix("--generate=") { return Int(word.text.dropFirst(11)) }
    if word.text == "--generate", index + 1 < words.count { return Int(words[index + 1].text) }
  }
  return nil
}

private let registry = CommandRegistry(
  groups: AllGroups.groups.map { group in
    CommandGroup(
      group.name, summary: group.summary, from: group.origins, discussion: group.discussion,
      commands: group.commands.map { bounded($0, group: group) })
  })

/// Runs one input: its lines as a script (keep-going, so every line is reached) in a new session,
/// so that inputs do not depend on each other, then completion of its first line.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
  guard let start else { return 0 }
  let bytes = UnsafeBufferPointer(start: start, count: count)
  let text = String(decoding: bytes, as: UTF8.self)
  let session = Session(options: SessionOptions(apiURL: "fuzz:no-network"))
  var settings = InterpreterSettings()
  settings.keepGoing = true
  let interpreter = Interpreter(
    session: session, registry: registry, sink: NullSink(), settings: settings)
  var source = ScriptLineSource(contents: Array(bytes))
  _ = interpreter.run(&source, name: "fuzz.ash", interactive: false)
  _ = try? Lexer.lex(text)
  _ = Lexer.needsContinuation(text)
  _ = Completer(session: session, registry: registry).complete(String(text.prefix { $0 != "\n" }))
  session.factory.shutdown()
  return 0
}
