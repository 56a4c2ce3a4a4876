import Foundation

/// One physical line of input and its line number (1-based).
public struct SourceLine: Equatable, Sendable {
  /// The text, without its line break.
  public var text: String
  /// Its line number in the file, or the count of lines read at the prompt.
  public var number: Int

  /// Creates a line.
  public init(_ text: String, number: Int) {
    self.text = text
    self.number = number
  }
}

/// What a line source yields when asked for the next line.
public enum LineEvent: Equatable, Sendable {
  /// A line.
  case line(SourceLine)
  /// Ctrl-C at the prompt: the line being typed is discarded.
  case interrupted
  /// No more input.
  case end
}

/// Where lines come from: libedit at a terminal, a script, or an array in tests.
public protocol LineSource {
  /// The next line; `continuation` is true while a line ending in `\` is being continued, so an
  /// interactive source can show its `...> ` prompt.
  mutating func next(continuation: Bool) -> LineEvent
  /// Whether the source keeps a history, and so wants `accept(_:isSecret:)` calls.
  var recordsHistory: Bool { get }
  /// Told about each complete logical line before it runs, so an interactive source can add it to
  /// its history unless it holds a secret.
  mutating func accept(_ line: String, isSecret: Bool)
  /// Whether the next line is not there yet: someone is still to type or send it. The board
  /// draws what it put off while lines came fast.
  var isIdle: Bool { get }
  /// Whether the next command (the next line that is neither blank nor a comment) is `expect
  /// fails`, which accepts the failure of the one before; asked before every line runs, and
  /// false when the source cannot tell (a terminal, a pipe).
  var nextExpectsFailure: Bool { get }
}

extension LineSource {
  /// Files and arrays always have their next line.
  public var isIdle: Bool { false }
  /// Scripts keep no history.
  public var recordsHistory: Bool { false }
  /// Sources without a history ignore accepted lines.
  public mutating func accept(_ line: String, isSecret: Bool) {}
  /// Terminals and pipes cannot say what comes next.
  public var nextExpectsFailure: Bool { false }
}

/// Whether `line`, from its first byte, is the command `expect fails` (with or without a message).
func isExpectFails(_ line: some Sequence<UInt8>) -> Bool {
  var bytes = line.makeIterator()
  for expected in "expect".utf8 {
    guard bytes.next() == expected else { return false }
  }
  var next = bytes.next()
  guard next == 32 || next == 9 else { return false }
  while next == 32 || next == 9 { next = bytes.next() }
  for expected in "fails".utf8 {
    guard next == expected else { return false }
    next = bytes.next()
  }
  switch next {
  case nil, 9?, 10?, 13?, 32?: return true
  default: return false
  }
}

/// Lines from an array: `-c` arguments and tests.
public struct ArrayLineSource: LineSource {
  private let lines: [String]
  private var index = 0

  /// Creates a source over `lines`.
  public init(_ lines: [String]) {
    self.lines = lines
  }

  /// Whether the next line that is neither blank nor a comment is `expect fails`.
  public var nextExpectsFailure: Bool {
    for line in lines[index...] {
      let command = line.utf8.drop { $0 == 32 || $0 == 9 }
      if command.isEmpty || command.first == UInt8(ascii: "#") { continue }
      return isExpectFails(command)
    }
    return false
  }

  /// The next line of the array.
  public mutating func next(continuation: Bool) -> LineEvent {
    guard index < lines.count else { return .end }
    index += 1
    return .line(SourceLine(lines[index - 1], number: index))
  }
}

/// Lines of a script held in memory, split on `\n` (a `\r` before it is dropped).
public struct ScriptLineSource: LineSource {
  private let bytes: [UInt8]
  private var position = 0
  private var number = 0

  /// Creates a source over a script's bytes; invalid UTF-8 is replaced, never fatal, and a
  /// UTF-8 byte-order mark at the start (which some Windows editors write) is skipped.
  public init(contents: [UInt8]) {
    self.bytes = contents
    if contents.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
  }

  /// Reads a script file, or returns nil with the reason it cannot be read; the reason names the
  /// file `name` (its path by default).
  public static func open(path: String, named name: String? = nil) -> Result<
    ScriptLineSource, ShellError
  > {
    let name = name ?? path
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
      isDirectory.boolValue
    {
      return .failure(ShellError("cannot read '\(name)': it is a directory"))
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      let reason =
        FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file"
      return .failure(ShellError("cannot read '\(name)': \(reason)"))
    }
    return .success(ScriptLineSource(contents: [UInt8](data)))
  }

  /// Whether the next command is `expect fails`, read from the bytes without making a string:
  /// it is asked before every line of a script runs.
  public var nextExpectsFailure: Bool {
    guard let start = upcomingStart else { return false }
    return isExpectFails(bytes[start..<min(bytes.count, start + 64)])
  }

  /// Where the next line that is neither blank nor a comment starts, looking no further than
  /// 64 KiB ahead.
  private var upcomingStart: Int? {
    var start = position
    while start < bytes.count, start - position < 64 * 1024 {
      var first = start
      while first < bytes.count, bytes[first] == 32 || bytes[first] == 9 || bytes[first] == 13 {
        first += 1
      }
      if first < bytes.count, bytes[first] != 10, bytes[first] != UInt8(ascii: "#") {
        return first
      }
      while first < bytes.count, bytes[first] != 10 { first += 1 }
      start = first + 1
    }
    return nil
  }

  /// The next line of the script.
  public mutating func next(continuation: Bool) -> LineEvent {
    guard position < bytes.count else { return .end }
    var end = position
    while end < bytes.count, bytes[end] != 10 { end += 1 }
    var lineEnd = end
    if lineEnd > position, bytes[lineEnd - 1] == 13 { lineEnd -= 1 }
    let text = String(decoding: bytes[position..<lineEnd], as: UTF8.self)
    position = end + 1
    number += 1
    return .line(SourceLine(text, number: number))
  }
}

/// Lines read one at a time from standard input, for `archsh < script.ash` and pipes.
public struct StandardInputLineSource: LineSource {
  private var number = 0

  /// Creates the source.
  public init() {}

  /// Whether standard input has nothing to read now (a pipe whose writer waits).
  public var isIdle: Bool {
    var descriptor = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
    return poll(&descriptor, 1, 0) == 0
  }

  /// The next line of standard input.
  public mutating func next(continuation: Bool) -> LineEvent {
    guard let line = readLine(strippingNewline: true) else { return .end }
    number += 1
    var text = line
    // A byte-order mark before the first line is not part of the script.
    if number == 1, text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
    if text.hasSuffix("\r") { text.removeLast() }
    return .line(SourceLine(text, number: number))
  }
}
