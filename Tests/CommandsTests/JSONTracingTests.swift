import Foundation
import TestSupport
import Testing

@testable import Commands

@Suite("JSON and tracing")
struct JSONTracingTests {
  @Test("in JSON mode a traced command is still one document: its output and its trace")
  func tracedJSON() {
    let harness = Harness()
    harness.script(["output json", "trace on", "factory get tracer"])
    let lines = harness.sink.stdout.replacingOccurrences(
      of: #""milliseconds":[0-9.e+-]+"#, with: #""milliseconds":#"#, options: .regularExpression
    ).split(separator: "\n")
    #expect(lines.count == 3)
    #expect(lines[0] == "{}")
    #expect(lines[1] == #"{"tracing":true}"#)
    // Each span is its fields: the component, the operation, the attributes, the duration.
    #expect(
      lines[2]
        == ##"{"output":{"name":"tracer","factory":"ApplicationFactory","type":"Tracer","scope":"singleton","instance":"the shared instance","id":"#1","summary":"records the spans that controllers report"},"trace":[{"component":"archsh","operation":"factory get tracer","attributes":{},"failure":null,"milliseconds":#,"children":[{"component":"ApplicationFactory","operation":"make tracer","attributes":{"lifetime":"singleton","instance":"shared"},"failure":null,"milliseconds":#,"children":[]}]}]}"##
    )
  }
}
