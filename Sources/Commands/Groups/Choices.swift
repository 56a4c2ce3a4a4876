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

/// How `ds render` draws a data source.
enum RenderFormat: String, ChoiceWord {
  /// Text for the terminal.
  case text
  /// An SVG picture.
  case svg
  /// An HTML page, as the board draws it.
  case html
}

/// The layout `ds render` draws a data source in.
enum RenderStyle: String, ChoiceWord {
  /// A table view: one row under another.
  case table
  /// A collection view: rows side by side.
  case collection
}

/// How `trace export` writes a trace.
enum TraceFormat: String, ChoiceWord {
  /// A Mermaid sequence diagram.
  case mermaid
  /// An SVG picture.
  case svg
}

/// A cell data controller `ds register` takes, by the name DataSourceController's Domain gives it.
struct CellControllerChoice: ChoiceWord {
  /// The controller's name, such as `DetailCell`.
  let word: String

  /// Every controller Domain knows.
  static var allCases: [CellControllerChoice] { CellControllers.names.map(Self.init) }
}

extension LogLevel: ChoiceWord {
  /// The level's name as BDModules writes it, such as `Warning`.
  public var word: String { description }
}

/// A setting turned on or off, such as `store limits --ttl`.
enum Switch: String, ChoiceWord {
  /// On.
  case on
  /// Off.
  case off
}

extension APISessionManager.Method: ChoiceWord {}

/// `repo new --order`: the words for the seed's orderings.
enum OrderWord: String, ChoiceWord {
  /// No order asked of the API.
  case none
  /// Oldest first.
  case asc
  /// Newest first.
  case desc

  /// The seed's ordering.
  var ordering: RepositoryDefinition.Ordering {
    switch self {
    case .none: return .none
    case .asc: return .ascending
    case .desc: return .descending
    }
  }
}

/// `repo new --mode`: the words for the seed's paging modes.
enum PagingWord: String, ChoiceWord {
  /// By offset.
  case standard
  /// By cursor.
  case realtime

  /// The seed's paging mode.
  var paging: RepositoryDefinition.PagingMode {
    switch self {
    case .standard: return .standard
    case .realtime: return .realtime
    }
  }
}

extension AppError: ChoiceWord {}

/// What `expect` checks of the previous command.
enum ExpectCheck: String, ChoiceWord {
  /// It succeeded and its output contains TEXT.
  case contains
  /// It succeeded and its output is exactly TEXT.
  case equals
  /// It succeeded.
  case succeeds
  /// It failed, with an error message containing TEXT if given.
  case fails
}

extension OutputMode: ChoiceWord {}
