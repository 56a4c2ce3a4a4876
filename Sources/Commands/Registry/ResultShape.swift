import Domain

/// What a command's result holds for programs: the shape of its `--json` document and the names of
/// its fields.
///
/// Each command declares it next to its examples; `help --json GROUP VERB` shows it, and a test
/// runs every example in JSON mode and checks what it printed against it.
public indirect enum ResultShape: Sendable, Equatable {
  /// Prints nothing for people, and `{}` under `--json` (one document per command).
  case nothing
  /// `{"message": …}`: text that is the whole of the data, such as `echo`'s.
  case message
  /// An object with these fields.
  case record([String])
  /// A list of objects with these fields.
  case rows([String])
  /// An object with these fields and `children`, each a node of the same shape.
  case tree([String])
  /// `{"events": [...]}`, each event an object with these fields.
  case events([String])
  /// `{"format": …, "diagram": …}`: a diagram as text, such as Mermaid.
  case diagram
  /// The result of the command it runs (`source`, `time`).
  case passthrough
  /// A JSON value as the API or a file holds it, such as a stored element: its fields are the
  /// data's own.
  case value
  /// One of these, depending on the arguments.
  case oneOf([ResultShape])
  /// A list of documents, one of each shape, in order.
  case sequence([ResultShape])
  /// A list of any number of documents of one shape, such as one trace tree per command.
  case list(ResultShape)

  /// The shape as a JSON value, for `help --json`.
  public var value: Value {
    func kind(_ name: String, _ rest: [Field] = []) -> Value {
      .object([Field("kind", .string(name))] + rest)
    }
    func fields(_ names: [String]) -> Field { Field("fields", .list(names.map(Value.string))) }
    switch self {
    case .nothing: return kind("nothing")
    case .message: return kind("message", [fields(["message"])])
    case .record(let names): return kind("record", [fields(names)])
    case .rows(let names): return kind("rows", [fields(names)])
    case .tree(let names): return kind("tree", [fields(names + ["children"])])
    case .events(let names): return kind("events", [fields(names)])
    case .diagram: return kind("diagram", [fields(["format", "diagram"])])
    case .passthrough: return kind("passthrough")
    case .value: return kind("value")
    case .oneOf(let shapes): return kind("one_of", [Field("shapes", .list(shapes.map(\.value)))])
    case .sequence(let shapes):
      return kind("sequence", [Field("parts", .list(shapes.map(\.value)))])
    case .list(let shape): return kind("list", [Field("of", shape.value)])
    }
  }

  /// One line for the help text, such as `record: store, key, value`.
  public var summary: String {
    switch self {
    case .nothing: return "nothing"
    case .message: return "a message"
    case .record(let names): return "record: " + names.joined(separator: ", ")
    case .rows(let names): return "rows: " + names.joined(separator: ", ")
    case .tree(let names): return "tree: " + (names + ["children"]).joined(separator: ", ")
    case .events(let names): return "events: " + names.joined(separator: ", ")
    case .diagram: return "a diagram: format, diagram"
    case .passthrough: return "the result of the command it runs"
    case .value: return "the data as the API or the file holds it"
    case .oneOf(let shapes): return shapes.map(\.summary).joined(separator: "; or ")
    case .sequence(let shapes): return "[" + shapes.map(\.summary).joined(separator: "], [") + "]"
    case .list(let shape): return "a list of " + shape.summary
    }
  }
}

extension ResultShape {
  /// Whether a printed `--json` document has this shape.
  ///
  /// It must be of the declared kind, with no field the declaration does not name and at least
  /// one it does. A traced command's `{"output": …, "trace": …}` is judged by its output.
  public func admits(_ value: Value) -> Bool {
    if case .object(let fields) = value, fields.map(\.key) == ["output", "trace"] {
      return fields[0].value == .null ? admitsNothing : admits(fields[0].value)
    }
    func names(_ value: Value) -> [String]? {
      if case .object(let fields) = value { return fields.map(\.key) }
      return nil
    }
    // An object of declared fields only, and at least one of them: a result whose fields were all
    // renamed is not taken for an empty one.
    func within(_ value: Value, _ allowed: [String]) -> Bool {
      guard let keys = names(value) else { return false }
      return Set(keys).isSubset(of: Set(allowed)) && (!keys.isEmpty || allowed.isEmpty)
    }
    func member(_ value: Value, _ name: String) -> Value? {
      if case .object(let fields) = value { return fields.first { $0.key == name }?.value }
      return nil
    }
    switch self {
    case .nothing: return value == .object([])
    case .passthrough, .value: return true
    case .message: return names(value) == ["message"]
    case .record(let allowed): return within(value, allowed)
    case .rows(let allowed):
      guard case .list(let rows) = value else { return false }
      return rows.allSatisfy { within($0, allowed) }
    case .tree(let allowed):
      guard let children = member(value, "children"), case .list(let nodes) = children else {
        return false
      }
      return within(value, allowed + ["children"]) && nodes.allSatisfy { admits($0) }
    case .events(let allowed):
      guard names(value) == ["events"], let events = member(value, "events"),
        case .list(let lines) = events
      else { return false }
      return lines.allSatisfy { within($0, allowed) }
    case .diagram: return names(value) == ["format", "diagram"]
    case .oneOf(let shapes): return shapes.contains { $0.admits(value) }
    case .sequence(let parts):
      guard case .list(let documents) = value, documents.count == parts.count else { return false }
      return zip(documents, parts).allSatisfy { $1.admits($0) }
    case .list(let shape):
      guard case .list(let documents) = value else { return false }
      return documents.allSatisfy { shape.admits($0) }
    }
  }

  /// Whether the command may print nothing.
  public var admitsNothing: Bool {
    switch self {
    case .nothing, .passthrough: return true
    case .oneOf(let shapes): return shapes.contains { $0.admitsNothing }
    default: return false
    }
  }
}
