import Foundation
import Runtime
import Testing

@testable import Domain

/// Records what the delegate hears.
private final class Recorder: DataSourceControllerDelegate {
  var heard: [DataSourceMutation] = []
  func dataSourceWasMutated(_ controller: DataSourceController) { heard.append(.all) }
  func dataSourceWasMutated(_ controller: DataSourceController, section: Int) {
    heard.append(.section(section))
  }
  func dataSourceWasMutated(_ controller: DataSourceController, rows: [IndexPath]) {
    heard.append(.rows(rows))
  }
}

/// The whole state of a controller in one line per section: `header|row,row|footer`.
private func state(_ controller: DataSourceController) -> [String] {
  controller.sections.map { section in
    let rows = section.rows.map { row -> String in
      if case .text(let text) = row { return text }
      return row.modelType
    }
    return
      "\(section.sectionData?.header ?? "-")|\(rows.joined(separator: ","))|\(section.sectionData?.footer ?? "-")"
  }
}

/// A TestStore-style harness: every step asserts the whole state and the exact notifications.
private struct Store {
  let controller: DataSourceController
  let recorder = Recorder()

  init(_ sections: [Section]) {
    controller = DataSourceController(
      sections: sections, translator: ProductToProductCellViewModelTranslator())
    controller.delegate = recorder
  }

  func step(
    _ action: (DataSourceController) -> Void, state expected: [String],
    heard: [DataSourceMutation], sourceLocation: SourceLocation = #_sourceLocation
  ) {
    recorder.heard = []
    action(controller)
    #expect(state(controller) == expected, sourceLocation: sourceLocation)
    #expect(recorder.heard == heard, sourceLocation: sourceLocation)
  }
}

private func text(_ values: String...) -> [RowModel] { values.map(RowModel.text) }
private func path(_ section: Int, _ row: Int) -> IndexPath { IndexPath(row: row, section: section) }

@Suite("DataSourceController and TableViewDataSource")
struct DataSourceTests {
  private func twoSections() -> Store {
    Store([
      Section(sectionData: SectionDataModel(header: "A", footer: "a"), rows: text("a0", "a1")),
      Section(rows: text("b0")),
    ])
  }

  @Test(
    "add(row:at:): insert notifies the section; row out of bounds appends; section out of bounds appends a section and reloads all"
  )
  func addRow() {
    let store = twoSections()
    store.step(
      { $0.add(row: .text("new"), at: path(0, 1)) }, state: ["A|a0,new,a1|a", "-|b0|-"],
      heard: [.section(0)])
    store.step(
      { $0.add(row: .text("end"), at: path(1, 7)) }, state: ["A|a0,new,a1|a", "-|b0,end|-"],
      heard: [.section(1)])
    store.step(
      { $0.add(row: .text("neg"), at: path(1, -1)) }, state: ["A|a0,new,a1|a", "-|b0,end,neg|-"],
      heard: [.section(1)])
    store.step(
      { $0.add(row: .text("far"), at: path(5, 0)) },
      state: ["A|a0,new,a1|a", "-|b0,end,neg|-", "-|far|-"], heard: [.all])
    store.step(
      { $0.add(row: .text("q"), at: path(0, 0), notify: false) },
      state: ["A|q,a0,new,a1|a", "-|b0,end,neg|-", "-|far|-"], heard: [])
  }

  @Test("update(row:at:) notifies the row; out of bounds is a no-op that notifies nothing")
  func updateRow() {
    let store = twoSections()
    store.step(
      { $0.update(row: .text("x"), at: path(0, 1)) }, state: ["A|a0,x|a", "-|b0|-"],
      heard: [.rows([path(0, 1)])])
    store.step(
      { $0.update(row: .text("y"), at: path(0, 2)) }, state: ["A|a0,x|a", "-|b0|-"], heard: [])
    store.step(
      { $0.update(row: .text("y"), at: path(3, 0)) }, state: ["A|a0,x|a", "-|b0|-"], heard: [])
  }

  @Test("update(rows:atSection:) keeps the header and footer and notifies every new row")
  func updateRowsAtSection() {
    let store = twoSections()
    store.step(
      { $0.update(rows: text("p", "q", "r"), atSection: 0) }, state: ["A|p,q,r|a", "-|b0|-"],
      heard: [.rows([path(0, 0), path(0, 1), path(0, 2)])])
    store.step(
      { $0.update(rows: text("z"), atSection: 2) }, state: ["A|p,q,r|a", "-|b0|-"], heard: [])
  }

