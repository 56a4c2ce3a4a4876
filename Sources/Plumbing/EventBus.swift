import Foundation
import Synchronization

/// What an event bus carries: a payload that names its kind, one bit of a 32-bit word.
public protocol EventPayload: Sendable {
  /// The sets of kinds readers subscribe to.
  associatedtype Kinds: OptionSet, Sendable where Kinds.RawValue == UInt32
  /// This payload's kind: one bit.
  var kind: Kinds { get }
}

/// One event on a bus: what happened, when, and during which command.
public struct BusEvent<Payload: EventPayload>: Sendable {
  /// Its place on the bus, from 1; readers resume after a sequence number.
  public var sequence: UInt64
  /// The command that was running (its number in the session), or 0 outside any command.
  public var command: Int
  /// Monotonic nanoseconds when it was published.
  public var time: UInt64
  /// What happened.
  public var payload: Payload

  /// Creates an event.
  public init(sequence: UInt64, command: Int, time: UInt64, payload: Payload) {
    self.sequence = sequence
    self.command = command
    self.time = time
    self.payload = payload
  }

  /// The kind of its payload.
  public var kind: Payload.Kinds { payload.kind }
}

/// A reader of a bus.
public protocol BusSubscriber<Payload>: AnyObject, Sendable {
  /// What the bus carries.
  associatedtype Payload: EventPayload
  /// Receives an event, on the thread that published it; it must not block, and must not
  /// publish.
  func receive(_ event: BusEvent<Payload>)
}

/// A publish-subscribe bus, read in one order by every reader.
///
/// Publishing checks one atomic word first: with no reader of that kind the event is never even
/// made, so a bus nobody reads costs a load and a branch per event.
public final class EventBus<Payload: EventPayload>: Sendable {
  /// The readers and the counters, changed together.
  private struct State {
    var subscribers: [(kinds: Payload.Kinds, subscriber: any BusSubscriber<Payload>)] = []
    var sequence: UInt64 = 0
    var numbers: UInt64 = 0

    /// The kinds anyone reads, as one word.
    ///
    /// A loop, not `reduce`: this code is generic over the payload, and the unspecialised `reduce`
    /// had the runtime look up its element type by scanning every conformance record at start-up.
    var interest: UInt32 {
      var word: UInt32 = 0
      for index in subscribers.indices { word |= subscribers[index].kinds.rawValue }
      return word
    }
  }

  @usableFromInline let interest = Atomic<UInt32>(0)
  private let state = Mutex(State())
  private let currentCommand = Atomic<Int>(0)
  private let clock: @Sendable () -> UInt64

  /// Creates a bus; `clock` returns monotonic nanoseconds.
  public init(clock: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
    self.clock = clock
  }

  /// Whether anyone reads events of `kinds`.
  @inlinable
  public func wants(_ kinds: Payload.Kinds) -> Bool {
    interest.load(ordering: .relaxed) & kinds.rawValue != 0
  }

  /// Publishes the payload `make` builds, if anyone reads its kind; `make` is not called
  /// otherwise.
  @inlinable
  public func publish(_ kind: Payload.Kinds, _ make: () -> Payload) {
    guard wants(kind) else { return }
    deliver(kind, make())
  }

  /// Adds a reader of `kinds`; adding one already there changes its kinds.
  public func subscribe(_ subscriber: any BusSubscriber<Payload>, to kinds: Payload.Kinds) {
    state.withLock { state in
      state.subscribers.removeAll { $0.subscriber === subscriber }
      state.subscribers.append((kinds, subscriber))
      interest.store(state.interest, ordering: .relaxed)
    }
  }

  /// Removes a reader.
  public func unsubscribe(_ subscriber: any BusSubscriber<Payload>) {
    state.withLock { state in
      state.subscribers.removeAll { $0.subscriber === subscriber }
      interest.store(state.interest, ordering: .relaxed)
    }
  }

  /// Whether `subscriber` reads the bus now.
  public func isSubscribed(_ subscriber: any BusSubscriber<Payload>) -> Bool {
    state.withLock { $0.subscribers.contains { $0.subscriber === subscriber } }
  }

  /// The number of the command running now, which every event carries.
  public var command: Int {
    get { currentCommand.load(ordering: .relaxed) }
    set { currentCommand.store(newValue, ordering: .relaxed) }
  }

  /// A new number, from 1, for events that come in pairs and share one (a request sent and
  /// answered).
  public func nextNumber() -> UInt64 {
    state.withLock { state in
      state.numbers += 1
      return state.numbers
    }
  }

  /// The sequence number of the last event published.
  public var lastSequence: UInt64 { state.withLock { $0.sequence } }

  /// Readers get events in sequence order: delivery happens under the lock, so a reader must
  /// not publish.
  @usableFromInline
  func deliver(_ kind: Payload.Kinds, _ payload: Payload) {
    let command = command
    state.withLock { state in
      state.sequence += 1
      // The time is read under the lock too, so that times rise with sequence numbers.
      let event = BusEvent(
        sequence: state.sequence, command: command, time: clock(), payload: payload)
      for entry in state.subscribers where entry.kinds.rawValue & kind.rawValue != 0 {
        entry.subscriber.receive(event)
      }
    }
  }
}
