import Domain
import Runtime

/// `db`: the SQLite workspace that holds everything a session builds.
enum DatabaseGroup {
  static let group = CommandGroup(
    "db", summary: "the SQLite workspace: where it is, what it holds, whether it is sound",
    from: [.archsh],
    discussion: """
      The workspace is --db PATH, else $ARCHSH_DB, else $XDG_DATA_HOME/archsh/workspace.sqlite \
      (~/.local/share/archsh/). ':memory:' keeps it in memory. It runs in WAL mode with \
      synchronous=NORMAL and a busy timeout of 5 s; new files get mode 0600.
      """,
    commands: [info, check, path],
    hints: hint(for:))

  /// The shell's hints for WorkspaceError, which any command that writes may show.
  static func hint(for error: Error) -> String? {
    switch error {
    case WorkspaceError.readOnly:
      // WAL writes two files beside the workspace: its folder must be writable too.
      return "make the file and its folder writable, or choose another workspace with --db"
    case WorkspaceError.busy:
      return "run it again when the other process is done, or use another workspace with --db"
    case WorkspaceError.damaged:
      return
        "'db check' looks for more; mend the file with sqlite3, or use another workspace with --db"
    default: return nil
    }
  }
  static let info = Command(
    "info", summary: "path, size, schema version, journal mode and entries per store",
    examples: ["db info"],
    result: .record(["path", "size", "schema_version", "journal_mode", "entries"])
  ) { invocation in
    let info = try invocation.session.factory.workspace.info()
    return .record([
      Field("path", .string(info.path)), Field("size", .int(info.fileBytes)),
      Field("schema_version", .string(info.schemaVersion)),
      Field("journal_mode", .string(info.journalMode)),
      Field("entries", .object(info.entriesPerStore.map { Field($0.store, .int($0.entries)) })),
    ])
  }

  static let check = Command(
    "check", summary: "run SQLite's integrity check, and look for values of the wrong type",
    discussion: """
      Prints ok, or each problem on its own line and fails with their count. SQLite stops \
      looking after \(Workspace.integrityCheckLimit) problems. When SQLite finds none, each \
      column is checked against its declared type: a NULL or text where archsh keeps a number \
      is a file changed outside archsh, and a command that reads it fails, naming it. Triggers \
      and views archsh did not create are problems too.
      """,
    examples: ["db check"], result: .record(["ok", "problems"])
  ) { invocation in
    let problems = try invocation.session.factory.workspace.integrityCheck()
    guard problems != ["ok"] else {
      return .sentence("ok", [Field("ok", .bool(true)), Field("problems", .list([]))])
    }
    let count =
      problems.count >= Workspace.integrityCheckLimit
      ? "at least \(problems.count) problems" : plural(problems.count, "problem")
    throw FailureWithOutput(
      output: .sentence(
        problems.joined(separator: "\n"),
        [Field("ok", .bool(false)), Field("problems", .list(problems.map(Value.string)))]),
      error: ShellError(
        "integrity check failed: \(count)", hint: "copy the file aside before changing it"))
  }

  static let path = Command(
    "path", summary: "the workspace's path", examples: ["db path"], result: .record(["path"])
  ) { invocation in
    let path = invocation.session.factory.databasePath
    return .sentence(path, [Field("path", .string(path))])
  }
}