  @Test(
    "update(rows: [IndexPath: Any]) skips rows out of bounds and notifies the changed ones; a section out of bounds voids it all, as in the original"
  )
  func updateRowsDictionary() {
    let store = twoSections()
    store.step(
      {
        $0.update(rows: [path(1, 0): .text("B"), path(0, 0): .text("A0"), path(0, 9): .text("no")])
      },
      state: ["A|A0,a1|a", "-|B|-"], heard: [.rows([path(0, 0), path(1, 0)])])
    store.step({ $0.update(rows: [:]) }, state: ["A|A0,a1|a", "-|B|-"], heard: [.rows([])])
    // The largest section named does not exist: nothing changes, nothing is notified, even for
    // the valid path.
    store.step(
      { $0.update(rows: [path(0, 0): .text("Z"), path(4, 4): .text("no")]) },
      state: ["A|A0,a1|a", "-|B|-"], heard: [])
  }

  @Test("remove(rowAt:) reloads all; the last row takes its section; out of bounds does nothing")
  func removeRow() {
    let store = twoSections()
    store.step({ $0.remove(rowAt: path(0, 0)) }, state: ["A|a1|a", "-|b0|-"], heard: [.all])
    store.step({ $0.remove(rowAt: path(1, 0)) }, state: ["A|a1|a"], heard: [.all])
    store.step({ $0.remove(rowAt: path(1, 0)) }, state: ["A|a1|a"], heard: [])
    store.step({ $0.remove(rowAt: path(0, 0)) }, state: [], heard: [.all])
    #expect(store.controller.totalRowCount == 0)
  }

  @Test(
    "section mutations: add (nil or out of bounds appends), update, data, all, remove, remove all")
  func sections() {
    let store = twoSections()
    store.step(
      { $0.add(section: Section(rows: text("c0"))) }, state: ["A|a0,a1|a", "-|b0|-", "-|c0|-"],
      heard: [.all])
    store.step(
      { $0.add(section: Section(rows: text("z")), at: 0) },
      state: ["-|z|-", "A|a0,a1|a", "-|b0|-", "-|c0|-"], heard: [.all])
    store.step(
      { $0.add(section: Section(rows: text("w")), at: 99) },
      state: ["-|z|-", "A|a0,a1|a", "-|b0|-", "-|c0|-", "-|w|-"], heard: [.all])
    store.step(
      {
        $0.update(
          section: Section(sectionData: SectionDataModel(header: "Z"), rows: text("z1")), at: 0)
      },
      state: ["Z|z1|-", "A|a0,a1|a", "-|b0|-", "-|c0|-", "-|w|-"], heard: [.section(0)])
    store.step(
      { $0.update(sectionData: SectionDataModel(footer: "f"), at: 2) },
      state: ["Z|z1|-", "A|a0,a1|a", "-|b0|f", "-|c0|-", "-|w|-"], heard: [.section(2)])
    store.step(
      { $0.update(section: Section(rows: []), at: 9) },
      state: ["Z|z1|-", "A|a0,a1|a", "-|b0|f", "-|c0|-", "-|w|-"], heard: [])
    store.step(
      { $0.remove(sectionAt: 4) }, state: ["Z|z1|-", "A|a0,a1|a", "-|b0|f", "-|c0|-"], heard: [.all]
    )
    store.step(
      { $0.remove(sectionAt: 4) }, state: ["Z|z1|-", "A|a0,a1|a", "-|b0|f", "-|c0|-"], heard: [])
    store.step(
      { $0.update(allSections: [Section(rows: text("only"))]) }, state: ["-|only|-"], heard: [.all])
    store.step({ $0.removeAllSections() }, state: [], heard: [.all])
  }

