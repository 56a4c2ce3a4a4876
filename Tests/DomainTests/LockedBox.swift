import Synchronization

/// A value the tests' closures share across threads: a `Mutex` in a class, since a closure that
/// escapes cannot capture a `Mutex` itself.
final class LockedBox<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>

  init(_ value: Value) { mutex = Mutex(value) }

  var value: Value {
    get { mutex.withLock { $0 } }
    set { mutex.withLock { $0 = newValue } }
  }
}
