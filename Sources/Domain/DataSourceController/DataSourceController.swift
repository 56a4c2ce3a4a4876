import Foundation

/// What a mutation tells the delegate (the seed's three `dataSourceWasMutated` calls).
public enum DataSourceMutation: Sendable, Equatable, CustomStringConvertible {
  /// Reload everything.
  case all
  /// Reload one section.
  case section(Int)
  /// Reload these rows.
  case rows([IndexPath])

  /// `mutated(all)`, `mutated(section: 2)` or `mutated(rows: [1-0, 1-3])`.
  public var description: String {
    switch self {
    case .all: return "mutated(all)"
    case .section(let index): return "mutated(section: \(index))"
    case .rows(let paths):
      return "mutated(rows: [\(paths.map(\.shortDescription).joined(separator: ", "))])"
    }
  }
}

/// Hears about mutations, and supplies the view shown when there are no rows (the seed's
/// `DataSourceControllerDelegate`; every method is optional).
public protocol DataSourceControllerDelegate: AnyObject {
  /// The background shown while `totalRowCount` is 0: seed 000's EmptyStateViewController, or
  /// nil for nothing.
  func backgroundEmptyView() -> EmptyStateViewController?
  /// Everything changed.
  func dataSourceWasMutated(_ controller: DataSourceController)
  /// One section changed.
  func dataSourceWasMutated(_ controller: DataSourceController, section: Int)
  /// These rows changed.
  func dataSourceWasMutated(_ controller: DataSourceController, rows: [IndexPath])
}

extension DataSourceControllerDelegate {
  /// No background by default.
  public func backgroundEmptyView() -> EmptyStateViewController? { nil }
  /// Ignored by default.
  public func dataSourceWasMutated(_ controller: DataSourceController) {}
  /// Ignored by default.
  public func dataSourceWasMutated(_ controller: DataSourceController, section: Int) {}
  /// Ignored by default.
  public func dataSourceWasMutated(_ controller: DataSourceController, rows: [IndexPath]) {}
}

/// Sections of rows, cell data controllers registered per model type, and mutations that tell a
/// delegate what to reload: peredaniel's DataSourceController 1.2.0 (seed 002), without UIKit.
///
/// Where the original and its documentation disagree, archsh follows the code: `add(row:at:)` into
/// a section that does not exist appends a new one-row section and notifies a whole reload (the
/// documentation says it notifies the section).
///
/// It is not Sendable: the compiler keeps it where it was made, the thread that runs commands.
public final class DataSourceController {
  /// What the last mutation changed, so that the store can write only that.
  enum Change: Equatable {
    case none
    case insertedRow(IndexPath)
    case updatedRows([IndexPath])
    case removedRow(IndexPath)
    case rewroteSection(Int)
    case insertedSection(Int)
    case removedSection(Int)
    case rewroteAll
  }

  /// The sections, in order.
  public private(set) var sections: [Section]
  /// Hears about mutations.
  public weak var delegate: DataSourceControllerDelegate?
  /// Turns a product row into what its cell shows; handed to the cell data controllers.
  public let translator: ProductToProductCellViewModelTranslator
  private(set) var registrations: [String: CellDataController.Type] = [:]
  private(set) var lastChange: Change = .none

  /// One section with one row.
  public convenience init(
    row: RowModel, translator: ProductToProductCellViewModelTranslator,
    delegate: DataSourceControllerDelegate? = nil
  ) {
    self.init(sections: [Section(rows: [row])], translator: translator, delegate: delegate)
  }

  /// One section with these rows.
  public convenience init(
    rows: [RowModel], translator: ProductToProductCellViewModelTranslator,
    delegate: DataSourceControllerDelegate? = nil
  ) {
    self.init(sections: [Section(rows: rows)], translator: translator, delegate: delegate)
  }

  /// One section.
  public convenience init(
    section: Section, translator: ProductToProductCellViewModelTranslator,
    delegate: DataSourceControllerDelegate? = nil
  ) {
    self.init(sections: [section], translator: translator, delegate: delegate)
  }

  /// These sections.
  ///
  /// The seed's initializers take no translator; archsh's cells translate products through one
  /// that the factory builds and injects here (DataSourceFactory builds every controller).
  public init(
    sections: [Section], translator: ProductToProductCellViewModelTranslator,
    delegate: DataSourceControllerDelegate? = nil
  ) {
    self.sections = sections
    self.translator = translator
    self.delegate = delegate
  }

  // MARK: - Registration and queries

  /// Uses `dataController` for models of exactly `modelType`; registering again overwrites.
  public func register(dataController: CellDataController.Type, for modelType: String) {
    registrations[modelType] = dataController
  }

