import Foundation

/// The threads a loopback server's streamed answers run on, apart from Swift's cooperative pool.
///
/// A caller that waits for an answer synchronously, as the shell's commands and many tests do,
/// may hold a cooperative thread while it waits. On a machine with two cores the pool has two
/// threads, so two such callers would leave a stream (the board's events) no thread to run on.
/// A stream's task prefers this executor, so the servers always have threads of their own,
/// whatever the rest of the process is waiting for.
final class ServerThreads: TaskExecutor, @unchecked Sendable {
  // @unchecked: `waiting` and `next` are only touched while `condition` is locked.
  /// The threads every loopback server in the process shares.
  static let shared = ServerThreads(count: 2)

  private let condition = NSCondition()
  private var waiting: [UnownedJob] = []
  private var next = 0

  private init(count: Int) {
    for index in 0..<count {
      let thread = Thread { [unowned self] in self.work() }
      thread.name = "archsh-server-\(index)"
      thread.start()
    }
  }

  /// Queues a job for the next free thread.
  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    waiting.append(job)
    condition.signal()
    condition.unlock()
  }

  private func work() {
    while true {
      condition.lock()
      while next == waiting.count { condition.wait() }
      let job = waiting[next]
      next += 1
      // Keeps the queue from growing: drained, its storage is reused; under a steady load that
      // never drains it, the jobs already taken are dropped once they are half of it.
      if next == waiting.count {
        waiting.removeAll(keepingCapacity: true)
        next = 0
      } else if next >= 1024, next * 2 >= waiting.count {
        waiting.removeFirst(next)
        next = 0
      }
      condition.unlock()
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}
