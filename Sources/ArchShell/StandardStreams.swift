import Commands
import Foundation

/// Writes to file descriptors 1 and 2.
///
/// Standard output is buffered (64 KB) when it is not a terminal, as sqlite3 and the C library do:
/// a 100,000-line script then makes a few dozen writes instead of one per command. The buffer is
/// flushed before anything goes to standard error, so results and errors keep their order, before
/// each prompt, and before the process exits.
final class StandardStreams: ProgressSink {
  nonisolated(unsafe) private static var buffer: [UInt8] = []
  private static let outputIsTerminal = isatty(1) != 0
  private static let bufferLimit = 64 * 1024

  func standardOutput(_ text: String) {
    guard !Self.outputIsTerminal else {
      Self.write(text, to: 1)
      return
    }
    Self.buffer.append(contentsOf: text.utf8)
    if Self.buffer.count >= Self.bufferLimit { Self.flush() }
  }

  func standardError(_ text: String) {
    Self.flush()
    Self.write(text, to: 2)
  }

  func flush() { Self.flush() }

  private static let errorIsTerminal = isatty(2) != 0

  /// A progress line on standard error, rewritten in place; only when it is a terminal.
  func progress(_ text: String?) {
    guard Self.errorIsTerminal else { return }
    Self.write("\r\u{1B}[K" + (text ?? ""), to: 2)
  }

  /// Writes out what standard output holds.
  static func flush() {
    guard !buffer.isEmpty else { return }
    buffer.withUnsafeBufferPointer { writeAll($0, to: 1) }
    buffer.removeAll(keepingCapacity: true)
  }

  static func write(_ text: String, to descriptor: Int32) {
    if descriptor == 2 { flush() }
    var text = text
    text.withUTF8 { writeAll($0, to: descriptor) }
  }

  private static func writeAll(_ bytes: UnsafeBufferPointer<UInt8>, to descriptor: Int32) {
    var offset = 0
    while offset < bytes.count {
      let written = Platform.write(
        descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        return
      }
      offset += written
    }
  }

  /// Whether colour may be used on `descriptor`: it is a terminal and NO_COLOR is unset or empty.
  static func allowsColor(_ descriptor: Int32) -> Bool {
    guard isatty(descriptor) != 0 else { return false }
    guard let noColor = getenv("NO_COLOR") else { return true }
    return noColor.pointee == 0
  }
}
