import Foundation
import GRDB
import Plumbing
import Runtime

/// What a stored data source is built with, handed over by DataSourceFactory: the way to make its
/// DataSourceController, and the coders of its product rows.
struct DataSourceMaterials {
  /// A new controller with these sections.
  let makeController: ([Section]) -> DataSourceController
  /// Encodes a product row.
  let encoder: JSONEncoder
  /// Decodes a product row.
  let decoder: JSONDecoder
}

/// A data source kept in the workspace: its DataSourceController in memory, and its sections and
/// rows in SQLite, written incrementally after each mutation.
///
/// The controller mutates as the original does; what it changed (`lastChange`) is then written by
/// the runtime's block store (`DataSourceBlocks`: rows in blocks, a mutation rewrites one block).
///
/// It is not Sendable: the compiler keeps it where it was made, the thread that runs commands.
public final class DataSourceDocument {
  /// The data source's name.
  public let name: String
  /// The controller, with its sections and registrations.
  public let controller: DataSourceController
  /// What the delegate's background shows while there are no rows: a message, and a button
  /// with its action; nil for nothing.
  public private(set) var emptyState: EmptyStateSettings?
  /// The empty state's message; nil for none.
  public var backgroundMessage: String? { emptyState?.message }
  private let workspace: Workspace
  private let materials: DataSourceMaterials
  private let tracer: Tracing
  /// Where its rows are stored.
  let blocks: DataSourceBlocks
  /// The workspace's `foreignCommits` when this copy was last in step with it.
  private(set) var seenForeignCommits: UInt64 = 0

  init(
    name: String, controller: DataSourceController, emptyState: EmptyStateSettings?,
    blocks: DataSourceBlocks, workspace: Workspace, materials: DataSourceMaterials,
    tracer: Tracing
  ) {
    self.name = name
    self.controller = controller
    self.emptyState = emptyState
    self.blocks = blocks
    self.workspace = workspace
    self.materials = materials
    self.tracer = tracer
  }

  /// The controller's sections as the block store reads them.
  private var source: ControllerRows {
    ControllerRows(controller: controller, materials: materials)
  }

  // MARK: - Catalogue

  /// The names of the stored data sources, with their row and section counts.
  public static func list(in workspace: Workspace) throws -> [(
    name: String, sections: Int, rows: Int
  )] {
    try workspace.read { db in try DataSourceBlocks.list(db) }
  }

  /// Creates a data source with these sections and stores it.
  static func create(
    name: String, sections: [Section], in workspace: Workspace, materials: DataSourceMaterials,
    tracer: Tracing
  ) throws -> DataSourceDocument {
    try tracer.withSpan(
      "DataSourceController", "init(sections:)",
      attributes: [("name", name), ("sections", String(sections.count))]
    ) { span in
      let document = DataSourceDocument(
        name: name, controller: materials.makeController(sections), emptyState: nil,
        blocks: DataSourceBlocks(name: name), workspace: workspace, materials: materials,
        tracer: tracer)
      try workspace.write("creating a data source") { db in
        guard try document.blocks.create(db) else { throw DataSourceError.exists(name) }
        try document.blocks.writeAll(db, from: document.source)
      }
      span.setAttribute("rows", String(document.controller.totalRowCount))
      return document
    }
  }

  /// What the workspace holds of one data source.
  private struct Stored {
    var sections: [Section]
    var registrations: [String: String]
    var emptyState: EmptyStateSettings?
  }

  /// Reads the data source that `blocks` stores, in `db`; its layout is the blocks' own.
  private static func read(
    _ blocks: DataSourceBlocks, _ db: Database, materials: DataSourceMaterials
  ) throws -> Stored {
    let name = blocks.name
    let stored: StoredDataSource<RowModel>
    do {
      guard
        let read = try blocks.read(
          db,
          makeRow: { kind, text in
            try RowCoding.rowModel(StoredRow(kind: kind, text: text), decoder: materials.decoder)
          })
      else {
        throw DataSourceError.unknown(
          name, suggestion: Suggestion.nearest(to: name, among: try DataSourceBlocks.names(db)))
      }
      stored = read
    } catch let corrupt as CorruptBlock {
      throw DataSourceError.corrupt(corrupt.description)
    }
    let sections = stored.sections.map { head, rows in
      Section(
        sectionData: head.hasData
          ? SectionDataModel(header: head.header, footer: head.footer) : nil,
        rows: rows)
    }
    return Stored(
      sections: sections,
      registrations: (try? JSONSerialization.jsonObject(with: Data(stored.registrations.utf8)))
        as? [String: String] ?? [:],
      emptyState: stored.background.map {
        EmptyStateSettings(
          message: $0, actionText: stored.emptyActionText,
          action: EmptyStateAction(stored: stored.emptyAction))
      })
  }

