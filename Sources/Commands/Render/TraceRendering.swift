import Domain

/// Turns recorded spans into trees for the terminal and into Mermaid sequence diagrams.
public enum TraceRendering {
  /// The tree for one root span: component, operation, key attributes, and duration.
  public static func tree(_ span: Span) -> TreeNode {
    var label = span.operation.isEmpty ? span.component : "\(span.component) \(span.operation)"
    let attributes = span.attributes
    if !attributes.isEmpty {
      label += " (" + attributes.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + ")"
    }
    if let failure = span.failure { label += " failed: \(failure)" }
    var children = span.events.map { event in
      TreeNode("~ \(event)", fields: [Field("event", .string(event))])
    }
    children += span.children.map(tree)
    let fields = [
      Field("component", .string(span.component)),
      Field("operation", .string(span.operation)),
      Field("attributes", .object(attributes.map { Field($0.key, .string($0.value)) })),
      Field("failure", span.failure.map(Value.string) ?? .null),
      Field(
        "milliseconds",
        span.durationNanoseconds.map { .double(Double($0) / 1_000_000) } ?? .null),
    ]
    return TreeNode(
      label, detail: span.durationNanoseconds.map(formatDuration), children: children,
      fields: fields)
  }

  /// A Mermaid `sequenceDiagram` of `spans`: each span is a call from its parent's component and a
  /// reply carrying its attributes and duration; events become notes.
  public static func mermaid(_ spans: [Span], caller: String = "User") -> String {
    mermaid(timeline(spans), caller: caller)
  }

  /// One arrow or note of a sequence diagram.
  enum Moment {
    /// `span` is called from `caller` (nil: the diagram's caller).
    case call(Span, caller: String?)
    /// A note over `span`'s component.
    case note(Span, String)
    /// `span` replies to `caller`.
    case reply(Span, caller: String?)
  }

  /// The calls, notes and replies of `spans` in the order they happened.
  ///
  /// A call comes at its span's start, a reply at its end, a note when its event was added. Spans that ran at once (a burst's
  /// requests, on threads of their own) interleave as they did, so that a replay is drawn after
  /// the refresh it waited for; spans that ran one after another come out as the tree has them.
  static func timeline(_ spans: [Span]) -> [Moment] {
    var moments: [(time: UInt64, order: Int, moment: Moment)] = []
    func walk(_ span: Span, caller: String?) {
      let start = span.startNanoseconds
      moments.append((start, moments.count, .call(span, caller: caller)))
      let times = span.eventTimes
      for (index, event) in span.events.enumerated() {
        let time = index < times.count ? max(times[index], start) : start
        moments.append((time, moments.count, .note(span, event)))
      }
      for child in span.children { walk(child, caller: span.component) }
      let end = span.durationNanoseconds.map { start &+ $0 } ?? moments.map(\.time).max() ?? start
      moments.append((end, moments.count, .reply(span, caller: caller)))
    }
    for span in spans { walk(span, caller: nil) }
    return moments.sorted { ($0.time, $0.order) < ($1.time, $1.order) }.map(\.moment)
  }

  private static func mermaid(_ moments: [Moment], caller: String) -> String {
    var participants: [String] = []
    var lines: [String] = []
    func participant(_ name: String) -> String {
      let id = identifier(name)
      let declaration = id == name ? id : "\(id) as \(escape(name))"
      if !participants.contains(declaration) { participants.append(declaration) }
      return id
    }
    let user = identifier(caller)
    for moment in moments {
      switch moment {
      case .call(let span, let parent):
        let callee = participant(span.component)
        let from = parent.map(participant) ?? user
        lines.append(
          "  \(from)->>\(callee): \(escape(span.operation.isEmpty ? "event" : span.operation))")
      case .note(let span, let event):
        lines.append("  Note over \(participant(span.component)): \(escape(event))")
      case .reply(let span, let parent):
        var reply = span.attributes.map { "\($0.key): \($0.value)" }
        if let failure = span.failure { reply.append("failed: \(failure)") }
        if let duration = span.durationNanoseconds { reply.append(formatDuration(duration)) }
        lines.append(
          "  \(participant(span.component))-->>\(parent.map(participant) ?? user): \(escape(reply.joined(separator: ", ")))"
        )
      }
    }
    let header =
      ["sequenceDiagram", "  actor \(user)"] + participants.map { "  participant \($0)" }
    return (header + lines).joined(separator: "\n")
  }

  /// A duration for people: `0.04 ms`, `12.3 ms`, `1.52 s`.
  public static func formatDuration(_ nanoseconds: UInt64) -> String {
    let milliseconds = Double(nanoseconds) / 1_000_000
    if milliseconds < 10 { return format(milliseconds, decimals: 2) + " ms" }
    if milliseconds < 1000 { return format(milliseconds, decimals: 1) + " ms" }
    return format(milliseconds / 1000, decimals: 2) + " s"
  }

  private static func format(_ value: Double, decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = Int((value * scale).rounded())
    let whole = rounded / Int(scale)
    var fraction = String(rounded % Int(scale))
    while fraction.count < decimals { fraction = "0" + fraction }
    return "\(whole).\(fraction)"
  }

  private static func identifier(_ name: String) -> String {
    let cleaned = String(
      name.unicodeScalars.map { scalar in
        (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) && scalar.isASCII
          ? Character(scalar) : "_"
      })
    return cleaned.isEmpty ? "_" : cleaned
  }

  private static func escape(_ text: String) -> String {
    var result = ""
    for character in text.replacingNewlines() {
      switch character {
      case ";": result += "#59;"
      case "#": result += "#35;"
      default: result.append(character)
      }
    }
    return result
  }
}
