// A libFuzzer target over the lexer, the dispatcher and the completer. Built by Fuzz/run.sh with
// `swift build --sanitize=fuzzer` (the target exists only when ARCHSH_FUZZ=1): SwiftPM then
// compiles it as a library and libFuzzer's own main calls LLVMFuzzerTestOneInput.
import Commands

private final class NullSink: OutputSink {
  func standardOutput(_ text: String) {}
  func standardError(_ text: String) {}
}

/// Runs one input: its lines as a script (keep-going, so every line is reached), then completion
/// of its first line.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
  guard let start else { return 0 }
  let bytes = UnsafeBufferPointer(start: start, count: count)
  let text = String(decoding: bytes, as: UTF8.self)
  let session = Session()
  var settings = InterpreterSettings()
  settings.keepGoing = true
  let interpreter = Interpreter(session: session, sink: NullSink(), settings: settings)
  var source = ScriptLineSource(contents: Array(bytes))
  _ = interpreter.run(&source, name: "fuzz.ash", interactive: false)
  _ = try? Lexer.lex(text)
  _ = Lexer.needsContinuation(text)
  _ = Completer(session: session).complete(String(text.prefix { $0 != "\n" }))
  return 0
}
