/// Values kept by store name, the store used last held apart: a script names the same store on
/// every line, and comparing its name is cheaper than hashing it, about 400 instructions a
/// lookup (callgrind).
///
/// The last store's value is written to the dictionary when another store is used.
struct ByStore<Value> {
  private var values: [String: Value] = [:]
  /// The store used last and its value, nil when it has none; newer than `values`.
  private var last: (store: String, value: Value?)?

  /// The value for `store`, or nil.
  subscript(store: String) -> Value? {
    mutating get {
      if let last, last.store == store { return last.value }
      use(store)
      return last?.value
    }
    set {
      if last?.store != store { use(store) }
      last = (store, newValue)
    }
  }

  /// Forgets every value.
  mutating func removeAll() {
    values.removeAll(keepingCapacity: true)
    last = nil
  }

  /// Writes the last store's value back and makes `store` the last one.
  private mutating func use(_ store: String) {
    if let last {
      if let value = last.value {
        values[last.store] = value
      } else {
        values.removeValue(forKey: last.store)
      }
    }
    last = (store, values[store])
  }
}
