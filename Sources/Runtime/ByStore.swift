import Foundation

/// Values kept by store name, the store used last held apart: a script names the same store on
/// every line, and comparing its name is cheaper than hashing it.
///
/// Names are the same when their bytes are, as SQLite compares them. The last store's value is
/// written to the dictionary when another store is used.
package struct ByStore<Value> {
  private var values: [ExactName: Value] = [:]
  /// The store used last and its value, nil when it has none; newer than `values`.
  private var last: (store: String, value: Value?)?

  /// The value for `store`, or nil.
  package subscript(store: String) -> Value? {
    mutating get {
      if let last, last.store.hasSameBytes(as: store) { return last.value }
      use(store)
      return last?.value
    }
    set {
      if last.map({ !$0.store.hasSameBytes(as: store) }) ?? true { use(store) }
      last = (store, newValue)
    }
  }

  /// Forgets every value.
  package mutating func removeAll() {
    values.removeAll(keepingCapacity: true)
    last = nil
  }

  /// Writes the last store's value back and makes `store` the last one.
  private mutating func use(_ store: String) {
    if let last {
      if let value = last.value {
        values[ExactName(last.store)] = value
      } else {
        values.removeValue(forKey: ExactName(last.store))
      }
    }
    last = (store, values[ExactName(store)])
  }
}

/// A name that is equal to another only when their bytes are, as SQLite compares text: Swift's
/// `==` takes a name written with a combining accent for the same name precomposed.
package struct ExactName: Hashable {
  package let text: String

  package init(_ text: String) { self.text = text }

  package static func == (left: ExactName, right: ExactName) -> Bool {
    left.text.hasSameBytes(as: right.text)
  }

  package func hash(into hasher: inout Hasher) { text.hashBytes(into: &hasher) }
}

extension String {
  /// Whether the two hold the same UTF-8 bytes.
  package func hasSameBytes(as other: String) -> Bool {
    let compared = utf8.withContiguousStorageIfAvailable { left in
      other.utf8.withContiguousStorageIfAvailable { right in
        guard left.count == right.count else { return false }
        guard let first = left.baseAddress, let second = right.baseAddress else { return true }
        return memcmp(first, second, left.count) == 0
      }
    }
    // Bridged text that is not stored contiguously is compared a byte at a time.
    return (compared ?? nil) ?? utf8.elementsEqual(other.utf8)
  }

  /// Feeds the UTF-8 bytes, and their count, to `hasher`.
  package func hashBytes(into hasher: inout Hasher) {
    var text = self
    text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    hasher.combine(utf8.count)
  }
}
