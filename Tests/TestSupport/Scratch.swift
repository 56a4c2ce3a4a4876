import Foundation

/// Where the tests write their files: one directory for the whole test process, removed when the
/// process exits, so that `make test` leaves nothing behind in the system's temporary directory.
///
/// Names are short (`/tmp/archsh-tests-PID/e2e-12`): tests type some of them at a terminal 80
/// columns wide, where a longer line would wrap.
public enum Scratch {
  /// The process's directory, made on first use.
  public static let root: String = {
    let path = NSTemporaryDirectory() + "archsh-tests-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: Scratch.root) }
    return path
  }()

  /// A new empty directory under the root, its name starting with `prefix`.
  public static func directory(_ prefix: String = "dir") throws -> String {
    let path = file(prefix)
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// A path under the root for a new file, its name starting with `prefix` and ending in
  /// `suffix`.
  public static func file(_ prefix: String, suffix: String = "") -> String {
    root + "/" + prefix + "-" + String(names.next()) + suffix
  }

  private static let names = Counter()

  /// Numbers each name once, whichever thread asks.
  private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var last = 0

    func next() -> Int {
      lock.withLock {
        last += 1
        return last
      }
    }
  }
}
