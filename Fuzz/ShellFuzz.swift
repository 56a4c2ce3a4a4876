// A libFuzzer target over the lexer, the dispatcher and the completer. Built by Fuzz/run.sh with
// `swiftc -sanitize=fuzzer,address`; not part of the package build.
import Commands
import Domain

private final class NullSink: OutputSink {
  func standardOutput(_ text: String) {}
  func standardError(_ text: String) {}
}

/// Runs one input: its lines as a script (keep-going, so every line is reached), then completion
/// of every prefix of the first line.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count)
  let text = String(decoding: bytes, as: UTF8.self)
  let session = Session()
  var settings = InterpreterSettings()
  settings.keepGoing = true
  let interpreter = Interpreter(session: session, sink: NullSink(), settings: settings)
  var source = ScriptLineSource(contents: Array(bytes))
  _ = interpreter.run(&source, name: "fuzz.ash", interactive: false)
  _ = try? Lexer.lex(text)
  _ = Lexer.needsContinuation(text)
  let completer = Completer(session: session)
  let firstLine = text.prefix { $0 != "\n" }
  _ = completer.complete(String(firstLine))
  return 0
}
