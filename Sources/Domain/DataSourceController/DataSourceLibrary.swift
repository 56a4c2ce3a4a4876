import Foundation
import Runtime

/// A data source loaded in the session, and the delegate that records what its mutations notify.
public final class OpenDataSource {
  /// The stored data source and its controller.
  public let document: DataSourceDocument
  /// The controller's delegate.
  public let delegate: RecordingDelegate

  init(document: DataSourceDocument, delegate: RecordingDelegate) {
    self.document = document
    self.delegate = delegate
    delegate.name = document.name
    document.controller.delegate = delegate
  }
}

/// A DataSourceControllerDelegate that keeps the notifications of the running command, reports
/// them to the tracer, and shows the data source's stored background message.
public final class RecordingDelegate: DataSourceControllerDelegate {
  private let tracer: Tracing
  private let background: () -> EmptyStateViewController?
  /// The notifications since they were last cleared.
  public var notifications: [DataSourceMutation] = []
  /// The stored data source it reports for, if it is one.
  public var name: String?

  init(tracer: Tracing, background: @escaping () -> EmptyStateViewController?) {
    self.tracer = tracer
    self.background = background
  }

  /// The data source's empty state, built with its stored message and button.
  public func backgroundEmptyView() -> EmptyStateViewController? { background() }

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
    tracer.events.publish(.dataSource) {
      .dataSource(DataSourceChange(name: name, notification: mutation))
    }
  }
}

/// The data sources stored in the workspace, each loaded once per session with its delegate.
public final class DataSourceLibrary {
  private let workspace: Workspace
  private unowned let factory: DataSourceFactory
  private let materials: DataSourceMaterials
  private var loaded: [String: OpenDataSource] = [:]

  init(workspace: Workspace, factory: DataSourceFactory, materials: DataSourceMaterials) {
    self.workspace = workspace
    self.factory = factory
    self.materials = materials
  }

  /// The data source named `name`, loaded from the workspace on first use.
  ///
  /// One loaded before is read again when another archsh process has changed the workspace
  /// since: two shells on one workspace see each other's changes.
  public func open(_ name: String) throws -> OpenDataSource {
    if let open = loaded[name] {
      do {
        _ = try open.document.refresh()
      } catch let error as DataSourceError {
        loaded[name] = nil
        throw error
      }
      return open
    }
    let document = try DataSourceDocument.open(
      name: name, in: workspace, materials: materials, tracer: factory.root.tracer)
    let open = factory.openDataSource(document: document)
    loaded[name] = open
    return open
  }

  /// Creates and stores a data source, and keeps it loaded.
  public func create(_ name: String, sections: [Section]) throws -> OpenDataSource {
    let document = try DataSourceDocument.create(
      name: name, sections: sections, in: workspace, materials: materials,
      tracer: factory.root.tracer)
    let open = factory.openDataSource(document: document)
    loaded[name] = open
    factory.root.tracer.events.publish(.dataSource) {
      .dataSource(DataSourceChange(name: name, notification: nil))
    }
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
