import Commands
import Glibc

/// Writes straight to file descriptors 1 and 2, unbuffered, so that output and errors interleave
/// in the order they happen even when both go to one file.
final class StandardStreams: OutputSink {
  func standardOutput(_ text: String) { Self.write(text, to: 1) }
  func standardError(_ text: String) { Self.write(text, to: 2) }

  static func write(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = Glibc.write(
          descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          return
        }
        offset += written
      }
    }
  }

  /// Whether colour may be used on `descriptor`: it is a terminal and NO_COLOR is unset or empty.
  static func allowsColor(_ descriptor: Int32) -> Bool {
    guard isatty(descriptor) != 0 else { return false }
    guard let noColor = getenv("NO_COLOR") else { return true }
    return noColor.pointee == 0
  }
}
