import Domain
import Foundation
import Plumbing
import Testing

@testable import Commands

/// How JSON bodies are shown.
@Suite("JSONRenderer")
struct JSONRendererTests {
  /// Bodies a server may send, compact or not.
  static let bodies = [
    #"{"code":"OK","data":{"type":"echo","headers":{"authorization":"Bearer …8eff"},"parts":[]}}"#,
    #"{"a":1,"b":-2,"c":true,"d":false,"e":null,"f":[],"g":{},"h":"ünïcödé 😀"}"#,
    #"[1,2,3,"x",[{"y":[]}]]"#, #""plain""#, "42", "-7", "123456789012345678",
    #"{"a": 1}"#, "{\n\"a\":1}", #"{"a":1.5}"#, #"{"a":1.0}"#, #"{"a":1e3}"#, #"{"a":-0}"#,
    #"{"a":"x\"y"}"#, #"{"a":"\u00e9"}"#, #"{"a":"\/"}"#, "1234567890123456789",
    #"{"a":"tab\there"}"#, #"{"a":"del\#u{7F} c1\#u{85}"}"#, #"["a" , "b"]"#,
  ]

  @Test("a body in written form is the text writing its value gives; the others are written")
  func writtenForm() throws {
    var asWritten: [String] = []
    for body in Self.bodies {
      let data = Data(body.utf8)
      let value = JSONRenderer.value(fromJSON: try StrictJSON.parse(data))
      var written = ""
      JSONRenderer.write(value, into: &written)
      if JSONRenderer.isWrittenForm(data) {
        asWritten.append(body)
        #expect(written == body, "\(body) is said to be in written form, but writes as \(written)")
      }
    }
    // Whitespace, escapes, fractions, exponents, -0 and integers past 18 digits are written anew.
    #expect(asWritten == Array(Self.bodies[0..<7]) + [Self.bodies[18]])
  }
}
