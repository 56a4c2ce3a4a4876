import Foundation
import Plumbing
import Testing

@testable import Domain

@Suite("reading members and sorting them")
struct JSONMemberTests {
  @Test("a member is found by name, the last of a repeated name; members sort at every depth")
  func membersAndSorting() throws {
    let value = try StrictJSON.parse(
      #"{"b":1.50,"a":[{"z":null,"y":true}],"b":2,"c":{"e":"x","d":0}}"#)
    #expect(value["b"] == .number("2"))
    #expect(value["missing"] == nil)
    #expect(JSONValue.array([])["a"] == nil)
    #expect(
      JSONSerializer().string(value.sortingMembers())
        == #"{"a":[{"y":true,"z":null}],"b":1.50,"b":2,"c":{"d":0,"e":"x"}}"#)
  }
}
