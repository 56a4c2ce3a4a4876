import Foundation
import GRDB
import Plumbing

/// A row as the block store keeps it: a kind (the caller's, such as text, product or object) and
/// its text.
package struct StoredRow: Equatable, Sendable {
  /// The caller's kind.
  package var kind: UInt8
  /// The row's text.
  package var text: String

  /// A row of `kind` holding `text`.
  package init(kind: UInt8, text: String) {
    self.kind = kind
    self.text = text
  }
}

/// A section's header and footer as stored; `hasData` false for a section without them.
package struct StoredSectionHead: Equatable, Sendable {
  /// Whether the section has a header and footer at all.
  package var hasData: Bool
  /// The header.
  package var header: String?
  /// The footer.
  package var footer: String?

  /// A head.
  package init(hasData: Bool, header: String?, footer: String?) {
    self.hasData = hasData
    self.header = header
    self.footer = footer
  }
}

/// A data source as the workspace holds it, each row made an `Element` as it is read.
package struct StoredDataSource<Element> {
  /// Its sections, in order, with their rows.
  package var sections: [(head: StoredSectionHead, rows: [Element])]
  /// The cell controllers registered for model types, as a JSON object.
  package var registrations: String
  /// The empty state's message; nil for none.
  package var background: String?
  /// The empty state's button title.
  package var emptyActionText: String?
  /// The empty state's button action, as stored.
  package var emptyAction: String?
}

/// What the block store reads a data source's rows from when it writes them: the controller's
/// sections, as the caller encodes them.
package protocol BlockSource {
  /// How many sections there are.
  var sectionCount: Int { get }
  /// The header and footer of section `section`.
  func head(ofSection section: Int) -> StoredSectionHead
  /// How many rows section `section` holds.
  func rowCount(inSection section: Int) -> Int
  /// The rows `range` of section `section`, encoded.
  func rows(inSection section: Int, _ range: Range<Int>) throws -> [StoredRow]
}

/// Why stored rows could not be read.
package struct CorruptBlock: Error, CustomStringConvertible {
  /// What is wrong.
  package let description: String
}

