import BoardServer
import Foundation
import NIOCore
import Synchronization
import Testing

@testable import Plumbing

@Suite("The board's history")
struct BoardHubTests {
  /// Everything the stream has for a page that connects now.
  static func first(_ hub: BoardHub, after id: UInt64?) async -> String {
    let stream = hub.connect(lastEventID: id)
    for await buffer in stream { return String(buffer: buffer) }
    return ""
  }

  @Test("a page gets a snapshot with the newest picture of each kind, then the history in order")
  func snapshot() async {
    let hub = BoardHub(capacity: 3)
    hub.append(key: "factories") { #"{"seq":\#($0),"p":"old"}"# }
    hub.append(key: "factories") { #"{"seq":\#($0),"p":"new"}"# }
    for _ in 0..<3 { hub.append { #"{"seq":\#($0)}"# } }
    let text = await Self.first(hub, after: nil)
    #expect(text.hasPrefix("id: 5\nevent: snapshot\ndata: {\"gap\":true,\"events\":["))
    // The kept picture comes first, though it left the bounded history.
    #expect(text.contains(#"[{"seq":2,"p":"new"},{"seq":3},{"seq":4},{"seq":5}]"#))
    #expect(!text.contains("old"))
  }

  @Test("a reconnect gets exactly what came after Last-Event-ID, or a snapshot when that is gone")
  func resume() async {
    let hub = BoardHub(capacity: 4)
    for _ in 0..<6 { hub.append { #"{"seq":\#($0)}"# } }
    let resumed = await Self.first(hub, after: 4)
    #expect(
      resumed
        == "id: 5\nevent: arch\ndata: {\"seq\":5}\n\nid: 6\nevent: arch\ndata: {\"seq\":6}\n\n")
    let tooOld = await Self.first(hub, after: 1)
    #expect(tooOld.contains("event: snapshot") && tooOld.contains(#""gap":true"#))
  }

  @Test("history is bounded in bytes as well as in messages")
  func bounded() {
    let hub = BoardHub(capacity: 1_000, byteCapacity: 10_000)
    let big = String(repeating: "x", count: 3_000)
    for _ in 0..<10 { hub.append { #"{"seq":\#($0),"svg":"\#(big)"}"# } }
    #expect(hub.held.bytes <= 10_000)
    #expect(hub.held.messages == 3)
  }

  @Test("a page that connects after more history than one page may fall behind gets all of it")
  func largeSnapshot() async {
    let hub = BoardHub()
    let big = String(repeating: "x", count: 100_000)
    // 6 MB held: more than the 4 MiB a page may fall behind by, less than what the hub keeps.
    for _ in 0..<60 { hub.append { #"{"seq":\#($0),"svg":"\#(big)"}"# } }
    let text = await Self.first(hub, after: nil)
    #expect(text.hasPrefix("id: 60\nevent: snapshot\n"))
    #expect(text.utf8.count > 6_000_000)
  }

  @Test("a page that never reads is dropped with an event once 4 MiB behind, and stops holding it")
  func slowPage() async {
    let hub = BoardHub()
    let stream = hub.connect(lastEventID: nil)
    #expect(hub.clientCount == 1)
    let big = String(repeating: "y", count: 100_000)
    for _ in 0..<50 { hub.append { #"{"seq":\#($0),"svg":"\#(big)"}"# } }
    #expect(hub.clientCount == 0)
    var frames: [String] = []
    for await buffer in stream { frames.append(String(buffer: buffer)) }
    // What it had not taken is gone: its snapshot, then why it was dropped.
    #expect(frames.last?.hasPrefix("event: dropped\n") == true, "\(frames.map { $0.prefix(40) })")
    #expect(frames.joined().utf8.count < 100_000)
  }

  @Test("pages that leave while events arrive never stop the thread that appends them")
  func leaveWhileAppending() {
    let hub = BoardHub(capacity: 100)
    let stop = Mutex(false)
    let appended = DispatchSemaphore(value: 0)
    let left = DispatchSemaphore(value: 0)
    // One thread appends as a session does, each event taking a while to make, as the board's
    // pictures do; another connects pages and cancels them, as a closed browser tab does, each
    // while the page waits for frames. A cancellation runs the page's handler on the cancelling
    // thread, while the appending one may be about to wake that page.
    Thread.detachNewThread {
      while !stop.withLock({ $0 }) {
        hub.append { seq in
          usleep(100)
          return #"{"seq":\#(seq)}"#
        }
      }
      appended.signal()
    }
    Thread.detachNewThread {
      for _ in 0..<300 {
        let ended = DispatchSemaphore(value: 0)
        // On the threads the server runs a page's stream on, as `BoardServer` does.
        let page = Task(executorPreference: ServerThreads.shared) {
          for await _ in hub.connect(lastEventID: nil) {}
          ended.signal()
        }
        usleep(UInt32.random(in: 50...400))
        page.cancel()
        ended.wait()
      }
      left.signal()
    }
    let pagesLeft = left.wait(timeout: .now() + 60)
    stop.withLock { $0 = true }
    #expect(pagesLeft == .success, "a page's cancellation never returned")
    let appending = appended.wait(timeout: .now() + 10)
    #expect(appending == .success, "the appending thread is stuck")
    // A stuck thread holds the hub's lock: asked then, the count would never come.
    if pagesLeft == .success, appending == .success { #expect(hub.clientCount == 0) }
  }

  @Test("pages past the cap are told why, and not counted")
  func tooManyPages() async {
    let hub = BoardHub()
    let open = (0..<BoardHub.pageLimit).map { _ in hub.connect(lastEventID: nil) }
    #expect(hub.clientCount == BoardHub.pageLimit)
    let refused = await Self.first(hub, after: nil)
    #expect(refused.hasPrefix("event: closed\ndata: {\"reason\":\"16 pages are open"), "\(refused)")
    #expect(hub.clientCount == BoardHub.pageLimit)
    _ = open
  }
}