  /// Loads a stored data source.
  static func open(
    name: String, in workspace: Workspace, materials: DataSourceMaterials, tracer: Tracing
  ) throws -> DataSourceDocument {
    try tracer.withSpan("DataSourceController", "load", attributes: [("name", name)]) { span in
      try workspace.read { db in
        let blocks = DataSourceBlocks(name: name)
        let stored = try read(blocks, db, materials: materials)
        let controller = materials.makeController(stored.sections)
        register(stored.registrations, in: controller)
        span.setAttribute("rows", String(controller.totalRowCount))
        let document = DataSourceDocument(
          name: name, controller: controller, emptyState: stored.emptyState, blocks: blocks,
          workspace: workspace, materials: materials, tracer: tracer)
        document.seenForeignCommits = workspace.foreignCommits
        return document
      }
    }
  }

  /// Reads the data source again, without notifying, when another archsh process has committed
  /// since this one was last in step with the workspace; call it inside a write, which holds the
  /// workspace's write lock, so that a mutation applies to what the workspace holds.
  private func catchUp(_ db: Database) throws {
    guard workspace.foreignCommits != seenForeignCommits else { return }
    apply(try Self.read(blocks, db, materials: materials))
    seenForeignCommits = workspace.foreignCommits
  }

  /// Takes what the workspace holds as this copy's, without notifying.
  private func apply(_ stored: Stored) {
    controller.update(allSections: stored.sections, notify: false)
    Self.register(stored.registrations, in: controller)
    emptyState = stored.emptyState
  }

  /// Registers the stored cell controllers, by model type; a name archsh does not know is left
  /// out.
  private static func register(
    _ registrations: [String: String], in controller: DataSourceController
  ) {
    for (modelType, controllerName) in registrations {
      if let type = CellControllers.type(named: controllerName) {
        controller.register(dataController: type, for: modelType)
      }
    }
  }

  /// Reads the data source again when another archsh process has committed since.
  ///
  /// Returns whether it did. For commands that only read: a mutation catches up in its write.
  public func refresh() throws -> Bool {
    let now = try workspace.lookForForeignCommits()
    guard now != seenForeignCommits else { return false }
    apply(try workspace.read { db in try Self.read(blocks, db, materials: materials) })
    seenForeignCommits = now
    return true
  }

  /// Deletes a stored data source.
  public static func drop(name: String, in workspace: Workspace) throws {
    try workspace.write("dropping a data source") { db in
      guard try DataSourceBlocks.drop(db, name: name) else {
        let names = try DataSourceBlocks.names(db)
        throw DataSourceError.unknown(name, suggestion: Suggestion.nearest(to: name, among: names))
      }
    }
  }

  // MARK: - Settings

  /// Registers a cell data controller for a model type, and stores the registration.
  public func register(dataController: CellDataController.Type, for modelType: String) throws {
    try workspace.write("registering a cell controller") { db in
      try catchUp(db)
      controller.register(dataController: dataController, for: modelType)
      let object = Dictionary(
        uniqueKeysWithValues: controller.registeredControllers.map {
          ($0.modelType, $0.controller)
        })
      let json = String(
        decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
        as: UTF8.self)
      try blocks.setRegistrations(db, json)
      seenForeignCommits = workspace.foreignCommits
    }
    announceChange()
  }

  /// Tells the views (the board's Data sources panel) that the data source changed without a
  /// delegate notification: a registration, an empty state.
  private func announceChange() {
    let name = self.name
    tracer.events.publish(.dataSource) {
      .dataSource(DataSourceChange(name: name, notification: nil))
    }
  }

  /// Sets what is shown when there are no rows; nil shows nothing.
  public func setEmptyState(_ settings: EmptyStateSettings?) throws {
    try workspace.write("setting the empty state") { db in
      try blocks.setEmptyState(
        db, message: settings?.message, actionText: settings?.actionText,
        action: settings?.action?.stored)
    }
    emptyState = settings
    announceChange()
  }

  /// Sets the text shown when there are no rows, without a button; nil shows none.
  public func setBackground(_ message: String?) throws {
    try setEmptyState(message.map { EmptyStateSettings(message: $0) })
  }

  // MARK: - Mutations