  /// The registrations, by model type.
  public var registeredControllers: [(modelType: String, controller: String)] {
    registrations.map { ($0.key, CellControllers.name(of: $0.value)) }.sorted { $0.0 < $1.0 }
  }

  /// The number of rows in every section: the emptiness test.
  public var totalRowCount: Int { sections.reduce(0) { $0 + $1.rows.count } }

  /// The model at `indexPath`, or nil when it is out of bounds.
  public func modelObject(at indexPath: IndexPath) -> RowModel? {
    guard sections.indices.contains(indexPath.section),
      sections[indexPath.section].rows.indices.contains(indexPath.row)
    else { return nil }
    return sections[indexPath.section].rows[indexPath.row]
  }

  /// The data controller for the cell at `indexPath`: the registered one for the model's type, the
  /// model itself when it is a data controller, or the error cell.
  public func cellDataController(at indexPath: IndexPath) -> CellDataController {
    guard let model = modelObject(at: indexPath) else {
      return ErrorCellDataController(indexPath: indexPath)
    }
    if let direct = CellControllers.direct(model, translator: translator) { return direct }
    guard let type = registrations[model.modelType] else {
      return ErrorCellDataController(indexPath: indexPath)
    }
    return type.populate(with: model, translator: translator)
  }

  /// The header and footer controller of a section.
  public func sectionDataController(at index: Int) -> SectionDataController? {
    guard sections.indices.contains(index), let data = sections[index].sectionData else {
      return nil
    }
    return SectionDataController(data)
  }

  // MARK: - Row mutations

  /// Inserts a row.
  ///
  /// A section out of bounds gets a new one-row section appended (and a whole reload); a row out of
  /// bounds is appended to its section.
  public func add(row: RowModel, at indexPath: IndexPath, notify: Bool = true) {
    guard sections.indices.contains(indexPath.section) else {
      sections.append(Section(rows: [row]))
      finish(.insertedSection(sections.count - 1), .all, notify)
      return
    }
    let section = sections[indexPath.section]
    let row0 = (0...section.rows.count).contains(indexPath.row) ? indexPath.row : section.rows.count
    section.rows.insert(row, at: row0)
    finish(
      .insertedRow(IndexPath(row: row0, section: indexPath.section)),
      .section(indexPath.section), notify)
  }

  /// Replaces a row; out of bounds does nothing.
  public func update(row: RowModel, at indexPath: IndexPath, notify: Bool = true) {
    guard modelObject(at: indexPath) != nil else {
      lastChange = .none
      return
    }
    sections[indexPath.section].rows[indexPath.row] = row
    finish(.updatedRows([indexPath]), .rows([indexPath]), notify)
  }

  /// Replaces a section's rows, keeping its header and footer; out of bounds does nothing.
  public func update(rows: [RowModel], atSection index: Int, notify: Bool = true) {
    guard sections.indices.contains(index) else {
      lastChange = .none
      return
    }
    sections[index].rows = rows
    finish(
      .rewroteSection(index), .rows(rows.indices.map { IndexPath(row: $0, section: index) }),
      notify)
  }

  /// Replaces several rows; invalid index paths are skipped, and the rows actually changed are
  /// notified (an empty dictionary notifies none).
  ///
  /// As in the original (1.2.0), the whole update is skipped, and nothing notified, when the
  /// largest section index among the paths is out of bounds (0 when there are none): one path in
  /// a section that does not exist voids the others too, and an empty dictionary on a data source
  /// without sections does nothing. A row out of bounds in an existing section is skipped alone.
  public func update(rows: [IndexPath: RowModel], notify: Bool = true) {
    guard sections.indices.contains(rows.keys.map(\.section).max() ?? 0) else {
      lastChange = .none
      return
    }
    var changed: [IndexPath] = []
    for (indexPath, row) in rows.sorted(by: { $0.key < $1.key })
    where modelObject(at: indexPath) != nil {
      sections[indexPath.section].rows[indexPath.row] = row
      changed.append(indexPath)
    }
    finish(changed.isEmpty ? .none : .updatedRows(changed), .rows(changed), notify)
  }

  /// Removes a row; removing a section's last row removes the section.
  ///
  /// Notifies a whole reload; out of bounds does nothing.
  public func remove(rowAt indexPath: IndexPath, notify: Bool = true) {
    guard modelObject(at: indexPath) != nil else {
      lastChange = .none
      return
    }
    sections[indexPath.section].rows.remove(at: indexPath.row)
    if sections[indexPath.section].rows.isEmpty {
      sections.remove(at: indexPath.section)
      finish(.removedSection(indexPath.section), .all, notify)
    } else {
      finish(.removedRow(indexPath), .all, notify)
    }
  }