  @Test(
    "a stored object row is split at its first line feed, a carriage return kept in its type"
  )
  func storedObjectRow() throws {
    let decoder = JSONDecoder()
    // An earlier archsh stored such a type; "\r\n" is one Character, so a split on "\n" missed it.
    let json = #"{"type":"Game\r","n":1}"#
    let stored = StoredRow(kind: 2, text: "Game\r\n" + json)
    #expect(try RowCoding.rowModel(stored, decoder: decoder) == .object(type: "Game\r", json: json))
    #expect(throws: DataSourceError.corrupt("an object row has no type")) {
      try RowCoding.rowModel(StoredRow(kind: 2, text: "Game"), decoder: decoder)
    }
  }

  @Test(
    "registration matches the exact type, overwrites, a cell controller model is used directly, and the rest is the error cell"
  )
  func registration() {
    let controller = DataSourceController(
      sections: [
        Section(rows: [
          .text("hello"), .object(type: "Game", json: #"{"type":"Game","name":"Tetris"}"#),
          .object(type: "DetailCell", json: #"{"type":"DetailCell","title":"T","detail":"D"}"#),
        ])
      ], translator: ProductToProductCellViewModelTranslator())
    #expect(controller.cellDataController(at: path(0, 0)).reuseIdentifier == "errorCell")
    #expect(
      (controller.cellDataController(at: path(0, 0)) as? ErrorCellDataController)?.message
        == "Error: missing model or data controller at [0, 0]")
    controller.register(dataController: DetailCellDataController.self, for: "Text")
    #expect(
      controller.cellDataController(at: path(0, 0)) as? DetailCellDataController
        == DetailCellDataController(titleText: "Incorrect data type", detailText: ""))
    controller.register(dataController: BasicCellDataController.self, for: "Text")
    #expect(
      controller.cellDataController(at: path(0, 0)) as? BasicCellDataController
        == BasicCellDataController(titleText: "hello"))
    #expect(controller.cellDataController(at: path(0, 1)).reuseIdentifier == "errorCell")
    controller.register(dataController: BasicCellDataController.self, for: "Gam")
    #expect(controller.cellDataController(at: path(0, 1)).reuseIdentifier == "errorCell")
    #expect(
      controller.cellDataController(at: path(0, 2)) as? DetailCellDataController
        == DetailCellDataController(titleText: "T", detailText: "D"))
    #expect(controller.modelObject(at: path(0, 3)) == nil)
    #expect(controller.modelObject(at: path(1, 0)) == nil)
    #expect(controller.modelObject(at: path(0, 1))?.modelType == "Game")
  }

  @Test(
    "TableViewDataSource tells its delegate only about empty↔non-empty transitions, and survives out-of-range access"
  )
  func tableViewDataSource() {
    final class StateRecorder: TableViewDataSourceDelegate {
      var states: [CollectionState] = []
      func collectionStateDidChange(_ state: CollectionState) { states.append(state) }
    }
    let recorder = StateRecorder()
    var logged: [String] = []
    let source = TableViewDataSource<String>(delegate: recorder, log: { logged.append($0) })
    #expect(source.collectionState == .empty)
    #expect(source.add(element: "a") == path(0, 0))
    #expect(source.add(element: "b") == path(0, 1))
    #expect(recorder.states == [.nonEmpty])
    #expect(source.element(at: path(0, 5)) == nil)
    #expect(
      logged == ["assertionFailure: no element at 0-5 (the collection has 2); drawing a blank cell"]
    )
    source.removeElement(at: path(0, 9))
    #expect(source.collection == ["a", "b"])
    source.removeElement(at: path(0, 0))
    #expect(recorder.states == [.nonEmpty])
    source.removeElement(at: path(0, 0))
    #expect(recorder.states == [.nonEmpty, .empty])
    source.update(collection: [])
    #expect(recorder.states == [.nonEmpty, .empty])
  }

  @Test(
    "the stored data source reloads exactly as memory holds it, after every kind of mutation, across block splits"
  )
  func storageRoundTrip() throws {
    let factory = ApplicationFactory()
    defer { withExtendedLifetime(factory) {} }
    let workspace = try factory.workspace
    let materials = factory.dataSource.documentMaterials()
    let tracer = Tracer()
    let document = try DataSourceDocument.create(
      name: "big", sections: [Section(rows: (0..<2000).map { .text("r\($0)") })], in: workspace,
      materials: materials, tracer: tracer)
    try document.register(dataController: BasicCellDataController.self, for: "Text")
    // 600 rows at the top grow the first block (512 rows) past the limit, so it splits.
    for index in 0..<600 {
      try document.mutate("add(row:at:)") { $0.add(row: .text("top\(index)"), at: path(0, 0)) }
    }
    // 2,000 rows were written 512 to a block; the first block reached 1,025 rows and split.
    #expect(document.blocks.layout[0].blocks.map(\.count) == [599, 513, 512, 512, 464])
    var generator = SystemRandomNumberGenerator()
    for step in 0..<400 {
      let sections = document.controller.sections.count
      let section = sections == 0 ? 0 : Int.random(in: 0..<sections, using: &generator)
      let rows = sections == 0 ? 0 : document.controller.sections[section].rows.count
      let row = Int.random(in: 0...max(0, rows), using: &generator)
      try document.mutate("step") { controller in
        switch step % 7 {
        case 0, 1, 2: controller.add(row: .text("n\(step)"), at: path(section, min(row, 3)))
        case 3: controller.update(row: .text("u\(step)"), at: path(section, row))
        case 4: controller.remove(rowAt: path(section, row))
        case 5:
          // The second path is past the end of its section, so it never equals the first one (a
          // dictionary literal with a duplicate key traps), and is skipped.
          controller.update(rows: [
            path(section, row): .text("p\(step)"), path(section, rows + 5): .text("x"),
          ])
        default:
          if step % 5 == 0 {
            controller.add(
              section: Section(sectionData: SectionDataModel(header: "H\(step)"), rows: text("s")),
              at: section)
          } else {
            controller.update(sectionData: SectionDataModel(footer: "f\(step)"), at: section)
          }
        }
      }
    }
    let reloaded = try DataSourceDocument.open(
      name: "big", in: workspace, materials: materials, tracer: tracer)
    #expect(state(reloaded.controller) == state(document.controller))
    #expect(reloaded.controller.totalRowCount == document.controller.totalRowCount)
    #expect(reloaded.controller.registeredControllers.map(\.controller) == ["BasicCell"])
    #expect(
      try DataSourceDocument.list(in: workspace).map(\.rows) == [document.controller.totalRowCount])
  }
}
