import Foundation
import GRDB
import TestSupport
import Testing

@testable import Domain
@testable import Runtime

@Suite("values kept by store, the last store held apart")
struct ByStoreTests {
  @Test("values survive switching stores, nil removes one, and removeAll forgets them all")
  func switching() {
    var kept = ByStore<Int>()
    #expect(kept["a"] == nil)
    kept["a"] = 1
    kept["b"] = 2
    #expect(kept["a"] == 1)
    kept["a"] = 3
    #expect(kept["b"] == 2)
    #expect(kept["a"] == 3)
    kept["b"] = nil
    #expect(kept["c"] == nil)
    #expect(kept["b"] == nil)
    #expect(kept["a"] == 3)
    kept.removeAll()
    #expect(kept["a"] == nil)
    kept["b"] = 4
    #expect(kept["a"] == nil)
    #expect(kept["b"] == 4)
    // Two spellings of one name are two stores, as they are two rows for SQLite.
    let precomposed = "caf\u{E9}"
    let combining = "cafe\u{301}"
    #expect(precomposed == combining)
    kept[precomposed] = 5
    #expect(kept[combining] == nil)
    kept[combining] = 6
    #expect(kept[precomposed] == 5)
    #expect(kept[combining] == 6)
  }
}
