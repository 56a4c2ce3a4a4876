import Foundation

/// A data source loaded in the session, and the delegate that records what its mutations notify.
public final class OpenDataSource {
  /// The stored data source and its controller.
  public let document: DataSourceDocument
  /// The controller's delegate.
  public let delegate: RecordingDelegate

  init(document: DataSourceDocument, delegate: RecordingDelegate) {
    self.document = document
    self.delegate = delegate
    document.controller.delegate = delegate
  }
}

/// A DataSourceControllerDelegate that keeps the notifications of the running command, reports
/// them to the tracer, and shows the data source's stored background message.
public final class RecordingDelegate: DataSourceControllerDelegate {
  private let tracer: Tracing
  private let background: () -> String?
  /// The notifications since they were last cleared.
  public var notifications: [DataSourceMutation] = []

  init(tracer: Tracing, background: @escaping () -> String?) {
    self.tracer = tracer
    self.background = background
  }

  /// The stored background message.
  public func backgroundEmptyView() -> String? { background() }

  /// Records a reload of everything.
  public func dataSourceWasMutated(_ controller: DataSourceController) { record(.all) }

  /// Records a reload of a section.
  public func dataSourceWasMutated(_ controller: DataSourceController, section: Int) {
    record(.section(section))
  }

  /// Records a reload of rows.
  public func dataSourceWasMutated(_ controller: DataSourceController, rows: [IndexPath]) {
    record(.rows(rows))
  }

  private func record(_ mutation: DataSourceMutation) {
    notifications.append(mutation)
    tracer.event("DataSourceControllerDelegate", mutation.description)
  }
}

/// The data sources stored in the workspace, each loaded once per session with its delegate.
public final class DataSourceLibrary {
  private let workspace: Workspace
  private unowned let factory: DataSourceFactory
  private var loaded: [String: OpenDataSource] = [:]

  init(workspace: Workspace, factory: DataSourceFactory) {
    self.workspace = workspace
    self.factory = factory
  }

  /// The data source named `name`, loaded from the workspace on first use.
  public func open(_ name: String) throws -> OpenDataSource {
    if let open = loaded[name] { return open }
    let document = try DataSourceDocument.open(
      name: name, in: workspace, tracer: factory.root.tracer)
    let open = factory.openDataSource(document: document)
    loaded[name] = open
    return open
  }

  /// Creates and stores a data source, and keeps it loaded.
  public func create(_ name: String, sections: [Section]) throws -> OpenDataSource {
    let document = try DataSourceDocument.create(
      name: name, sections: sections, in: workspace, tracer: factory.root.tracer)
    let open = factory.openDataSource(document: document)
    loaded[name] = open
    return open
  }

  /// Removes a data source from the workspace.
  public func drop(_ name: String) throws {
    try DataSourceDocument.drop(name: name, in: workspace)
    loaded[name] = nil
  }

  /// The stored data sources with their sizes.
  public func list() throws -> [(name: String, sections: Int, rows: Int)] {
    try DataSourceDocument.list(in: workspace)
  }
}

/// The data sources the shell opens, after peredaniel's DataSourceController (seed 002): the
/// library that loads them, and the delegate each one reports to.
public final class DataSourceFactory: Factory {

  static let libraryComponent = FactoryComponent(
    "dataSourceLibrary", factory: "DataSourceFactory", type: "DataSourceLibrary", .singleton,
    dependencies: ["workspace"],
    summary: "loads the data sources stored in the workspace, each once per session"
  ) { try $0.dataSource.library }

  static let openDataSourceComponent = FactoryComponent(
    "openDataSource", factory: "DataSourceFactory", type: "OpenDataSource", .prototype,
    dependencies: ["recordingDelegate"],
    summary: "a stored data source's DataSourceController, wired to its delegate",
    input: "a stored data source", obtain: nil)

  static let recordingDelegateComponent = FactoryComponent(
    "recordingDelegate", factory: "DataSourceFactory", type: "RecordingDelegate", .prototype,
    summary: "the DataSourceControllerDelegate that shows each mutation's notifications"
  ) { $0.dataSource.recordingDelegate { nil } }

  static let components = [libraryComponent, openDataSourceComponent, recordingDelegateComponent]

  /// The library of stored data sources.
  public var library: DataSourceLibrary {
    get throws {
      try core.singleton(Self.libraryComponent) {
        DataSourceLibrary(workspace: try root.workspace, factory: self)
      }
    }
  }

  /// A loaded data source wired to a new delegate.
  func openDataSource(document: DataSourceDocument) -> OpenDataSource {
    core.prototype(Self.openDataSourceComponent) {
      OpenDataSource(
        document: document,
        delegate: recordingDelegate { [unowned document] in document.backgroundMessage })
    }
  }

  /// A new delegate showing `background` when the data source is empty.
  public func recordingDelegate(background: @escaping () -> String?) -> RecordingDelegate {
    core.prototype(Self.recordingDelegateComponent) {
      RecordingDelegate(tracer: root.tracer, background: background)
    }
  }
}
