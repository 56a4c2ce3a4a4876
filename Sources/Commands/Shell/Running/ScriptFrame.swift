import Foundation

/// Where the relative paths that a command reads or writes start: the folder of the script that
/// runs it, or the current directory at the prompt (and for `-c` lines and standard input, whose
/// folder is `.`).
///
/// One rule for every path a command line gives: `source FILE`, `@FILE` values, `--file
/// NAME=@PATH`, `parse acknowledgements FILE` and `trace export FILE` all resolve here, so a
/// script runs the same from any directory.
struct RelativePaths: Sendable {
  /// The folder; `.` is the current directory.
  var directory: String
  /// In a walkthrough's replay, the folder that names are shown from.
  ///
  /// It is relative to the walkthrough's own folder (`.` for the walkthrough itself), so that
  /// its transcript reads the same from any directory. Nil elsewhere: names are shown as they
  /// are opened.
  var shownDirectory: String? = nil

  /// `path` as it is opened: an absolute path as it is, `~` and `~/…` in the home folder, a
  /// relative one inside `directory`.
  func resolve(_ path: String) -> String { Self.join(directory, path) }

  /// `path` as messages name it: as it is opened, or in a replay from the walkthrough's folder.
  func shown(_ path: String) -> String {
    shownDirectory.map { Self.join($0, path) } ?? resolve(path)
  }

  private static func join(_ folder: String, _ path: String) -> String {
    let path = expandingHome(path)
    return path.hasPrefix("/") || folder == "." ? path : folder + "/" + path
  }

  /// `~` and `~/…` in the home folder (`$HOME`), as a POSIX shell expands them; any other path
  /// as it is (`~user` is not expanded).
  static func expandingHome(_ path: String) -> String {
    guard path == "~" || path.hasPrefix("~/"),
      let home = Platform.variable("HOME"), !home.isEmpty
    else { return path }
    return home + path.dropFirst()
  }

  /// For a relative path that names no file, where it started; nil for an absolute path.
  func hint(for path: String) -> String? {
    guard !Self.expandingHome(path).hasPrefix("/") else { return nil }
    // A replay's transcript names no folder of this machine.
    if shownDirectory != nil { return "a relative path starts in the script's folder" }
    guard directory == "." else {
      return "a relative path starts in the script's folder, '\(directory)'"
    }
    return
      "a relative path starts in the current directory, '\(FileManager.default.currentDirectoryPath)'"
  }
}

/// One running source of lines: the prompt, a script, or a file included with `source`.
struct ScriptFrame {
  /// The name errors give for the source, or nil at the prompt.
  var name: String?
  /// Where relative paths start: the script's folder, or `.` (the current directory) at the
  /// prompt, for `-c` lines and for standard input.
  var directory: String
  /// In a walkthrough's replay, where the names that messages give start
  /// (`RelativePaths.shownDirectory`); nil elsewhere.
  var shownDirectory: String? = nil
  /// `$1`…`$9`.
  var arguments: [String]
  /// `$0`.
  var scriptName: String
  /// `file:line` of the `source` command that included it.
  var includedFrom: String?
  /// Whether errors leave the loop running.
  var isInteractive: Bool
  /// The physical line being run, for the include chain of errors inside it.
  var currentLine = 0
}

extension Interpreter {
  /// Where the relative paths of the command running now start.
  var paths: RelativePaths {
    RelativePaths(
      directory: frames.last?.directory ?? ".", shownDirectory: frames.last?.shownDirectory)
  }

  /// The value of `$name`: a script's `$0`…`$9`, `$#` and `$?`, or a session variable.
  func lookup(_ name: String) -> String? {
    guard let frame = frames.last else { return session.variables[name]?.value }
    switch name {
    case "?":
      return String(session.lastStatus)
    case "#":
      return String(frame.arguments.count)
    case "0":
      return frame.scriptName
    default:
      if let digit = Int(name), name.utf8.count == 1 {
        return digit <= frame.arguments.count ? frame.arguments[digit - 1] : nil
      }
      return session.variables[name]?.value
    }
  }

  // MARK: - Source

  /// Runs a script file inside the current one: `source FILE [ARG...]`.
  ///
  /// The path is relative to the including file's directory. Errors inside carry the include
  /// chain. Nesting deeper than 64 files is an error.
  public func source(_ path: Word, arguments: [String]) throws -> Output {
    guard let current = frames.last else { return .empty }
    guard frames.count <= 64 else {
      throw ShellError(
        "'source' is nested deeper than 64 files", hint: "does '\(path.text)' source itself?",
        at: path.offset)
    }
    let paths = RelativePaths(directory: current.directory, shownDirectory: current.shownDirectory)
    let opened = paths.resolve(path.text)
    var script: ScriptLineSource
    var display = paths.shown(path.text)
    switch ScriptLineSource.open(path: opened, named: display) {
    case .success(let source): script = source
    case .failure(let error):
      throw ShellError(error.message, hint: paths.hint(for: path.text), at: path.offset)
    }
    var includedFrom = current.name.map { "\($0):\(current.currentLine)" }
    // Typed at the prompt while recording: the file is named as the walkthrough's replay will
    // name it, and included from the recorded line, whose number `record stop` fills in.
    if current.isInteractive, frames.count == 1, let recorder = session.recorder {
      display = recorder.replayName(of: path.text, openedAs: opened)
      includedFrom = SessionRecorder.recordedLineMark
    }
    func folder(_ path: String) -> String {
      let folder = (path as NSString).deletingLastPathComponent
      return folder.isEmpty ? "." : folder
    }
    let frame = ScriptFrame(
      name: display, directory: folder(opened),
      shownDirectory: current.shownDirectory == nil ? nil : folder(display), arguments: arguments,
      scriptName: display, includedFrom: includedFrom, isInteractive: false)
    switch run(&script, frame: frame) {
    case .finished:
      if failures.isPending { throw AlreadyReported(description: lastErrorDescription) }
      return .empty
    case .stopped:
      throw AlreadyReported(description: lastErrorDescription)
    case .exit:
      return .empty
    }
  }

