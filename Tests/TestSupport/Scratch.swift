import Foundation

/// Where the tests write their files: one directory for the whole test process, removed when the
/// process exits, so that `make test` leaves nothing behind in the system's temporary directory.
public enum Scratch {
  /// The process's directory, made on first use.
  public static let root: String = {
    let path = NSTemporaryDirectory() + "archsh-tests-\(getpid())-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: Scratch.root) }
    return path
  }()

  /// A new empty directory under the root, its name starting with `prefix`.
  public static func directory(_ prefix: String = "dir") throws -> String {
    let path = root + "/" + prefix + "-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// A path under the root for a new file, its name starting with `prefix` and ending in
  /// `suffix`.
  public static func file(_ prefix: String, suffix: String = "") -> String {
    root + "/" + prefix + "-" + UUID().uuidString + suffix
  }
}
