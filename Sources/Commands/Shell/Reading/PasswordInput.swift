import Foundation

/// Reading a password: from the terminal without echo, or from standard input's first line.
enum PasswordInput {
  /// What the prompt read.
  enum Answer: Equatable {
    /// A line was typed and ended with Enter.
    case entered(String)
    /// Ctrl-C was pressed.
    case cancelled
    /// Ctrl-D on an empty line, or the input ended.
    case ended
  }

  /// Whether standard input is a terminal, where a prompt can ask for a password.
  static var canPrompt: Bool { isatty(STDIN_FILENO) == 1 }

  /// Asks for a password on the terminal, without echo, and reads it key by key.
  ///
  /// The terminal is put in non-canonical mode with echo and signals off, so Ctrl-C arrives as a
  /// key (0x03) instead of a SIGINT that a blocked read would have to survive: it cancels, and the
  /// terminal's settings are restored before this returns, whatever ended the prompt. Backspace
  /// removes the last character, Ctrl-U the whole line.
  ///
  /// The quiet mode is set before the prompt is written, as psql and getpass do: what was typed
  /// before the prompt showed is discarded (it was typed with echo on), and everything typed once
  /// the prompt shows is read, however fast it comes. Restoring the settings discards what was
  /// typed after Enter, as they do too: it was typed without echo, so it may be the password
  /// typed twice, which must not run as a command or reach the history.
  static func prompt(_ text: String) -> Answer {
    var saved = termios()
    guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
      FileHandle.standardError.write(Data(text.utf8))
      defer { FileHandle.standardError.write(Data("\n".utf8)) }
      return readLine(strippingNewline: true).map(Answer.entered) ?? .ended
    }
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
    withUnsafeMutableBytes(of: &quiet.c_cc) { bytes in
      bytes[Int(VMIN)] = 1
      bytes[Int(VTIME)] = 0
    }
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
    defer {
      tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
      FileHandle.standardError.write(Data("\n".utf8))
    }
    FileHandle.standardError.write(Data(text.utf8))
    return readKeys()
  }

  /// Reads keys until Enter, Ctrl-C or the end of the input.
  private static func readKeys() -> Answer {
    var typed: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let count = Platform.read(STDIN_FILENO, &byte, 1)
      if count < 0, errno == EINTR { continue }
      guard count == 1 else { return typed.isEmpty ? .ended : .entered(decode(typed)) }
      switch byte {
      case 0x0A, 0x0D: return .entered(decode(typed))
      case 0x03: return .cancelled
      case 0x04: if typed.isEmpty { return .ended }
      case 0x7F, 0x08:
        // One character back: drop UTF-8 continuation bytes, then the lead byte.
        while let last = typed.last, last & 0xC0 == 0x80 { typed.removeLast() }
        if !typed.isEmpty { typed.removeLast() }
      case 0x15: typed.removeAll()
      default: typed.append(byte)
      }
    }
  }

  /// Delivers the Ctrl-C that the password prompt read as a byte, as if the terminal had sent it.
  static func deliverInterruptIfUnhandled() {
    // archsh's own handler notes it: a script stops as Ctrl-C stops it (status 130), and the
    // prompt takes it as the Ctrl-C it was. Without a handler, the process ends as Ctrl-C ends it.
    raise(SIGINT)
  }

  private static func decode(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

  /// The first line of standard input (`--password-stdin`); nil when there is none.
  static func firstLineOfStandardInput() -> String? {
    readLine(strippingNewline: true)
  }
}
