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
/// Rows are stored in blocks of up to `blockLimit` rows, ordered by a fractional position, so a
/// row mutation rewrites one block (a few hundred rows) whatever the size of the data source, and
/// no mutation renumbers every row. A block that grows past the limit splits in two.
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
  private(set) var layout: [SectionLayout]
  /// The workspace's `foreignCommits` when this copy was last in step with it.
  private(set) var seenForeignCommits: UInt64 = 0

  /// The most rows a block holds before it splits.
  static let blockLimit = 1024
  /// How many rows a block is written with when a section is written whole.
  static let blockFill = 512

  struct SectionLayout {
    var id: Int64
    var order: Double
    var blocks: [BlockLayout]
  }

  struct BlockLayout {
    var id: Int64
    var order: Double
    var count: Int
  }

  init(
    name: String, controller: DataSourceController, emptyState: EmptyStateSettings?,
    layout: [SectionLayout], workspace: Workspace, materials: DataSourceMaterials, tracer: Tracing
  ) {
    self.name = name
    self.controller = controller
    self.emptyState = emptyState
    self.layout = layout
    self.workspace = workspace
    self.materials = materials
    self.tracer = tracer
  }

  // MARK: - Catalogue

  /// The names of the stored data sources, with their row and section counts.
  public static func list(in workspace: Workspace) throws -> [(
    name: String, sections: Int, rows: Int
  )] {
    try workspace.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT d.name, (SELECT COUNT(*) FROM ds_section s WHERE s.source = d.name) AS sections,
            (SELECT COALESCE(SUM(b.count), 0) FROM ds_section s JOIN ds_block b ON b.section = s.id
             WHERE s.source = d.name) AS rows
          FROM data_source d ORDER BY d.name
          """
      ).map { (name: $0["name"], sections: $0["sections"], rows: $0["rows"]) }
    }
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
        layout: [], workspace: workspace, materials: materials, tracer: tracer)
      try workspace.write("creating a data source") { db in
        if try Bool.fetchOne(db, sql: "SELECT 1 FROM data_source WHERE name = ?", arguments: [name])
          ?? false
        {
          throw DataSourceError.exists(name)
        }
        try db.execute(
          sql: "INSERT INTO data_source (name, registrations, background) VALUES (?, '{}', NULL)",
          arguments: [name])
        try document.writeAllSections(db)
      }
      span.setAttribute("rows", String(document.controller.totalRowCount))
      return document
    }
  }

  /// What the workspace holds of one data source.
  private struct Stored {
    var sections: [Section]
    var layout: [SectionLayout]
    var registrations: [String: String]
    var emptyState: EmptyStateSettings?
  }

  /// Reads the data source named `name` in `db`.
  private static func read(name: String, _ db: Database, materials: DataSourceMaterials) throws
    -> Stored
  {
    guard
      let source = try Row.fetchOne(
        db,
        sql: """
          SELECT registrations, background, empty_action_text, empty_action
          FROM data_source WHERE name = ?
          """,
        arguments: [name])
    else {
      let names = try String.fetchAll(db, sql: "SELECT name FROM data_source")
      throw DataSourceError.unknown(name, suggestion: Suggestion.nearest(to: name, among: names))
    }
    var sections: [Section] = []
    var layout: [SectionLayout] = []
    let sectionRows = try Row.fetchAll(
      db,
      sql: "SELECT id, ord, has_data, header, footer FROM ds_section WHERE source = ? ORDER BY ord",
      arguments: [name])
    for sectionRow in sectionRows {
      let id: Int64 = sectionRow["id"]
      var rows: [RowModel] = []
      var blockLayouts: [BlockLayout] = []
      let blocks = try FastStatement(
        db, "SELECT id, ord, count, rows FROM ds_block WHERE section = ? ORDER BY ord")
      blocks.bind(1, Int(id))
      while try blocks.step() {
        let decoded = try RowCoding.decode(blocks.data(3), decoder: materials.decoder)
        blockLayouts.append(
          BlockLayout(id: Int64(blocks.int(0)), order: blocks.double(1), count: decoded.count))
        rows += decoded
      }
      let data: SectionDataModel? =
        (sectionRow["has_data"] as Bool)
        ? SectionDataModel(header: sectionRow["header"], footer: sectionRow["footer"]) : nil
      sections.append(Section(sectionData: data, rows: rows))
      layout.append(SectionLayout(id: id, order: sectionRow["ord"], blocks: blockLayouts))
    }
    let registrations = (source["registrations"] as String?) ?? "{}"
    return Stored(
      sections: sections, layout: layout,
      registrations: (try? JSONSerialization.jsonObject(with: Data(registrations.utf8)))
        as? [String: String] ?? [:],
      emptyState: (source["background"] as String?).map {
        EmptyStateSettings(
          message: $0, actionText: source["empty_action_text"],
          action: EmptyStateAction(stored: source["empty_action"]))
      })
  }

  /// Loads a stored data source.
  static func open(
    name: String, in workspace: Workspace, materials: DataSourceMaterials, tracer: Tracing
  ) throws -> DataSourceDocument {
    try tracer.withSpan("DataSourceController", "load", attributes: [("name", name)]) { span in
      try workspace.read { db in
        let stored = try read(name: name, db, materials: materials)
        let controller = materials.makeController(stored.sections)
        for (modelType, controllerName) in stored.registrations {
          if let type = CellControllers.type(named: controllerName) {
            controller.register(dataController: type, for: modelType)
          }
        }
        span.setAttribute("rows", String(controller.totalRowCount))
        let document = DataSourceDocument(
          name: name, controller: controller, emptyState: stored.emptyState,
          layout: stored.layout, workspace: workspace, materials: materials, tracer: tracer)
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
    apply(try Self.read(name: name, db, materials: materials))
    seenForeignCommits = workspace.foreignCommits
  }

  /// Takes what the workspace holds as this copy's, without notifying.
  private func apply(_ stored: Stored) {
    controller.update(allSections: stored.sections, notify: false)
    for (modelType, controllerName) in stored.registrations {
      if let type = CellControllers.type(named: controllerName) {
        controller.register(dataController: type, for: modelType)
      }
    }
    layout = stored.layout
    emptyState = stored.emptyState
  }

  /// Reads the data source again when another archsh process has committed since.
  ///
  /// Returns whether it did. For commands that only read: a mutation catches up in its write.
  public func refresh() throws -> Bool {
    let now = try workspace.lookForForeignCommits()
    guard now != seenForeignCommits else { return false }
    apply(try workspace.read { db in try Self.read(name: name, db, materials: materials) })
    seenForeignCommits = now
    return true
  }

  /// Deletes a stored data source.
  public static func drop(name: String, in workspace: Workspace) throws {
    try workspace.write("dropping a data source") { db in
      try db.execute(sql: "DELETE FROM data_source WHERE name = ?", arguments: [name])
      guard db.changesCount > 0 else {
        let names = try String.fetchAll(db, sql: "SELECT name FROM data_source")
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
      try db.execute(
        sql: "UPDATE data_source SET registrations = ? WHERE name = ?", arguments: [json, name])
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
      try db.execute(
        sql: """
          UPDATE data_source SET background = ?, empty_action_text = ?, empty_action = ?
          WHERE name = ?
          """,
        arguments: [settings?.message, settings?.actionText, settings?.action?.stored, name])
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
        let fresh = try Self.open(
          name: name, in: workspace, materials: materials, tracer: tracer)
        controller.update(allSections: fresh.controller.sections, notify: false)
        layout = fresh.layout
        seenForeignCommits = fresh.seenForeignCommits
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

  private func persist(_ change: DataSourceController.Change, _ db: Database) throws {
    switch change {
    case .none: return
    case .insertedRow(let path):
      try rowInserted(at: path, db)
    case .updatedRows(let paths):
      var blocks = Set<[Int]>()
      for path in paths {
        let (block, _) = locate(row: path.row, in: path.section)
        blocks.insert([path.section, block])
      }
      for pair in blocks { try writeBlock(section: pair[0], block: pair[1], db) }
    case .removedRow(let path):
      try rowRemoved(at: path, db)
    case .rewroteSection(let index):
      try writeSection(at: index, db)
    case .insertedSection(let index):
      let before = index > 0 ? layout[index - 1].order : nil
      let after = index < layout.count ? layout[index].order : nil
      let order = Self.between(before, after)
      let id = try insertSection(controller.sections[index], order: order, db)
      layout.insert(SectionLayout(id: id, order: order, blocks: []), at: index)
      try writeBlocks(ofSection: index, db)
      if before == order || after == order { try renumberSections(db) }
    case .removedSection(let index):
      try db.execute(sql: "DELETE FROM ds_section WHERE id = ?", arguments: [layout[index].id])
      layout.remove(at: index)
    case .rewroteAll:
      try writeAllSections(db)
    }
  }

  /// The block holding `row` of a section, and the row's index inside it; a row one past the
  /// end belongs to the last block.
  private func locate(row: Int, in section: Int) -> (block: Int, offset: Int) {
    var start = 0
    let blocks = layout[section].blocks
    for (index, block) in blocks.enumerated() {
      if row < start + block.count || index == blocks.count - 1 { return (index, row - start) }
      start += block.count
    }
    return (0, row)
  }

  private func blockStart(section: Int, block: Int) -> Int {
    layout[section].blocks.prefix(block).reduce(0) { $0 + $1.count }
  }

  private func rowInserted(at path: IndexPath, _ db: Database) throws {
    guard !layout[path.section].blocks.isEmpty else {
      try writeBlocks(ofSection: path.section, db)
      return
    }
    let (block, _) = locate(row: path.row, in: path.section)
    layout[path.section].blocks[block].count += 1
    if layout[path.section].blocks[block].count > Self.blockLimit {
      try splitBlock(section: path.section, block: block, db)
    } else {
      try writeBlock(section: path.section, block: block, db)
    }
  }

  private func rowRemoved(at path: IndexPath, _ db: Database) throws {
    let (block, _) = locate(row: path.row, in: path.section)
    layout[path.section].blocks[block].count -= 1
    if layout[path.section].blocks[block].count == 0 {
      try db.execute(
        sql: "DELETE FROM ds_block WHERE id = ?",
        arguments: [layout[path.section].blocks[block].id])
      layout[path.section].blocks.remove(at: block)
    } else {
      try writeBlock(section: path.section, block: block, db)
    }
  }

  /// Writes a block's rows from the controller's section.
  private func writeBlock(section: Int, block: Int, _ db: Database) throws {
    let start = blockStart(section: section, block: block)
    let layoutBlock = layout[section].blocks[block]
    let rows = controller.sections[section].rows[start..<(start + layoutBlock.count)]
    let statement = try FastStatement(db, "UPDATE ds_block SET count = ?, rows = ? WHERE id = ?")
    statement.bind(1, layoutBlock.count)
    try statement.bind(2, RowCoding.encode(rows, encoder: materials.encoder))
    statement.bind(3, Int(layoutBlock.id))
    try statement.step()
  }

  /// Splits a block that grew past the limit into two halves.
  private func splitBlock(section: Int, block: Int, _ db: Database) throws {
    let blocks = layout[section].blocks
    let total = blocks[block].count
    let first = total / 2
    layout[section].blocks[block].count = first
    try writeBlock(section: section, block: block, db)
    let next = block + 1 < blocks.count ? blocks[block + 1].order : nil
    let order = Self.between(blocks[block].order, next)
    let start = blockStart(section: section, block: block) + first
    let id = try insertBlock(
      section: layout[section].id, order: order,
      rows: controller.sections[section].rows[start..<(start + total - first)], db)
    layout[section].blocks.insert(
      BlockLayout(id: id, order: order, count: total - first), at: block + 1)
    if order == blocks[block].order || order == next { try renumberBlocks(section: section, db) }
  }

  private func writeAllSections(_ db: Database) throws {
    try db.execute(sql: "DELETE FROM ds_section WHERE source = ?", arguments: [name])
    layout = []
    for (index, section) in controller.sections.enumerated() {
      let order = Double(index + 1)
      let id = try insertSection(section, order: order, db)
      layout.append(SectionLayout(id: id, order: order, blocks: []))
      try writeBlocks(ofSection: index, db)
    }
  }

  /// Rewrites a section's header, footer and rows.
  private func writeSection(at index: Int, _ db: Database) throws {
    let section = controller.sections[index]
    try db.execute(
      sql: "UPDATE ds_section SET has_data = ?, header = ?, footer = ? WHERE id = ?",
      arguments: [
        section.sectionData != nil, section.sectionData?.header, section.sectionData?.footer,
        layout[index].id,
      ])
    try writeBlocks(ofSection: index, db)
  }

  /// Replaces a section's blocks with its rows, `blockFill` to a block.
  private func writeBlocks(ofSection index: Int, _ db: Database) throws {
    let id = layout[index].id
    try db.execute(sql: "DELETE FROM ds_block WHERE section = ?", arguments: [id])
    let rows = controller.sections[index].rows
    var blocks: [BlockLayout] = []
    var start = 0
    while start < rows.count {
      let end = min(rows.count, start + Self.blockFill)
      let order = Double(blocks.count + 1)
      let blockID = try insertBlock(section: id, order: order, rows: rows[start..<end], db)
      blocks.append(BlockLayout(id: blockID, order: order, count: end - start))
      start = end
    }
    layout[index].blocks = blocks
  }

  private func insertSection(_ section: Section, order: Double, _ db: Database) throws -> Int64 {
    try db.execute(
      sql: "INSERT INTO ds_section (source, ord, has_data, header, footer) VALUES (?, ?, ?, ?, ?)",
      arguments: [
        name, order, section.sectionData != nil, section.sectionData?.header,
        section.sectionData?.footer,
      ])
    return db.lastInsertedRowID
  }

  private func insertBlock(
    section: Int64, order: Double, rows: ArraySlice<RowModel>, _ db: Database
  ) throws -> Int64 {
    let statement = try FastStatement(
      db, "INSERT INTO ds_block (section, ord, count, rows) VALUES (?, ?, ?, ?)")
    statement.bind(1, Int(section))
    statement.bind(2, order)
    statement.bind(3, rows.count)
    try statement.bind(4, RowCoding.encode(rows, encoder: materials.encoder))
    try statement.step()
    return db.lastInsertedRowID
  }

  /// Gives the sections evenly spaced positions again, when two came too close for a midpoint.
  private func renumberSections(_ db: Database) throws {
    for index in layout.indices {
      layout[index].order = Double(index + 1)
      try db.execute(
        sql: "UPDATE ds_section SET ord = ? WHERE id = ?",
        arguments: [layout[index].order, layout[index].id])
    }
  }

  private func renumberBlocks(section: Int, _ db: Database) throws {
    for index in layout[section].blocks.indices {
      layout[section].blocks[index].order = Double(index + 1)
      try db.execute(
        sql: "UPDATE ds_block SET ord = ? WHERE id = ?",
        arguments: [layout[section].blocks[index].order, layout[section].blocks[index].id])
    }
  }

  /// A position between two others; nil means the start or the end.
  static func between(_ lower: Double?, _ upper: Double?) -> Double {
    switch (lower, upper) {
    case (nil, nil): return 1
    case (let lower?, nil): return lower + 1
    case (nil, let upper?): return upper - 1
    case (let lower?, let upper?): return (lower + upper) / 2
    }
  }
}

/// Rows in a block's blob: for each row a kind byte, a 4-byte little-endian length, and UTF-8.
enum RowCoding {
  /// `encoder` is JSONFactory's: keys sorted, slashes unescaped.
  static func encode(_ rows: ArraySlice<RowModel>, encoder: JSONEncoder) throws -> Data {
    var data = Data()
    data.reserveCapacity(rows.count * 24)
    for row in rows {
      let kind: UInt8
      let text: String
      switch row {
      case .text(let value):
        kind = 0
        text = value
      case .product(let product):
        kind = 1
        text = String(decoding: try encoder.encode(product), as: UTF8.self)
      case .object(let type, let json):
        kind = 2
        text = type + "\n" + json
      }
      let bytes = Array(text.utf8)
      data.append(kind)
      withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { data.append(contentsOf: $0) }
      data.append(contentsOf: bytes)
    }
    return data
  }

  static func decode(_ data: Data, decoder: JSONDecoder) throws -> [RowModel] {
    var rows: [RowModel] = []
    try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
      var offset = 0
      while offset < buffer.count {
        guard offset + 5 <= buffer.count else {
          throw DataSourceError.corrupt("a block ends early")
        }
        let kind = buffer[offset]
        var length = 0
        for shift in 0..<4 { length |= Int(buffer[offset + 1 + shift]) << (8 * shift) }
        offset += 5
        guard offset + length <= buffer.count else {
          throw DataSourceError.corrupt("a row runs past its block")
        }
        let text = String(
          decoding: UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + length)]),
          as: UTF8.self)
        offset += length
        switch kind {
        case 0: rows.append(.text(text))
        case 1:
          let product = try decoder.decode(Product.self, from: Data(text.utf8))
          rows.append(.product(product))
        case 2:
          let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
          guard parts.count == 2 else { throw DataSourceError.corrupt("an object row has no type") }
          rows.append(.object(type: String(parts[0]), json: String(parts[1])))
        default:
          throw DataSourceError.corrupt("unknown row kind \(kind)")
        }
      }
    }
    return rows
  }
}

extension DataSourceDocument {
  /// The data sources' tables.
  ///
  /// Data sources: sections ordered by position, rows in blocks ordered by position, so that
  /// a row mutation rewrites one block and nothing renumbers every row.
  /// The empty state's button: its title and what it does (`add-row:TEXT` or `products`).
  static let emptyStateMigration = Migration(identifier: "v10-empty-state-actions") { db in
    try db.execute(
      sql: """
        ALTER TABLE data_source ADD COLUMN empty_action_text TEXT;
        ALTER TABLE data_source ADD COLUMN empty_action TEXT;
        """)
  }

  static let migration = Migration(identifier: "v3-data-sources") { db in
    try db.execute(
      sql: """
        CREATE TABLE data_source (
          name TEXT NOT NULL PRIMARY KEY,
          registrations TEXT NOT NULL DEFAULT '{}',
          background TEXT
        ) WITHOUT ROWID;
        CREATE TABLE ds_section (
          id INTEGER PRIMARY KEY,
          source TEXT NOT NULL REFERENCES data_source(name) ON DELETE CASCADE,
          ord REAL NOT NULL,
          has_data INTEGER NOT NULL DEFAULT 0,
          header TEXT,
          footer TEXT
        );
        CREATE INDEX ds_section_by_order ON ds_section(source, ord);
        CREATE TABLE ds_block (
          id INTEGER PRIMARY KEY,
          section INTEGER NOT NULL REFERENCES ds_section(id) ON DELETE CASCADE,
          ord REAL NOT NULL,
          count INTEGER NOT NULL,
          rows BLOB NOT NULL
        );
        CREATE INDEX ds_block_by_order ON ds_block(section, ord);
        """)
  }
}
