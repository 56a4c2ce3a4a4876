import Foundation

/// Writes files that hold user data: created with mode 0600, and kept at 0600 when they exist.
enum PrivateFile {
  /// Refuses to go on when one of `paths` exists and `force` was not given: the one rule of every
  /// command that writes a file the user named (`record start`, `trace export`).
  static func refuseToReplace(
    _ paths: [String], force: Bool, shown: (String) -> String, at offset: Int
  ) throws(ShellError) {
    guard !force else { return }
    for existing in paths where FileManager.default.fileExists(atPath: existing) {
      throw ShellError(
        "'\(shown(existing))' exists", hint: "choose another name, or add --force to replace it",
        at: offset)
    }
  }

  /// Replaces the contents of `path` with `text`.
  static func write(_ text: String, to path: String) throws(ShellError) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw ShellError("cannot write '\(path)': \(String(cString: strerror(errno)))")
    }
    defer { close(descriptor) }
    fchmod(descriptor, 0o600)
    var remaining = Array(text.utf8)[...]
    while !remaining.isEmpty {
      let written = remaining.withUnsafeBytes {
        Foundation.write(descriptor, $0.baseAddress, $0.count)
      }
      if written < 0 {
        if errno == EINTR { continue }
        throw ShellError("cannot write '\(path)': \(String(cString: strerror(errno)))")
      }
      remaining = remaining.dropFirst(written)
    }
  }
}
