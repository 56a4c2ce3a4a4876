import Foundation

/// The data sources the shell opens and the lists the app's screens show, after peredaniel's
/// DataSourceController (seed 002): the controllers themselves, the library that loads the stored
/// ones, the delegate each one reports to, and the table view providers of the screens.
public final class DataSourceFactory: Factory {
  /// The root that created it.
  public unowned let root: ApplicationFactory

  init(root: ApplicationFactory) { self.root = root }

  static let dataSourceControllerComponent = ComponentDeclaration<DataSourceController>(
    "dataSourceController", of: DataSourceFactory.self, .prototype, from: .dataSourceController,
    "sections of rows, cell data controllers by model type, mutations that notify (seed 002)",
    input: "its sections"
  ) { $0.dataSource.dataSourceController(sections: []) }

  static let libraryComponent = ComponentDeclaration<DataSourceLibrary>(
    "dataSourceLibrary", of: DataSourceFactory.self, .singleton, from: .archsh,
    "loads the data sources stored in the workspace, each once per session"
  ) { try $0.dataSource.library }

  static let openDataSourceComponent = ComponentDeclaration<OpenDataSource>(
    "openDataSource", of: DataSourceFactory.self, .prototype, from: .archsh,
    "a stored data source's DataSourceController, wired to its delegate",
    input: "a stored data source"
  ) { try $0.dataSource.library.create("factory-survey", sections: []) }

  static let recordingDelegateComponent = ComponentDeclaration<RecordingDelegate>(
    "recordingDelegate", of: DataSourceFactory.self, .prototype, from: .archsh,
    "the DataSourceControllerDelegate that shows each mutation's notifications"
  ) { $0.dataSource.recordingDelegate { nil } }

  static let emptyStateComponent = ComponentDeclaration<EmptyStateViewController>(
    "emptyStateViewController", of: DataSourceFactory.self, .prototype, from: .lickability,
    "what an empty list shows: a message, and a button whose tap runs its handler (seed 000)",
    input: "a view model"
  ) { $0.dataSource.emptyStateViewController(viewModel: .init(message: "Nothing here yet")) }

  static let tableViewProviderComponent = ComponentDeclaration<TableViewProvider>(
    "tableViewProvider", of: DataSourceFactory.self, .prototype, from: .mvcc,
    "a screen's list: its DataSourceController, cells, and row selection (the guide's provider)",
    input: "a screen's content"
  ) { root in
    root.dataSource.tableViewProvider(sections: [], registrations: [], background: nil) { _ in }
  }

  static let components = [
    dataSourceControllerComponent.component, libraryComponent.component,
    openDataSourceComponent.component, recordingDelegateComponent.component,
    emptyStateComponent.component, tableViewProviderComponent.component,
  ]

  /// A new DataSourceController with these sections, whose cells translate products with a new
  /// translator.
  public func dataSourceController(sections: [Section]) -> DataSourceController {
    core.prototype(Self.dataSourceControllerComponent) {
      DataSourceController(sections: sections, translator: root.model.productTranslator())
    }
  }

  /// The library of stored data sources.
  public var library: DataSourceLibrary {
    get throws {
      try core.singleton(Self.libraryComponent) {
        DataSourceLibrary(
          workspace: try root.workspace, factory: self, materials: documentMaterials())
      }
    }
  }

  /// What a stored data source is built with: its controller and its rows' coders.
  func documentMaterials() -> DataSourceMaterials {
    DataSourceMaterials(
      makeController: core.provider(of: Self.dataSourceControllerComponent) {
        [unowned self] sections in dataSourceController(sections: sections)
      }, encoder: root.json.encoder(), decoder: root.json.decoder())
  }

  /// A loaded data source wired to a new delegate.
  func openDataSource(document: DataSourceDocument) -> OpenDataSource {
    core.prototype(Self.openDataSourceComponent) {
      OpenDataSource(
        document: document,
        delegate: recordingDelegate { [unowned self, unowned document] in
          emptyState(of: document)
        })
    }
  }

  /// A new EmptyStateViewController.
  public func emptyStateViewController(viewModel: EmptyStateViewController.ViewModel)
    -> EmptyStateViewController
  {
    core.prototype(Self.emptyStateComponent) { EmptyStateViewController(viewModel: viewModel) }
  }

  /// The empty state of a stored data source, its button wired to the stored action.
  func emptyState(of document: DataSourceDocument) -> EmptyStateViewController? {
    guard let settings = document.emptyState else { return nil }
    var handler: (() throws -> String)?
    switch settings.action {
    case .addRow(let text)?:
      handler = { [unowned document] in
        try document.mutate("add(row:at:)") {
          $0.add(row: .text(text), at: IndexPath(row: 0, section: 0))
        }
        return "added '\(text)' as the first row"
      }
    case .loadProducts?:
      handler = { [unowned self, unowned document] in
        let products = try root.main.mediaLibrary.mediaItems()
        let sections = Section.byFamily(products, counting: "product")
        try document.mutate("update(allSections:)") { $0.update(allSections: sections) }
        return "loaded \(products.count) products in \(sections.count) sections"
      }
    case nil:
      handler = nil
    }
    return emptyStateViewController(
      viewModel: .init(
        message: settings.message, actionText: settings.actionText, actionHandler: handler))
  }

  /// A new delegate showing `background` when the data source is empty.
  public func recordingDelegate(background: @escaping () -> EmptyStateViewController?)
    -> RecordingDelegate
  {
    core.prototype(Self.recordingDelegateComponent) {
      RecordingDelegate(tracer: root.tracer, background: background)
    }
  }

  /// A new provider for a screen's list: a new DataSourceController with the content's sections
  /// and registrations, and the presenter's handling of a selected row.
  public func tableViewProvider(
    sections: [Section], registrations: [(modelType: String, controller: CellDataController.Type)],
    background: String?, didSelect: @escaping (IndexPath) throws(NavigationError) -> Void
  ) -> TableViewProvider {
    core.prototype(Self.tableViewProviderComponent) {
      TableViewProvider(
        dataSourceController: dataSourceController(sections: sections),
        registrations: registrations,
        background: background.map { emptyStateViewController(viewModel: .init(message: $0)) },
        didSelect: didSelect)
    }
  }

  /// The way a screen's controller makes a provider each time it loads its view; the screen
  /// depends on the providers from the moment it is built.
  func tableViewProviders() -> TableViewProviderMaker {
    core.provider(of: Self.tableViewProviderComponent) {
      [unowned self] sections, registrations, background, didSelect in
      tableViewProvider(
        sections: sections, registrations: registrations, background: background,
        didSelect: didSelect)
    }
  }
}