  /// Runs one of the controller's mutations, then writes what it changed in one transaction.
  ///
  /// On a write error the data source is reloaded from the workspace, so memory never shows what
  /// was not stored.
  public func mutate(_ operation: String, _ body: (DataSourceController) -> Void) throws {
    try tracer.withSpan("DataSourceController", operation, attributes: [("name", name)]) { span in
      do {
        try workspace.write("changing a data source") { db in
          // Another process may have changed the data source since this one read it: the
          // mutation applies to what the workspace holds now.
          try catchUp(db)
          body(controller)
          let change = controller.lastChange
          span.setAttribute("sql", Self.sqlSummary(change))
          try persist(change, db)
          seenForeignCommits = workspace.foreignCommits
        }
      } catch {
        // Reading takes the blocks' layout too, as it is in the workspace.
        apply(try workspace.read { db in try Self.read(blocks, db, materials: materials) })
        seenForeignCommits = workspace.foreignCommits
        throw error
      }
    }
  }

  static func sqlSummary(_ change: DataSourceController.Change) -> String {
    switch change {
    case .none: return "none"
    case .insertedRow, .updatedRows, .removedRow: return "UPDATE ds_block"
    case .rewroteSection, .insertedSection: return "DELETE + INSERT ds_block"
    case .removedSection: return "DELETE ds_section"
    case .rewroteAll: return "DELETE + INSERT ds_section, ds_block"
    }
  }

  /// Writes what a mutation changed, as the block store's operation for it.
  private func persist(_ change: DataSourceController.Change, _ db: Database) throws {
    switch change {
    case .none: return
    case .insertedRow(let path):
      try blocks.rowInserted(db, section: path.section, row: path.row, from: source)
    case .updatedRows(let paths):
      try blocks.rowsUpdated(db, paths.map { ($0.section, $0.row) }, from: source)
    case .removedRow(let path):
      try blocks.rowRemoved(db, section: path.section, row: path.row, from: source)
    case .rewroteSection(let index): try blocks.sectionRewritten(db, at: index, from: source)
    case .insertedSection(let index): try blocks.sectionInserted(db, at: index, from: source)
    case .removedSection(let index): try blocks.sectionRemoved(db, at: index)
    case .rewroteAll: try blocks.writeAll(db, from: source)
    }
  }
}

/// The controller's sections, as the block store reads them: a row's kind and text.
private struct ControllerRows: BlockSource {
  let controller: DataSourceController
  let materials: DataSourceMaterials

  var sectionCount: Int { controller.sections.count }

  func head(ofSection section: Int) -> StoredSectionHead {
    let data = controller.sections[section].sectionData
    return StoredSectionHead(hasData: data != nil, header: data?.header, footer: data?.footer)
  }

  func rowCount(inSection section: Int) -> Int { controller.sections[section].rows.count }

  func rows(inSection section: Int, _ range: Range<Int>) throws -> [StoredRow] {
    try controller.sections[section].rows[range].map {
      try RowCoding.storedRow($0, encoder: materials.encoder)
    }
  }
}

extension RowCoding {
  /// A row as stored: kind 0 text, 1 a product (its JSON, `encoder` being JSONFactory's: keys
  /// sorted, slashes unescaped), 2 an object (its type, a newline, its JSON).
  static func storedRow(_ row: RowModel, encoder: JSONEncoder) throws -> StoredRow {
    switch row {
    case .text(let value): return StoredRow(kind: 0, text: value)
    case .product(let product):
      return StoredRow(kind: 1, text: String(decoding: try encoder.encode(product), as: UTF8.self))
    case .object(let type, let json): return StoredRow(kind: 2, text: type + "\n" + json)
    }
  }

  /// The row a stored row holds.
  static func rowModel(_ row: StoredRow, decoder: JSONDecoder) throws -> RowModel {
    switch row.kind {
    case 0: return .text(row.text)
    case 1: return .product(try decoder.decode(Product.self, from: Data(row.text.utf8)))
    case 2:
      // Split at the first line feed byte: a type stored by an earlier archsh may end with a
      // carriage return, and "\r\n" is one Character, which a split on "\n" would not find.
      let text = row.text.utf8
      guard let newline = text.firstIndex(of: UInt8(ascii: "\n")) else {
        throw DataSourceError.corrupt("an object row has no type")
      }
      return .object(
        type: String(decoding: text[..<newline], as: UTF8.self),
        json: String(decoding: text[text.index(after: newline)...], as: UTF8.self))
    default:
      throw DataSourceError.corrupt("unknown row kind \(row.kind)")
    }
  }
}
