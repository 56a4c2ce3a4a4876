import Domain

/// How `factory graph` and `coord tree` draw a graph.
enum GraphFormat: String, ChoiceWord {
  /// An indented tree for the terminal.
  case text
  /// A Mermaid flowchart.
  case mermaid
  /// A Graphviz digraph.
  case dot
  /// An SVG picture.
  case svg
}

extension LogLevel: ChoiceWord {
  /// The level's name as BDModules writes it, such as `Warning`.
  public var word: String { description }
}

extension APISessionManager.Method: ChoiceWord {}

extension AppError: ChoiceWord {}

extension OutputMode: ChoiceWord {}