/// The data sources' block storage (`data_source`, `ds_section`, `ds_block`).
///
/// Sections are ordered by a fractional position, and their rows are in blocks of up to
/// `blockLimit` rows, so that a row mutation rewrites one block (a few hundred rows) whatever the
/// size of the data source, and no mutation renumbers every row. A block that grows past the
/// limit splits in two.
///
/// Each operation runs in a transaction the caller opened. It is not Sendable: it keeps the
/// layout of the blocks of one data source, on the thread that made it.
package final class DataSourceBlocks {
  /// The most rows a block holds before it splits.
  package static let blockLimit = 1024
  /// How many rows a block is written with when a section is written whole.
  package static let blockFill = 512

  /// Where a section is, and its blocks.
  package struct SectionLayout {
    /// Its row id.
    package var id: Int64
    /// Its position.
    package var order: Double
    /// Its blocks, in order.
    package var blocks: [BlockLayout]
  }

  /// Where a block is, and how many rows it holds.
  package struct BlockLayout {
    /// Its row id.
    package var id: Int64
    /// Its position in its section.
    package var order: Double
    /// How many rows it holds.
    package var count: Int
  }

  /// The data source's name.
  package let name: String
  /// Where its sections and blocks are, as last read or written.
  package private(set) var layout: [SectionLayout] = []

  /// The blocks of the data source `name`; `read` or `writeAll` gives them their layout.
  package init(name: String) { self.name = name }

  // MARK: - Catalogue

  /// The names of the stored data sources, with their section and row counts.
  package static func list(_ db: Database) throws -> [(name: String, sections: Int, rows: Int)] {
    try Row.fetchAll(
      db,
      sql: """
        SELECT d.name, (SELECT COUNT(*) FROM ds_section s WHERE s.source = d.name) AS sections,
          (SELECT COALESCE(SUM(b.count), 0) FROM ds_section s JOIN ds_block b ON b.section = s.id
           WHERE s.source = d.name) AS rows
        FROM data_source d ORDER BY d.name
        """
    ).map {
      try (
        name: $0.stored("name", of: "data_source"),
        sections: $0.storedCount("sections", of: "ds_section"),
        rows: $0.storedCount("rows", of: "ds_block")
      )
    }
  }

  /// The names of the stored data sources.
  package static func names(_ db: Database) throws -> [String] {
    try String.fetchAll(db, sql: "SELECT name FROM data_source")
  }

  /// Stores a new data source with no sections; false when one has the name already.
  package func create(_ db: Database) throws -> Bool {
    if try Bool.fetchOne(db, sql: "SELECT 1 FROM data_source WHERE name = ?", arguments: [name])
      ?? false
    {
      return false
    }
    try db.execute(
      sql: "INSERT INTO data_source (name, registrations, background) VALUES (?, '{}', NULL)",
      arguments: [name])
    layout = []
    return true
  }

  /// Deletes the stored data source `name`; false when there is none.
  package static func drop(_ db: Database, name: String) throws -> Bool {
    try db.execute(sql: "DELETE FROM data_source WHERE name = ?", arguments: [name])
    return db.changesCount > 0
  }

  /// Reads the data source, each row made by `makeRow` from its kind and text, and takes its
  /// layout; nil when none has the name.
  package func read<Element>(
    _ db: Database, makeRow: (_ kind: UInt8, _ text: String) throws -> Element
  ) throws -> StoredDataSource<Element>? {
    guard
      let source = try Row.fetchOne(
        db,
        sql: """
          SELECT name, registrations, background, empty_action_text, empty_action
          FROM data_source WHERE name = ?
          """,
        arguments: [name])
    else { return nil }
    var sections: [(head: StoredSectionHead, rows: [Element])] = []
    var layout: [SectionLayout] = []
    let sectionRows = try Row.fetchAll(
      db,
      sql: "SELECT id, ord, has_data, header, footer FROM ds_section WHERE source = ? ORDER BY ord",
      arguments: [name])
    for sectionRow in sectionRows {
      let id: Int64 = try sectionRow.stored("id", of: "ds_section")
      var rows: [Element] = []
      var blockLayouts: [BlockLayout] = []
      let blocks = try FastStatement(
        db, "SELECT id, ord, count, rows FROM ds_block WHERE section = ? ORDER BY ord")
      blocks.bind(1, Int(id))
      while try blocks.step() {
        let before = rows.count
        try RowCoding.decode(blocks.data(3), into: &rows, makeRow: makeRow)
        blockLayouts.append(
          BlockLayout(
            id: Int64(blocks.int(0)), order: blocks.double(1), count: rows.count - before))
      }
      let head = try StoredSectionHead(
        hasData: sectionRow.stored("has_data", of: "ds_section"),
        header: sectionRow.stored("header", of: "ds_section"),
        footer: sectionRow.stored("footer", of: "ds_section"))
      sections.append((head, rows))
      layout.append(
        SectionLayout(
          id: id, order: try sectionRow.stored("ord", of: "ds_section"), blocks: blockLayouts))
    }
    self.layout = layout
    let table = "data_source"
    return try StoredDataSource(
      sections: sections,
      registrations: source.stored("registrations", of: table, as: String?.self) ?? "{}",
      background: source.stored("background", of: table),
      emptyActionText: source.stored("empty_action_text", of: table),
      emptyAction: source.stored("empty_action", of: table))
  }

  // MARK: - Settings

  /// Stores the registrations, a JSON object.
  package func setRegistrations(_ db: Database, _ json: String) throws {
    try db.execute(
      sql: "UPDATE data_source SET registrations = ? WHERE name = ?", arguments: [json, name])
  }

  /// Stores the empty state: its message, its button's title and action; nil for none.
  package func setEmptyState(
    _ db: Database, message: String?, actionText: String?, action: String?
  ) throws {
    try db.execute(
      sql: """
        UPDATE data_source SET background = ?, empty_action_text = ?, empty_action = ?
        WHERE name = ?
        """,
      arguments: [message, actionText, action, name])
  }

  // MARK: - What a mutation changed

  /// A row was inserted at `row` of `section`: its block is rewritten, or split.
  package func rowInserted(_ db: Database, section: Int, row: Int, from source: some BlockSource)
    throws
  {
    guard !layout[section].blocks.isEmpty else {
      try writeBlocks(ofSection: section, from: source, db)
      return
    }
    let block = locate(row: row, in: section)
    layout[section].blocks[block].count += 1
    if layout[section].blocks[block].count > Self.blockLimit {
      try splitBlock(section: section, block: block, from: source, db)
    } else {
      try writeBlock(section: section, block: block, from: source, db)
    }
  }

  /// Rows were updated in place: each block that holds one is rewritten once.
  package func rowsUpdated(
    _ db: Database, _ rows: [(section: Int, row: Int)], from source: some BlockSource
  ) throws {
    var blocks = Set<[Int]>()
    for path in rows {
      let block = locate(row: path.row, in: path.section)
      blocks.insert([path.section, block])
    }
    for pair in blocks { try writeBlock(section: pair[0], block: pair[1], from: source, db) }
  }

  /// The row at `row` of `section` was removed: its block is rewritten, or deleted when empty.
  package func rowRemoved(_ db: Database, section: Int, row: Int, from source: some BlockSource)
    throws
  {
    let block = locate(row: row, in: section)
    layout[section].blocks[block].count -= 1
    if layout[section].blocks[block].count == 0 {
      try db.execute(
        sql: "DELETE FROM ds_block WHERE id = ?", arguments: [layout[section].blocks[block].id])
      layout[section].blocks.remove(at: block)
    } else {
      try writeBlock(section: section, block: block, from: source, db)
    }
  }

  /// Section `index` was rewritten: its header, footer and rows.
  package func sectionRewritten(_ db: Database, at index: Int, from source: some BlockSource)
    throws
  {
    let head = source.head(ofSection: index)
    try db.execute(
      sql: "UPDATE ds_section SET has_data = ?, header = ?, footer = ? WHERE id = ?",
      arguments: [head.hasData, head.header, head.footer, layout[index].id])
    try writeBlocks(ofSection: index, from: source, db)
  }

  /// A section was inserted at `index`, between its neighbours' positions.
  package func sectionInserted(_ db: Database, at index: Int, from source: some BlockSource)
    throws
  {
    let order = try sectionOrder(at: index, db)
    let id = try insertSection(source.head(ofSection: index), order: order, db)
    layout.insert(SectionLayout(id: id, order: order, blocks: []), at: index)
    try writeBlocks(ofSection: index, from: source, db)
  }

  /// Section `index` was removed, with its blocks.
  package func sectionRemoved(_ db: Database, at index: Int) throws {
    try db.execute(sql: "DELETE FROM ds_section WHERE id = ?", arguments: [layout[index].id])
    layout.remove(at: index)
  }

  /// Every section is written again.
  package func writeAll(_ db: Database, from source: some BlockSource) throws {
    try db.execute(sql: "DELETE FROM ds_section WHERE source = ?", arguments: [name])
    layout = []
    for index in 0..<source.sectionCount {
      let order = Double(index + 1)
      let id = try insertSection(source.head(ofSection: index), order: order, db)
      layout.append(SectionLayout(id: id, order: order, blocks: []))
      try writeBlocks(ofSection: index, from: source, db)
    }
  }

  // MARK: - Blocks

  /// The index of the block holding `row` of a section; a row one past the end belongs to the
  /// last block.
  private func locate(row: Int, in section: Int) -> Int {
    var start = 0
    let blocks = layout[section].blocks
    for (index, block) in blocks.enumerated() {
      if row < start + block.count || index == blocks.count - 1 { return index }
      start += block.count
    }
    return 0
  }

  private func blockStart(section: Int, block: Int) -> Int {
    layout[section].blocks.prefix(block).reduce(0) { $0 + $1.count }
  }

  /// Writes a block's rows from the source's section.
  private func writeBlock(
    section: Int, block: Int, from source: some BlockSource, _ db: Database
  ) throws {
    let start = blockStart(section: section, block: block)
    let layoutBlock = layout[section].blocks[block]
    let rows = try source.rows(inSection: section, start..<(start + layoutBlock.count))
    let statement = try FastStatement(db, "UPDATE ds_block SET count = ?, rows = ? WHERE id = ?")
    statement.bind(1, layoutBlock.count)
    try statement.bind(2, RowCoding.encode(rows))
    statement.bind(3, Int(layoutBlock.id))
    try statement.step()
  }

  /// Splits a block that grew past the limit into two halves.
  private func splitBlock(
    section: Int, block: Int, from source: some BlockSource, _ db: Database
  ) throws {
    let total = layout[section].blocks[block].count
    let first = total / 2
    layout[section].blocks[block].count = first
    try writeBlock(section: section, block: block, from: source, db)
    let order = try blockOrder(after: block, inSection: section, db)
    let start = blockStart(section: section, block: block) + first
    let id = try insertBlock(
      section: layout[section].id, order: order,
      rows: source.rows(inSection: section, start..<(start + total - first)), db)
    layout[section].blocks.insert(
      BlockLayout(id: id, order: order, count: total - first), at: block + 1)
  }

  /// The position of a section inserted at `index`, between its neighbours'; they are numbered
  /// again first when they leave no room.
  private func sectionOrder(at index: Int, _ db: Database) throws -> Double {
    func between() -> Double? {
      Self.between(
        index > 0 ? layout[index - 1].order : nil, index < layout.count ? layout[index].order : nil)
    }
    if let order = between() { return order }
    try renumberSections(db)
    return between() ?? Double(index) + 0.5
  }

  /// The position of a block inserted after `block`, between its neighbours'; they are numbered
  /// again first when they leave no room.
  private func blockOrder(after block: Int, inSection section: Int, _ db: Database) throws
    -> Double
  {
    func between() -> Double? {
      let blocks = layout[section].blocks
      return Self.between(
        blocks[block].order, block + 1 < blocks.count ? blocks[block + 1].order : nil)
    }
    if let order = between() { return order }
    try renumberBlocks(section: section, db)
    return between() ?? Double(block + 1) + 0.5
  }

  /// Replaces a section's blocks with its rows, `blockFill` to a block.
  private func writeBlocks(ofSection index: Int, from source: some BlockSource, _ db: Database)
    throws
  {
    let id = layout[index].id
    try db.execute(sql: "DELETE FROM ds_block WHERE section = ?", arguments: [id])
    let count = source.rowCount(inSection: index)
    var blocks: [BlockLayout] = []
    var start = 0
    while start < count {
      let end = min(count, start + Self.blockFill)
      let order = Double(blocks.count + 1)
      let blockID = try insertBlock(
        section: id, order: order, rows: source.rows(inSection: index, start..<end), db)
      blocks.append(BlockLayout(id: blockID, order: order, count: end - start))
      start = end
    }
    layout[index].blocks = blocks
  }

  private func insertSection(_ head: StoredSectionHead, order: Double, _ db: Database) throws
    -> Int64
  {
    try db.execute(
      sql: "INSERT INTO ds_section (source, ord, has_data, header, footer) VALUES (?, ?, ?, ?, ?)",
      arguments: [name, order, head.hasData, head.header, head.footer])
    return db.lastInsertedRowID
  }

  private func insertBlock(section: Int64, order: Double, rows: [StoredRow], _ db: Database)
    throws -> Int64
  {
    let statement = try FastStatement(
      db, "INSERT INTO ds_block (section, ord, count, rows) VALUES (?, ?, ?, ?)")
    statement.bind(1, Int(section))
    statement.bind(2, order)
    statement.bind(3, rows.count)
    try statement.bind(4, RowCoding.encode(rows))
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

  /// A position strictly between two others (nil: the start or the end), or nil when they leave
  /// no room: too close together, or out of order, huge or not finite (a file changed outside
  /// archsh).
  private static func between(_ lower: Double?, _ upper: Double?) -> Double? {
    let order: Double
    switch (lower, upper) {
    case (nil, nil): order = 1
    case (let lower?, nil): order = lower + 1
    case (nil, let upper?): order = upper - 1
    case (let lower?, let upper?): order = lower + (upper - lower) / 2
    }
    guard order.isFinite, lower.map({ $0 < order }) ?? true, upper.map({ order < $0 }) ?? true
    else { return nil }
    return order
  }
}

/// Rows in a block's blob: for each row a kind byte, a 4-byte little-endian length, and UTF-8.
package enum RowCoding {
  /// The blob of `rows`.
  package static func encode(_ rows: [StoredRow]) -> Data {
    var data = Data()
    data.reserveCapacity(rows.count * 24)
    for row in rows {
      let bytes = Array(row.text.utf8)
      data.append(row.kind)
      withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { data.append(contentsOf: $0) }
      data.append(contentsOf: bytes)
    }
    return data
  }

  /// Appends the rows of a blob to `rows`, each made by `makeRow` from its kind and text;
  /// `CorruptBlock` when it does not hold whole rows.
  package static func decode<Element>(
    _ data: Data, into rows: inout [Element], makeRow: (UInt8, String) throws -> Element
  ) throws {
    try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
      var offset = 0
      var count = 0
      while offset < buffer.count {
        guard offset + 5 <= buffer.count else {
          throw CorruptBlock(description: "a block ends early")
        }
        let kind = buffer[offset]
        var length = 0
        for shift in 0..<4 { length |= Int(buffer[offset + 1 + shift]) << (8 * shift) }
        offset += 5
        guard offset + length <= buffer.count else {
          throw CorruptBlock(description: "a row runs past its block")
        }
        let text = String(
          decoding: UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + length)]),
          as: UTF8.self)
        offset += length
        rows.append(try makeRow(kind, text))
        count += 1
        // archsh writes at most `blockLimit` rows to a block: a blob of a billion empty rows
        // is not read into memory.
        guard count <= DataSourceBlocks.blockLimit else {
          throw CorruptBlock(
            description: "a block holds more than \(DataSourceBlocks.blockLimit) rows")
        }
      }
    }
  }
}

extension DataSourceBlocks {
  /// The data sources' tables.
  package static let migration = Migration(identifier: "v3-data-sources") { db in
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

  /// The empty state's button: its title and what it does (`add-row:TEXT` or `products`).
  package static let emptyStateMigration = Migration(identifier: "v10-empty-state-actions") {
    db in
    try db.execute(
      sql: """
        ALTER TABLE data_source ADD COLUMN empty_action_text TEXT;
        ALTER TABLE data_source ADD COLUMN empty_action TEXT;
        """)
  }
}
