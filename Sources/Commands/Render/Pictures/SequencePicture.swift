import Domain

/// A trace as an SVG sequence diagram: one lifeline per controller, a call arrow for each span
/// from its caller, a dashed reply with its status and duration, and its events as notes.
///
/// Laid out in Swift: lifelines in the order they first appear, one row per arrow or note.
enum SequencePicture {
  /// The diagram of `spans` (root spans, in order); `caller` is the first lifeline.
  ///
  /// `timings` false leaves durations out, for pictures that must not change from run to run.
  static func svg(_ spans: [Span], caller: String = "User", timings: Bool = true) -> String {
    var participants = [caller]
    var steps: [Step] = []
    func index(_ name: String) -> Int {
      if let found = participants.firstIndex(of: name) { return found }
      participants.append(name)
      return participants.count - 1
    }
    // In the order things happened (TraceRendering.timeline), not the tree's.
    for moment in TraceRendering.timeline(spans) {
      switch moment {
      case .call(let span, let caller):
        let from = caller.map(index) ?? 0
        steps.append(
          .call(
            from: from, to: index(span.component), label: callLabel(span),
            component: span.component))
      case .note(let span, let event):
        steps.append(.note(at: index(span.component), text: event))
      case .reply(let span, let caller):
        let to = caller.map(index) ?? 0
        steps.append(
          .reply(
            from: index(span.component), to: to, label: replyLabel(span, timings: timings),
            failed: span.failure != nil, component: span.component))
      }
    }

    let size = 15.0
    let labelChars = 44
    let column = max(
      190, participants.map { SVG.textWidth($0, size: size) + 40 }.max() ?? 190,
      SVG.textWidth(String(repeating: "x", count: labelChars), size: 13) * 0.75)
    let left = 20.0
    func x(_ index: Int) -> Double { left + column / 2 + Double(index) * column }
    let headerHeight = 44.0
    let rowHeight = 34.0
    let top = 20.0 + headerHeight + 14
    let height = top + Double(steps.count) * rowHeight + 20
    let width = left * 2 + column * Double(participants.count)

    var svg = SVG()
    for (offset, name) in participants.enumerated() {
      svg.open("lifeline", data: [("component", name)])
      svg.title(name)
      let boxWidth = column - 24
      svg.rect(
        x: x(offset) - boxWidth / 2, y: 20, width: boxWidth, height: headerHeight, radius: 6,
        classes: offset == 0 ? "head caller" : "head")
      svg.text(
        SVG.cut(name, Int(boxWidth / (size * 0.6)) - 1), x: x(offset), y: 20 + 28,
        classes: "label strong", anchor: "middle")
      svg.line(
        x1: x(offset), y1: 20 + headerHeight, x2: x(offset), y2: height - 10, classes: "life")
      svg.close()
    }
    for (row, step) in steps.enumerated() {
      let y = top + Double(row) * rowHeight + rowHeight * 0.7
      switch step {
      case .call(let from, let to, let label, let component):
        svg.open("message call", data: [("component", component)])
        svg.title(label)
        arrow(&svg, from: x(from), to: x(to), y: y, classes: "call")
        svg.text(
          SVG.cut(label, labelChars), x: labelX(x(from), x(to)), y: y - 7, classes: "small",
          anchor: from == to ? "start" : "middle")
        svg.close()
      case .reply(let from, let to, let label, let failed, let component):
        svg.open("message reply" + (failed ? " failed" : ""), data: [("component", component)])
        svg.title(label)
        arrow(&svg, from: x(from), to: x(to), y: y, classes: failed ? "reply failed" : "reply")
        svg.text(
          SVG.cut(label, labelChars), x: labelX(x(from), x(to)), y: y - 7,
          classes: failed ? "small failed" : "small", anchor: from == to ? "start" : "middle")
        svg.close()
      case .note(let at, let text):
        svg.open("note")
        svg.title(text)
        let shown = SVG.cut(text, labelChars)
        let noteWidth = SVG.textWidth(shown, size: 13) + 16
        svg.rect(x: x(at) + 8, y: y - 19, width: noteWidth, height: 24, radius: 3, classes: "note")
        svg.text(shown, x: x(at) + 16, y: y - 2, classes: "small")
        svg.close()
      }
    }
    return svg.document(
      width: width, height: height, label: "sequence diagram", style: style,
      scope: "archsh-sequence")
  }

  private enum Step {
    case call(from: Int, to: Int, label: String, component: String)
    case reply(from: Int, to: Int, label: String, failed: Bool, component: String)
    case note(at: Int, text: String)
  }

  private static let style = """
    .head { fill: #e8f0fe; stroke: #1a56c4; stroke-width: 2px; }
    .head.caller { fill: #f1f1f1; stroke: #444; }
    .life { stroke: #777; stroke-width: 1.5px; stroke-dasharray: 6 5; }
    .call { stroke: #111; stroke-width: 2px; fill: none; }
    .reply { stroke: #1a56c4; stroke-width: 1.5px; stroke-dasharray: 5 4; fill: none; }
    .reply.failed, text.failed { stroke: #b00020; fill: #b00020; }
    .arrowhead { fill: #111; }
    .reply .arrowhead { fill: #1a56c4; }
    .failed .arrowhead { fill: #b00020; }
    .note { fill: #fff8d6; stroke: #c9a400; }

    """

  private static func arrow(_ svg: inout SVG, from: Double, to: Double, y: Double, classes: String)
  {
    if from == to {
      // A call to itself: a small loop on the right of the lifeline.
      svg.path(
        "M\(SVG.number(from)) \(SVG.number(y - 10)) h28 v14 h-24", classes: classes)
      svg.raw(
        "<polygon class=\"arrowhead\" points=\"\(SVG.number(from + 2)),\(SVG.number(y + 4)) "
          + "\(SVG.number(from + 10)),\(SVG.number(y)) \(SVG.number(from + 10)),\(SVG.number(y + 8))\"/>"
      )
      return
    }
    let direction = to > from ? 1.0 : -1.0
    svg.line(x1: from, y1: y, x2: to - direction * 8, y2: y, classes: classes)
    svg.raw(
      "<polygon class=\"arrowhead\" points=\"\(SVG.number(to)),\(SVG.number(y)) "
        + "\(SVG.number(to - direction * 10)),\(SVG.number(y - 5)) "
        + "\(SVG.number(to - direction * 10)),\(SVG.number(y + 5))\"/>")
  }

  private static func labelX(_ from: Double, _ to: Double) -> Double {
    from == to ? from + 34 : (from + to) / 2
  }

  private static func callLabel(_ span: Span) -> String {
    let keys: Set<String> = ["store", "key", "name", "instance", "username"]
    let shown = span.attributes.filter { keys.contains($0.key) }.map { "\($0.key): \($0.value)" }
    return shown.isEmpty ? span.operation : "\(span.operation) (\(shown.joined(separator: ", ")))"
  }

  private static func replyLabel(_ span: Span, timings: Bool) -> String {
    var parts: [String] = []
    if let status = span.attributes.first(where: { $0.key == "status" })?.value {
      parts.append(status)
    }
    if let bytes = span.attributes.first(where: { $0.key == "bytes" })?.value {
      parts.append("\(bytes) B")
    }
    if let failure = span.failure { parts.append(failure) }
    if timings, let duration = span.durationNanoseconds {
      parts.append(TraceRendering.formatDuration(duration))
    }
    return parts.isEmpty ? "done" : parts.joined(separator: ", ")
  }
}
