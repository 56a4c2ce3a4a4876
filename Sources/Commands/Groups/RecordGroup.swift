import Foundation

/// `record`: turns what is typed at the prompt into a verified walkthrough.
enum RecordGroup {
  static let group = CommandGroup(
    "record", summary: "record what you type at the prompt as a walkthrough and its transcript",
    from: [.archsh],
    discussion: """
      'record start FILE.ash' keeps every line typed at the prompt from then on, with what it \
      printed. 'record stop' writes FILE.ash and its transcript FILE.out (mode 0600), then replays \
      FILE.ash at once in a fresh in-memory workspace and says whether it reproduces the \
      transcript, with the first difference when it does not. Durations, times, ports and \
      tokens are compared as the transcript tests compare them. A '#' line typed is narration. \
      A line that failed is kept, followed by the 'expect fails' that describes its error. A \
      secret typed on a line (a --password, a value set with --secret) is written as \
      'set NAME --secret', which asks for it when the walkthrough runs, and the line uses \
      $NAME: nothing secret is written. Variables set before the recording started and used \
      in it are set at the top. Check the walkthrough later with 'archsh --check FILE.ash'.
      """,
    commands: [start, stop, status])

  /// `start FILE`.
  static let fileArgument = Argument("FILE", .path, "the walkthrough to write, ending in .ash")

  /// `start --force`.
  static let forceFlag = Flag("force", "replace FILE and its .out when they exist")

