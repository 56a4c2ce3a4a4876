import Domain
import Foundation

/// Runs a walkthrough as the test suite and `--check` see it: in a fresh in-memory workspace,
/// with `--echo`, results and errors captured in the order they were written.
public enum WalkthroughReplay {
  /// What a run printed and how it ended.
  public struct Run: Sendable {
    /// Standard output and standard error, interleaved as a terminal shows them.
    public var output: String
    /// The status the process would exit with.
    public var status: Int32
  }

  /// Runs the script at `path` in a fresh session on an in-memory workspace.
  ///
  /// - Parameters:
  ///   - apiURL: the server the networking commands use; nil starts the embedded demo API.
  ///   - secrets: answers for `set NAME --secret` lines, by name, instead of asking.
  public static func run(path: String, apiURL: String? = nil, secrets: [String: String]? = nil)
    -> Run
  {
    switch ScriptLineSource.open(path: path) {
    case .failure(let error):
      return Run(output: "archsh: error: \(error.message)\n", status: 2)
    case .success(var source):
      let session = Session(options: SessionOptions(databasePath: ":memory:", apiURL: apiURL))
      defer { session.factory.shutdown() }
      session.secretAnswers = secrets
      let sink = TranscriptSink()
      var settings = InterpreterSettings()
      settings.echo = true
      let interpreter = Interpreter(session: session, sink: sink, settings: settings)
      // Named from its own folder, as the files it names are: the transcript reads the same
      // whichever directory it is checked from, however its path is spelled.
      let directory = (path as NSString).deletingLastPathComponent
      let outcome = interpreter.run(
        &source, name: shownName(of: path), directory: directory.isEmpty ? "." : directory,
        shownDirectory: ".", interactive: false)
      let status: Int32
      switch outcome {
      case .finished: status = interpreter.hadFailure ? 1 : 0
      case .stopped: status = 1
      case .exit(let code): status = code
      }
      // A secret given from outside (typed at a prompt when it was recorded) is recorded as
      // `<redacted>`, and so is it in the replay; one the file itself holds is no secret to it.
      return Run(output: session.secretsGivenFromOutside.hide(sink.text), status: status)
    }
  }

  /// The name a walkthrough's transcript gives it: its file's name, without its folder.
  public static func shownName(of path: String) -> String { (path as NSString).lastPathComponent }

  /// Where a walkthrough's transcript lives: `NAME.out` next to `NAME.ash`.
  public static func transcriptPath(for path: String) -> String {
    (path.hasSuffix(".ash") ? String(path.dropLast(4)) : path) + ".out"
  }

  /// What checking a walkthrough found.
  public struct Check: Sendable {
    /// The walkthrough.
    public var path: String
    /// Its transcript.
    public var transcriptPath: String
    /// The status the run ended with.
    public var status: Int32
    /// The unified diff from the transcript to this run; nil when they match.
    public var diff: String?
    /// Why the transcript could not be read, when it could not.
    public var unreadable: String?
    /// Whether `accept` wrote a new transcript.
    public var accepted = false
    /// Why the walkthrough itself could not be read (it was not run): a usage error.
    public var scriptError: String?

    /// Whether the run matched its transcript and succeeded.
    public var passed: Bool { diff == nil && unreadable == nil && status == 0 }

    /// One line that says what was found, and the diff after it.
    public var report: String {
      if let scriptError { return "archsh: error: \(scriptError) (check the walkthrough's path)\n" }
      var text: String
      if accepted {
        text =
          diff == nil
          ? "\(path): \(transcriptPath) is unchanged"
          : "\(path): accepted: \(transcriptPath) was re-recorded (the change is below)"
      } else if let unreadable {
        text = "\(path): \(unreadable) (record it with 'archsh --accept \(path)')"
      } else if diff != nil {
        text =
          "\(path): differs from \(transcriptPath) (re-record it after review: 'archsh --accept \(path)')"
      } else {
        text = "\(path): matches \(transcriptPath)"
      }
      if status != 0 { text += "; the run ended with status \(status)" }
      text += "\n"
      if let diff { text += diff }
      return text
    }
  }

  /// Runs the walkthrough at `path` and compares its output with its transcript; with `accept`,
  /// writes the output as the new transcript (mode 0600 when it is new).
  public static func check(path: String, accept: Bool, apiURL: String? = nil) -> Check {
    let outPath = transcriptPath(for: path)
    // A walkthrough that cannot be read is a mistake in the command, not a run: nothing is
    // compared, and nothing is written.
    if case .failure(let error) = ScriptLineSource.open(path: path) {
      var check = Check(path: path, transcriptPath: outPath, status: 2)
      check.scriptError = error.message
      return check
    }
    let run = run(path: path, apiURL: apiURL)
    let expected = FileManager.default.contents(atPath: outPath).map {
      String(decoding: $0, as: UTF8.self)
    }
    var check = Check(path: path, transcriptPath: outPath, status: run.status)
    check.diff = Transcript.unifiedDiff(
      expected: expected ?? "", actual: run.output, expectedName: outPath,
      actualName: path + " (this run)")
    if expected == nil, !accept { check.unreadable = "no transcript at \(outPath)" }
    if accept {
      do {
        try PrivateFile.write(run.output, to: outPath)
        check.accepted = true
      } catch {
        check.unreadable = error.message
      }
    }
    return check
  }
}

/// Collects output and errors in one text, in order.
final class TranscriptSink: OutputSink {
  private(set) var text = ""
  func standardOutput(_ text: String) { self.text += text }
  func standardError(_ text: String) { self.text += text }
}