  // MARK: - Section mutations

  /// Inserts a section; nil or out of bounds appends.
  public func add(section: Section, at index: Int? = nil, notify: Bool = true) {
    let position = index.flatMap { (0...sections.count).contains($0) ? $0 : nil } ?? sections.count
    sections.insert(section, at: position)
    finish(.insertedSection(position), .all, notify)
  }

  /// Replaces a section; out of bounds does nothing.
  public func update(section: Section, at index: Int, notify: Bool = true) {
    guard sections.indices.contains(index) else {
      lastChange = .none
      return
    }
    sections[index] = section
    finish(.rewroteSection(index), .section(index), notify)
  }

  /// Replaces a section's header and footer; out of bounds does nothing.
  public func update(sectionData: SectionDataModel?, at index: Int, notify: Bool = true) {
    guard sections.indices.contains(index) else {
      lastChange = .none
      return
    }
    sections[index].sectionData = sectionData
    finish(.rewroteSection(index), .section(index), notify)
  }

  /// Replaces every section.
  public func update(allSections: [Section], notify: Bool = true) {
    sections = allSections
    finish(.rewroteAll, .all, notify)
  }

  /// Removes a section; out of bounds does nothing.
  public func remove(sectionAt index: Int, notify: Bool = true) {
    guard sections.indices.contains(index) else {
      lastChange = .none
      return
    }
    sections.remove(at: index)
    finish(.removedSection(index), .all, notify)
  }

  /// Removes every section.
  public func removeAllSections(notify: Bool = true) {
    sections.removeAll()
    finish(.rewroteAll, .all, notify)
  }

  private func finish(_ change: Change, _ mutation: DataSourceMutation, _ notify: Bool) {
    lastChange = change
    guard notify, let delegate else { return }
    switch mutation {
    case .all: delegate.dataSourceWasMutated(self)
    case .section(let index): delegate.dataSourceWasMutated(self, section: index)
    case .rows(let rows): delegate.dataSourceWasMutated(self, rows: rows)
    }
  }
}

/// Whether a collection has elements: what TableViewDataSource tells its delegate about.
public enum CollectionState: String, Sendable, Equatable {
  /// No elements.
  case empty
  /// At least one element.
  case nonEmpty
}

/// Hears when a TableViewDataSource's collection becomes empty or stops being empty.
public protocol TableViewDataSourceDelegate: AnyObject {
  /// The state changed; it is not called when it stays the same.
  func collectionStateDidChange(_ state: CollectionState)
}

/// Lickability's generic single-section data source (seed 000): the delegate hears about the
/// collection's state only on empty↔non-empty transitions, and out-of-range access logs an
/// assertion message and gives a blank cell instead of crashing.
///
/// It is not Sendable: the compiler keeps it where it was made, the thread that runs commands.
public final class TableViewDataSource<Element: Sendable> {
  /// The elements, in row order.
  public private(set) var collection: [Element]
  /// Hears about transitions.
  public weak var delegate: TableViewDataSourceDelegate?
  /// Where assertion messages go.
  public var log: (String) -> Void

  /// Creates a data source.
  public init(
    collection: [Element] = [], delegate: TableViewDataSourceDelegate? = nil,
    log: @escaping (String) -> Void = { _ in }
  ) {
    self.collection = collection
    self.delegate = delegate
    self.log = log
  }

  /// `empty` or `nonEmpty`.
  public var collectionState: CollectionState { collection.isEmpty ? .empty : .nonEmpty }

  /// The element for a row, or nil (with an assertion message) when out of range.
  public func element(at indexPath: IndexPath) -> Element? {
    guard indexPath.section == 0, collection.indices.contains(indexPath.row) else {
      log(
        "assertionFailure: no element at \(indexPath.shortDescription) (the collection has \(collection.count)); drawing a blank cell"
      )
      return nil
    }
    return collection[indexPath.row]
  }

  /// Appends an element and returns its index path.
  @discardableResult
  public func add(element: Element) -> IndexPath {
    mutate { $0.append(element) }
    return IndexPath(row: collection.count - 1, section: 0)
  }

  /// Removes the element at a row; out of range logs an assertion message and does nothing.
  public func removeElement(at indexPath: IndexPath) {
    guard element(at: indexPath) != nil else { return }
    mutate { $0.remove(at: indexPath.row) }
  }

  /// Replaces the collection.
  public func update(collection: [Element]) { mutate { $0 = collection } }

  private func mutate(_ body: (inout [Element]) -> Void) {
    let before = collectionState
    body(&collection)
    if collectionState != before { delegate?.collectionStateDidChange(collectionState) }
  }
}
