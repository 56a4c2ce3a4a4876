import Domain
import Foundation

/// `trace`: watch the controllers move.
///
/// Each command is followed by the tree of spans it caused.
enum TraceGroup {
  static let group = CommandGroup(
    "trace", summary: "show how the controllers move, as trees and sequence diagrams",
    from: [.archsh],
    discussion: """
      Domain controllers report what they do to a tracer. With tracing on, every command that \
      made a controller work is followed by its tree: component, operation, key attributes and \
      duration. Secret values never reach a trace.
      """,
    commands: [on, off, show, export])

  static let on = Command(
    "on", summary: "start tracing; forget what was traced before",
    examples: ["trace on"], result: .record(["tracing"])
  ) { invocation in
    invocation.session.tracer.enable()
    return .sentence("tracing is on", [Field("tracing", .bool(true))])
  }

  static let off = Command(
    "off",
    summary: "stop tracing; what was traced stays available to 'trace show' and 'trace export'",
    examples: ["trace off"], result: .record(["tracing"])
  ) { invocation in
    invocation.session.tracer.disable()
    return .sentence("tracing is off", [Field("tracing", .bool(false))])
  }

  static let show = Command(
    "show", summary: "print every trace tree recorded since 'trace on'",
    examples: ["trace show"],
    result: .list(
      .tree(["component", "operation", "attributes", "failure", "milliseconds", "event"]))
  ) { invocation in
    let trees = try recorded(invocation.session).map { Output.tree(TraceRendering.tree($0)) }
    return .sequence(trees)
  }

  /// `export --format`.
  static let formatOption = Option(
    "format", Kind<TraceFormat>.choice, value: "FORMAT",
    "svg or mermaid; by default FILE's extension decides")

  /// `export --last N`.
  static let lastOption = Option(
    "last", .integer(1...1_000_000), value: "N", "only the last N commands that were traced")

  /// `export --no-timings`.
  static let noTimingsFlag = Flag(
    "no-timings", "leave durations out, so that the diagram is the same on every run")

  /// `export --force`: the same rule as `record start`'s, so that no file is replaced unasked.
  static let forceFlag = Flag("force", "replace FILE when it exists")

  /// `export`'s file to write.
  static let fileArgument = Option.argument("FILE", .path, "where to write the diagram")

  static let export = Command(
    "export", summary: "write what was traced since 'trace on' as a sequence diagram",
    discussion: """
      Each span becomes a call from its caller to its component and a reply with its attributes \
      and duration; events become notes. SVG is drawn by archsh itself, one lifeline per \
      controller, and opens in any browser; Mermaid is text for a Markdown renderer. Without \
      --format, a FILE ending in .svg gets SVG and anything else Mermaid. Without FILE, the \
      diagram is printed. The file is created with mode 0600. An existing FILE is replaced only \
      with --force, as 'record start' does.
      """,
    signature: Signature([formatOption, lastOption, noTimingsFlag, forceFlag, fileArgument]),
    examples: [
      "trace export trace.svg", "trace export --last 1 update.svg", "trace export --format mermaid",
      "trace export --format mermaid trace.mmd", "trace export trace.svg --force",
    ], result: .oneOf([.diagram, .record(["path", "format"])])
  ) { invocation in
    let file = invocation[fileArgument]
    let format =
      invocation[formatOption]
      ?? (file?.text.lowercased().hasSuffix(".svg") == true ? TraceFormat.svg : .mermaid)
    let spans = try recorded(invocation.session).suffix(invocation[lastOption] ?? .max)
    let diagram =
      format == .svg
      ? SequencePicture.svg(Array(spans), timings: !invocation[noTimingsFlag])
      : TraceRendering.mermaid(Array(spans))
    guard let file else { return .diagram(format: format.rawValue, text: diagram) }
    let path = invocation.paths.resolve(file.text)
    try PrivateFile.refuseToReplace(
      [path], force: invocation[forceFlag], shown: { _ in invocation.paths.shown(file.text) },
      at: file.offset)
    do throws(ShellError) {
      // A file outlives the session: a secret's value never goes into one.
      try PrivateFile.write(invocation.session.hidingSecrets(diagram) + "\n", to: path)
    } catch {
      throw error.located(at: file.offset)
    }
    let kind = format == .svg ? "an SVG" : "a Mermaid"
    let shown = invocation.paths.shown(file.text)
    return .sentence(
      "wrote \(kind) sequence diagram to \(shown)",
      [Field("path", .string(shown)), Field("format", .string(format.rawValue))])
  }

  private static func recorded(_ session: Session) throws(ShellError) -> [Span] {
    let spans = session.tracer.recorded.filter { !$0.children.isEmpty || !$0.events.isEmpty }
    guard !spans.isEmpty else {
      let hint =
        session.tracer.isTraceOn
        ? "run a command that drives a controller, such as 'factory get tracer'"
        : "start with 'trace on'"
      throw ShellError("nothing has been traced", hint: hint)
    }
    return spans
  }
}

/// How `trace export` writes a trace.
enum TraceFormat: String, ChoiceWord {
  /// A Mermaid sequence diagram.
  case mermaid
  /// An SVG picture.
  case svg
}
