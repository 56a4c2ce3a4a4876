@preconcurrency import CEdit
import Commands
import Foundation

// libedit calls back through C function pointers, which cannot capture context. The completion
// state therefore lives in globals, touched only on the main thread that runs readline().
nonisolated(unsafe) private var activeCompleter: Completer?
nonisolated(unsafe) private var pendingMatches: [String] = []
nonisolated(unsafe) private var pendingIndex = 0

nonisolated(unsafe) private let wordBreaks: UnsafeMutablePointer<CChar>? = strdup(" \t;")
nonisolated(unsafe) private let readlineName: UnsafePointer<CChar>? = UnsafePointer(
  strdup("archsh"))

/// libedit's attempted-completion callback: computes the candidates for the word at the cursor.
///
/// libedit replaces the text from `start` to the cursor with the candidates' common prefix. Its
/// word starts after the last blank, even one inside quotes, while the completer's word is the
/// lexer's: `log level 'Application L` is one word to the completer and `L` to libedit. The part
/// of the completer's word before libedit's is typed already, so each candidate is cut after it.
private func attemptCompletion(
  _ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32
) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
  // Without this, libedit falls back to completing file names.
  archsh_set_completion_over(1)
  guard let completer = activeCompleter, let buffer = archsh_rl_line_buffer() else { return nil }
  // `start` and `end` count characters (libedit's wide characters, Unicode scalars), while the
  // buffer is UTF-8 bytes.
  let scalars = String(cString: buffer).unicodeScalars
  let line = String(String.UnicodeScalarView(scalars.prefix(Int(end))))
  let completion = completer.completion(line)
  let wordStart = String(decoding: line.utf8.prefix(completion.start), as: UTF8.self)
    .unicodeScalars.count
  let typed = Array(line.unicodeScalars.dropFirst(wordStart).prefix(max(0, Int(start) - wordStart)))
  pendingMatches = completion.replacements.compactMap { replacement in
    let candidate = Array(replacement.unicodeScalars)
    guard Int(start) >= wordStart, candidate.starts(with: typed) else { return nil }
    return String(String.UnicodeScalarView(candidate.dropFirst(typed.count)))
  }
  pendingIndex = 0
  guard !pendingMatches.isEmpty else { return nil }
  // A directory is completed without the space that ends a word, so that Tab can go on into it.
  let isDirectory = pendingMatches.count == 1 && pendingMatches[0].hasSuffix("/")
  archsh_set_completion_append_character(isDirectory ? 0 : Int32(UInt8(ascii: " ")))
  return archsh_completion_matches(text, generateMatch)
}

/// libedit's generator: returns the next match as a malloc'd string, which libedit frees.
private func generateMatch(_ text: UnsafePointer<CChar>?, _ state: Int32) -> UnsafeMutablePointer<
  CChar
>? {
  if state == 0 { pendingIndex = 0 }
  guard pendingIndex < pendingMatches.count else { return nil }
  pendingIndex += 1
  return strdup(pendingMatches[pendingIndex - 1])
}

/// The interactive line source: libedit with history, Tab completion and Ctrl-C handling.
///
/// History is loaded from and saved to a file in libedit's own format, which is created with
/// mode 0600 and holds at most 5,000 lines. A line that holds a secret argument never enters the
/// history. Shells that share the file each add their own lines to what it holds when they leave,
/// under a lock, so that the one that leaves last keeps the other's lines.
struct LineEditor: LineSource {
  /// The prompt waits for the user.
  var isIdle: Bool { true }

  let prompt: String
  let continuationPrompt: String
  let historyPath: String?
  let session: Session
  private var lineNumber = 0
  /// How many lines of `session.history` came from the file: the ones after are this shell's.
  private var loadedLines = 0

  init(
    prompt: String, continuationPrompt: String, historyPath: String?, session: Session,
    completer: Completer
  ) {
    self.prompt = prompt
    self.continuationPrompt = continuationPrompt
    self.historyPath = historyPath
    self.session = session
    activeCompleter = completer
    archsh_set_completion(readlineName, attemptCompletion)
    archsh_set_word_breaks(wordBreaks)
    archsh_install_signal_handlers()
    archsh_install_getc()
    archsh_stifle_history(5000)
    if let historyPath {
      LineEditor.prepareHistoryFile(historyPath)
      archsh_read_history(historyPath)
      for offset in 0..<archsh_history_length() {
        if let line = archsh_history_line(offset) { session.history.append(String(cString: line)) }
      }
    }
    loadedLines = session.history.count
  }

  mutating func next(continuation: Bool) -> LineEvent {
    StandardStreams.flush()
    _ = archsh_take_interrupt()
    if archsh_terminate_pending() != 0 { return .end }
    guard let raw = archsh_readline(continuation ? continuationPrompt : prompt) else {
      if archsh_terminate_pending() != 0 { return .end }
      if archsh_take_interrupt() != 0 {
        StandardStreams.write("\n", to: 1)
        return .interrupted
      }
      StandardStreams.write("\n", to: 1)
      return .end
    }
    defer { free(raw) }
    if archsh_take_interrupt() != 0 { return .interrupted }
    lineNumber += 1
    return .line(SourceLine(String(cString: raw), number: lineNumber))
  }

  var recordsHistory: Bool { true }

  mutating func accept(_ line: String, isSecret: Bool) {
    var line = line
    while line.last?.isWhitespace == true { line.removeLast() }
    guard !isSecret, !line.isEmpty else { return }
    if session.history.last == line { return }
    archsh_add_history(line)
    session.history.append(line)
  }

  /// Adds this shell's lines to the history file, with mode 0600: under a lock, the file is read
  /// again (another shell may have added its lines since), this shell's lines go after what it
  /// holds, and the newest 5,000 are written.
  func saveHistory() {
    guard let historyPath else { return }
    LineEditor.prepareHistoryFile(historyPath)
    let mine = session.history.dropFirst(min(loadedLines, session.history.count))
    Platform.withFileLock(historyPath + ".lock") {
      archsh_clear_history()
      archsh_read_history(historyPath)
      for line in mine { archsh_add_history(line) }
      archsh_write_history(historyPath)
      chmod(historyPath, 0o600)
    }
  }

  /// The signal that ended the session (SIGTERM, or SIGHUP when the terminal closed), or nil; the
  /// process then exits with 128 + its number.
  var endingSignal: Int32? {
    let signal = archsh_terminate_pending()
    return signal == 0 ? nil : signal
  }

  /// Creates the history file and its directory if needed, private to the user.
  static func prepareHistoryFile(_ path: String) {
    let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    if !directory.isEmpty { makeDirectories(directory) }
    let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
    if descriptor >= 0 {
      fchmod(descriptor, 0o600)
      close(descriptor)
    }
  }

  static func makeDirectories(_ path: String) {
    var current = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
      current += "/" + component
      mkdir(current, 0o700)
    }
  }
}

/// Whether Ctrl-C was pressed, or SIGTERM or SIGHUP arrived, while a command ran; the interpreter
/// then stops a running script.
func archshInterruptPending() -> Bool {
  archsh_interrupt_pending() != 0 || archsh_terminate_pending() != 0
}
