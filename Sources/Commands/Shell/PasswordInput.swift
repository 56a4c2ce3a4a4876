import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a password: from the terminal without echo, or from standard input's first line.
enum PasswordInput {
  /// Whether standard input is a terminal, where a prompt can ask for a password.
  static var canPrompt: Bool { isatty(STDIN_FILENO) == 1 }

  /// Asks for a password on the terminal with echo off; nil at the end of the input.
  static func prompt(_ text: String) -> String? {
    FileHandle.standardError.write(Data(text.utf8))
    var saved = termios()
    let haveTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
    if haveTerminal {
      var quiet = saved
      quiet.c_lflag &= ~tcflag_t(ECHO)
      tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
    }
    defer {
      if haveTerminal { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
      FileHandle.standardError.write(Data("\n".utf8))
    }
    return readLine(strippingNewline: true)
  }

  /// The first line of standard input (`--password-stdin`); nil when there is none.
  static func firstLineOfStandardInput() -> String? {
    readLine(strippingNewline: true)
  }
}