  // MARK: - Diagnostics

  /// Prints a line with its prompt, as `--echo` shows a script.
  func echo(_ line: LogicalLine) {
    let trimmed = line.text.drop { $0 == " " || $0 == "\t" }
    if trimmed.isEmpty || trimmed.hasPrefix("#") {
      if session.outputMode == .json {
        sink.standardError(line.text + "\n")
      } else {
        sink.standardOutput(line.text + "\n")
      }
      return
    }
    let physical = line.text.split(separator: "\n", omittingEmptySubsequences: false)
    var text = ""
    for (index, part) in physical.enumerated() {
      text += (index == 0 ? settings.prompt : settings.continuationPrompt) + part + "\n"
    }
    // Under --json, standard output holds only the documents: the echo goes beside the errors.
    if session.outputMode == .json {
      sink.standardError(text)
    } else {
      sink.standardOutput(text)
    }
  }

  /// Prints an error as one JSON document on standard error, under `--json`: the message, the
  /// hint, and where (the file, line and column in a script; the column at the prompt).
  private func reportAsJSON(_ error: ShellError, line: LogicalLine) {
    var fields = [Field("error", .string(error.message))]
    if let hint = error.hint { fields.append(Field("hint", .string(hint))) }
    if let frame = frames.last, let name = frame.name, !frame.isInteractive {
      let location = line.location(of: error.offset ?? 0)
      fields += [
        Field("file", .string(name)), Field("line", .int(location.line)),
        Field("column", .int(location.column)),
      ]
      let included = frames.reversed().compactMap(\.includedFrom)
      if !included.isEmpty {
        fields.append(Field("included_from", .list(included.map(Value.string))))
      }
    } else if let offset = error.offset {
      fields.append(Field("column", .int(line.location(of: offset).column)))
    }
    var text = ""
    JSONRenderer.write(.object(fields), into: &text)
    session.recorder?.error(error)
    sink.standardError(text + "\n")
  }

  /// Prints an error: with a caret under its column at the prompt, or as `file:line:col` with the
  /// include chain in a script; `expected` when the next line is `expect fails`.
  func report(_ error: ShellError, line: LogicalLine, expected: Bool) {
    if session.outputMode == .json {
      reportAsJSON(error, line: line)
      return
    }
    // An error the next line's `expect fails` is there for is no failure of the script: it is
    // labelled as expected, and not in red.
    let label =
      expected
      ? (settings.colorErrors ? "\u{1B}[2mexpected error:\u{1B}[0m" : "expected error:")
      : (settings.colorErrors ? "\u{1B}[1;31merror:\u{1B}[0m" : "error:")
    guard let frame = frames.last, let name = frame.name, !frame.isInteractive else {
      var text = ""
      if let offset = error.offset, line.isSinglePhysicalLine {
        // The caret goes as many columns in as the text before the word takes on the screen.
        let before = String(decoding: line.text.utf8.prefix(offset), as: UTF8.self)
        let indent = settings.prompt.displayWidth + before.displayWidth
        text += String(repeating: " ", count: indent) + "^\n"
      }
      sink.standardError(text + "\(label) \(error.shown)\n")
      session.recorder?.error(error)
      return
    }
    let location = line.location(of: error.offset ?? 0)
    // A script that sources itself repeats one frame up to the nesting limit: each run of the
    // same place is written once, with a count.
    var places: [(place: String, count: Int)] = []
    for outer in frames.reversed() {
      guard let includedFrom = outer.includedFrom else { continue }
      if let last = places.last, last.place == includedFrom {
        places[places.count - 1].count += 1
      } else {
        places.append((includedFrom, 1))
      }
    }
    func chain(_ places: [(place: String, count: Int)]) -> String {
      var chain = ""
      for (place, count) in places {
        chain += chain.isEmpty ? "; in file included from " : ", from "
        chain += count > 1 ? "\(place) (×\(count))" : place
      }
      return chain
    }
    let place = "\(name):\(location.line):\(location.column):"
    let description = error.shown
    // The line being recorded is a place in the walkthrough, not on the screen.
    let shown = places.filter { $0.place != SessionRecorder.recordedLineMark }
    session.recorder?.scriptError(
      "\(place) error: \(description)\(chain(places))\n", message: error.message)
    sink.standardError("\(place) \(label) \(description)\(chain(shown))\n")
  }
}
