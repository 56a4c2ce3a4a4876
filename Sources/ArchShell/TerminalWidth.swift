import Glibc

/// The width of the terminal archsh prints to, which tables fit.
enum TerminalWidth {
  /// Standard output's width in columns, when it is a terminal.
  ///
  /// The size the terminal reports, or else `$COLUMNS`. Nil when standard output is a pipe or a
  /// file, whatever `$COLUMNS` says, so that scripts and transcripts print the same everywhere.
  static func ofStandardOutput() -> Int? {
    guard isatty(STDOUT_FILENO) != 0 else { return nil }
    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
      return Int(size.ws_col)
    }
    guard let columns = getenv("COLUMNS").flatMap({ Int(String(cString: $0)) }), columns > 0
    else { return nil }
    return columns
  }
}
