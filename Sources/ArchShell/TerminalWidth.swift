import Foundation

/// The width of the terminal archsh prints to, which tables fit.
enum TerminalWidth {
  /// Whether standard output is a terminal, asked once: it runs before every command's output,
  /// and a script's 100,000 lines should not make 100,000 `ioctl`s to learn it is a pipe.
  private static let outputIsTerminal = isatty(STDOUT_FILENO) != 0

  /// Standard output's width in columns, when it is a terminal.
  ///
  /// The size the terminal reports, or else `$COLUMNS`. Nil when standard output is a pipe or a
  /// file, whatever `$COLUMNS` says, so that scripts and transcripts print the same everywhere.
  static func ofStandardOutput() -> Int? {
    guard outputIsTerminal else { return nil }
    if let columns = Platform.terminalColumns(of: STDOUT_FILENO) { return columns }
    guard let columns = getenv("COLUMNS").flatMap({ Int(String(cString: $0)) }), columns > 0
    else { return nil }
    return columns
  }
}
