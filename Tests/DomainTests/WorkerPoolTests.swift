import Foundation
import Plumbing
import Synchronization
import Testing

@Suite("WorkerPool")
struct WorkerPoolTests {
  @Test("work beyond the limit waits its turn: never more than the limit at once, all done")
  func bounded() {
    let pool = WorkerPool(limit: 4)
    let running = Mutex((now: 0, most: 0, done: 0))
    let finished = DispatchSemaphore(value: 0)
    // Each job holds its thread until a later one is released: blocking work, as a request's.
    let gate = DispatchSemaphore(value: 0)
    for _ in 0..<40 {
      pool.run {
        running.withLock {
          $0.now += 1
          $0.most = max($0.most, $0.now)
        }
        gate.wait()
        running.withLock {
          $0.now -= 1
          $0.done += 1
        }
        finished.signal()
      }
    }
    for _ in 0..<40 { gate.signal() }
    for _ in 0..<40 { finished.wait() }
    let counts = running.withLock { $0 }
    #expect(counts.done == 40)
    #expect(counts.most <= 4)
    #expect(pool.threads == 4)
  }
}