  static let start = Command(
    "start", summary: "start recording the lines typed at the prompt",
    signature: Signature([fileArgument, forceFlag]),
    examples: ["record start tour.ash", "record start tour.ash --force"],
    result: .record(["recording", "paths_typed_from", "paths_replayed_from"])
  ) { invocation in
    let file = try invocation[fileArgument]
    let session = invocation.session
    if let recorder = session.recorder {
      throw ShellError(
        "already recording to \(recorder.path)", hint: "'record stop' writes it first",
        at: file.offset)
    }
    if let lesson = invocation.context.lesson {
      throw ShellError(
        "the exercise '\(lesson.exercise.name)' is running, in a workspace of its own",
        hint: "'learn stop' leaves it; then 'record start' records your own session",
        at: file.offset)
    }
    guard invocation.context.isTypedAtPrompt
    else {
      throw ShellError(
        "'record start' records what is typed at the prompt",
        hint: "a script is a walkthrough already: check it with 'archsh --check FILE.ash'",
        at: file.offset)
    }
    guard file.text.hasSuffix(".ash"), file.text.count > 4 else {
      throw ShellError(
        "a walkthrough's name ends in .ash", hint: "for example 'record start tour.ash'",
        at: file.offset)
    }
    let path = invocation.paths.resolve(file.text)
    let transcript = WalkthroughReplay.transcriptPath(for: path)
    try PrivateFile.refuseToReplace(
      [path, transcript], force: invocation[forceFlag], shown: { $0 }, at: file.offset)
    var isDirectory: ObjCBool = false
    let folder = (path as NSString).deletingLastPathComponent
    if !folder.isEmpty,
      !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory)
        || !isDirectory.boolValue
    {
      throw ShellError(
        "no folder '\(folder)' to write '\(file.text)' in",
        hint: invocation.paths.hint(for: file.text),
        at: file.offset)
    }
    let recorder = SessionRecorder(path: path, variables: session.variables)
    recorder.hideSecrets = { [session] in session.hidingSecrets($0) }
    session.recorder = recorder
    var text =
      "recording to \(path): type the walkthrough ('#' lines are its narration), then 'record stop'"
    var fields = [Field("recording", .string(path))]
    if let folders = recorder.typedFrom {
      // A relative path typed now names a file here; the replay looks for it in the folder.
      text +=
        "\nnote: relative paths typed now start in the current directory, '\(folders.current)'; the walkthrough's replay starts them in its own folder, '\(folders.replayed)': type absolute paths, or record in the current directory"
      fields += [
        Field("paths_typed_from", .string(folders.current)),
        Field("paths_replayed_from", .string(folders.replayed)),
      ]
    }
    return .sentence(text, fields)
  }

  static let stop = Command(
    "stop", summary: "write the walkthrough and its transcript, and replay it to check it",
    examples: ["record stop"],
    result: .record([
      "script", "lines", "transcript", "secrets", "reproduces", "replay_status",
      "first_difference",
    ])
  ) { invocation in
    try finish(invocation.session, settings: invocation.context.settings)
  }

  /// Writes the walkthrough being recorded and its transcript, and replays it to check it: what
  /// `record stop` does, and what leaving archsh while recording does.
  static func finish(_ session: Session, settings: InterpreterSettings) throws -> Output {
    guard let recorder = session.recorder else {
      throw ShellError("nothing is being recorded", hint: "start with 'record start FILE.ash'")
    }
    session.recorder = nil
    let (script, transcript, asked) = recorder.compose(
      prompt: settings.prompt, continuationPrompt: settings.continuationPrompt)
    try PrivateFile.write(script, to: recorder.path)
    try PrivateFile.write(transcript, to: recorder.transcriptPath)
    let lines = script.split(separator: "\n", omittingEmptySubsequences: false).count - 1
    var text =
      "wrote \(recorder.path) (\(lines) line\(lines == 1 ? "" : "s")) and \(recorder.transcriptPath)\n"
    if !asked.isEmpty {
      // What `--check` will need, which the files do not hold.
      text +=
        "it asks for \(asked.count == 1 ? "a secret" : "\(asked.count) secrets"), which it does not hold: "
        + asked.joined(separator: ", ")
        + " (at a terminal it asks; else give them on standard input, in this order, or as "
        + "ARCHSH_SECRET_\(asked[0]))\n"
    }
    var fields = [
      Field("script", .string(recorder.path)), Field("lines", .int(lines)),
      Field("transcript", .string(recorder.transcriptPath)),
      Field("secrets", .list(asked.map(Value.string))),
    ]
    let replay = WalkthroughReplay.run(
      path: recorder.path, apiURL: session.options.apiURL, secrets: recorder.secrets)
    let difference = Transcript.firstDifference(expected: transcript, actual: replay.output)
    fields += [
      Field("reproduces", .bool(difference == nil)),
      Field("replay_status", .int(Int(replay.status))),
      Field(
        "first_difference",
        difference.map { difference in
          .object([
            Field("line", .int(difference.line)),
            Field("recorded", difference.expected.map(Value.string) ?? .null),
            Field("replayed", difference.actual.map(Value.string) ?? .null),
          ])
        } ?? .null),
    ]
    if let difference {
      text +=
        "replayed in a fresh in-memory workspace: it does NOT reproduce its transcript; the first difference is at line \(difference.line) of \(recorder.transcriptPath):\n"
      text += "  recorded: \(difference.expected ?? "(the end of the transcript)")\n"
      text += "  replayed: \(difference.actual ?? "(the end of the replay)")"
      if let folders = recorder.typedFrom {
        text +=
          "\nnote: relative paths typed while recording started in '\(folders.current)'; the replay starts them in '\(folders.replayed)'"
      }
    } else if replay.status != 0 {
      text +=
        "replayed in a fresh in-memory workspace: it reproduces its transcript, but ended with status \(replay.status)"
    } else {
      text +=
        "replayed in a fresh in-memory workspace: it reproduces its transcript (check it again with 'archsh --check \(recorder.path)')"
    }
    return .sentence(text, fields)
  }

  static let status = Command(
    "status", summary: "whether a recording runs, where to, and how many lines it holds",
    examples: ["record status"], result: .record(["recording", "file", "transcript", "lines"])
  ) { invocation in
    guard let recorder = invocation.session.recorder else {
      return .record([Field("recording", .bool(false))])
    }
    return .record([
      Field("recording", .bool(true)), Field("file", .string(recorder.path)),
      Field("transcript", .string(recorder.transcriptPath)),
      Field("lines", .int(recorder.lineCount)),
    ])
  }
}
