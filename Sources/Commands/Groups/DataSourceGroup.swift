import Domain
import Foundation
import Plumbing

/// `ds`: DataSourceController and TableViewDataSource, stored in the workspace and drawn as text.
enum DataSourceGroup {
  static let group = CommandGroup(
    "ds", summary: "build data-source sections and draw them as a text table view",
    from: [.dataSourceController, .lickability],
    discussion: """
      DataSourceController (peredaniel, seed 002): sections of rows, a cell data controller \
      registered per model type, and mutations that notify the delegate what to reload, shown \
      as ~ lines and in traces. A row's model is text, a Product from productCache, or a JSON \
      object whose "type" is its model type; a JSON object whose type is a cell controller \
      (BasicCell, DetailCell, FullProductDetailsCell) is used directly. The original's model \
      types are Swift types: a "type" with a line break or another control character is \
      refused. Data sources are stored in the workspace and survive restarts.
      Where the original disagrees with its documentation, archsh follows the code: adding a \
      row to a section that does not exist appends a new one-row section and notifies \
      mutated(all). Removing a row always notifies mutated(all); removing a section's last row \
      removes the section. Out-of-bounds updates and removals do nothing and notify nothing.
      Each ~ line names the controller that speaks. 'DataSourceController delegate: \
      mutated(…)' is what DataSourceController (seed 002) tells its delegate; --quiet is its \
      notify: false, and silences these lines alone. 'mutated(rows: [])' is the original's \
      dataSourceWasMutated(_:rows:) called with no index paths: the mutation happened and names \
      no row to reload (a section set to no rows, or a patch that changed nothing). \
      'TableViewDataSource: collectionState …' follows Lickability's TableViewDataSource (seed \
      000), whose collection's didSet compares the old collection with the new one and tells \
      its delegate on two changes alone: empty to non-empty, and non-empty to empty. So the line \
      appears on those changes and on no other; --quiet does not silence it, because that didSet \
      has no notify flag. 'EmptyStateViewController: tapped …' is Lickability's empty state \
      (seed 000) running its button's handler.
      """,
    commands: [
      new, list, drop, register, background, emptyState, tap, sectionAdd, sectionUpdate,
      sectionData,
      sectionRemove, sectionClear, sectionSet, rowAdd, rowUpdate, rowRemove, rowsSet, rowsPatch,
      model, count, state, render,
    ],
    hints: hint(for:))

  /// The shell's hints for DataSourceError.
  static func hint(for error: Error) -> String? {
    guard let error = error as? DataSourceError else { return nil }
    switch error {
    case .unknown(_, let suggestion):
      return suggestion.map { "did you mean '\($0)'?" } ?? "see 'ds list'"
    case .emptyStateNotShown(let name, _):
      return "the empty state shows only while there are no rows; 'ds render \(name)' shows them"
    case .noEmptyStateButton:
      return "give it one with 'ds empty-state NAME MESSAGE --button TITLE --action ACTION'"
    default:
      return nil
    }
  }
  // MARK: - Completion and shared parameters

  static let names: CompletionProvider = { context in
    guard let library = try? context.session.factory.dataSource.library else { return [] }
    return ((try? library.list()) ?? []).map(\.name)
  }

  /// Text, Product, and the model types of the data source named on the line.
  static let modelTypes: CompletionProvider = { context in
    var types: Set<String> = ["Text", "Product"]
    if context.previousWords.count >= 3,
      let open = try? DataSourceGroup.open(context.session, Word(context.previousWords[2]))
    {
      for section in open.document.controller.sections.prefix(100) {
        for row in section.rows.prefix(100) { types.insert(row.modelType) }
      }
    }
    return types.sorted()
  }

  static let nameArgument = Argument("NAME", .name, "the data source's name", completion: names)
  static let quiet = Flag("quiet", "do not notify the delegate (notify: false)")
  static let sectionIndex = Argument(
    "S", .integer(0...1_000_000_000), "the section index")
  static let rowIndex = Argument("R", .integer(0...1_000_000_000), "the row index")
  static let rowsFlag = Flag("rows", "the words after NAME are rows")
  static let rowWords = Many.arguments(
    "ROW", .text, "rows: text, or a JSON object such as '{\"type\":\"Game\",\"name\":\"Tetris\"}'",
    optional: true)
  static let productFlag = Flag("product", "VALUE is a product id, from productCache")
  /// `--header`, of a section.
  static let headerOption = Option("header", .text, "the header")
  /// `--footer`, of a section.
  static let footerOption = Option("footer", .text, "the footer")
  /// The VALUE of a row command.
  static let valueArgument = Argument(
    "VALUE", .text, "text, a JSON object, or with --product a product id")

  // MARK: - Parameters of one command

  /// `new --products`.
  static let productsFlag = Flag(
    "products", "one section per family of the example app's fifteen products")
  /// `new --sections @FILE`.
  static let sectionsOption = Option("sections", .text, value: "@FILE", "a JSON file of sections")
  /// `new --generate N`.
  static let generateOption = Option(
    "generate", .integer(1...10_000_000), value: "N", "one section of N rows")
  /// `register MODELTYPE`, completed with Text, Product and the data source's model types.
  static let modelTypeArgument = Argument(
    "MODELTYPE", .text, "Text, Product, or a JSON type", completion: modelTypes)
  /// `register CELLCONTROLLER`.
  static let cellControllerArgument = Argument(
    "CELLCONTROLLER", Kind<CellControllerChoice>.choice, "the cell data controller")
  /// `background [TEXT]`.
  static let textArgument = Option.argument("TEXT", .text, "the message")
  /// `section add --at S`.
  static let atOption = Option(
    "at", .integer(0...1_000_000_000), value: "S", "where to insert it")
  /// `section set @FILE`.
  static let fileArgument = Argument("@FILE", .text, "a JSON array of {header, footer, rows}")
  /// `rows patch S-R=VALUE...`.
  static let patchWords = Many.arguments(
    "S-R=VALUE", .text, "such as 0-1='Call Grace'", optional: true)
  /// `render --style`.
  static let styleOption = Option(
    "style", Kind<RenderStyle>.choice, "how to draw it", default: "table")
  /// `render --from`.
  static let fromOption = Option(
    "from", .integer(0...Int(Int32.max)), value: "ROW", "the first row", default: "0")
  /// `render --count`.
  static let countOption = Option(
    "count", .integer(1...10_000), value: "N", "how many rows", default: "50")
  /// `render --width`.
  static let widthOption = Option(
    "width", .integer(24...400), value: "W", "the width in columns", default: "56")
  /// `render --format`.
  static let renderFormatOption = Option(
    "format", Kind<RenderFormat>.choice, value: "FORMAT",
    "text for the terminal, or an SVG picture or HTML page (as the board draws it)",
    default: "text")

  // MARK: - Creating and naming

  static let new = Command(
    "new", summary: "create a data source from rows, cached products, or a sections file",
    discussion: """
      With --rows, one section of the given rows. With --products, one section per family of \
      the example app's fifteen products (the ones Discover lists), headed by the family: each is \
      read from productCache, and fetched into it first when missing. With \
      --sections @FILE, a JSON array of {"header","footer","rows":[...]}. With --generate N, one \
      section of N text rows, for large experiments. Registers nothing: see 'ds register'.
      """,
    signature: Signature([
      nameArgument, rowWords, rowsFlag, productsFlag, sectionsOption, generateOption,
    ]),
    examples: [
      "ds new todo --rows 'Buy milk' 'Call Ada'", "ds new shop --products",
      "ds new menu --sections @menu.json", "ds new big --generate 1000000",
    ], result: .record(["name", "sections", "rows"])
  ) { invocation in
    let name = try invocation[nameArgument]
    var sources: [[Section]] = []
    if invocation[rowsFlag] || !invocation[rowWords].isEmpty {
      sources.append([Section(rows: try rows(invocation))])
    }
    if invocation[productsFlag] {
      // The example app's list is Discover's: the media library's fifteen products, cached or
      // fetched, whatever else happens to be cached.
      let products = try invocation.session.factory.main.mediaLibrary.mediaItems()
      sources.append(Section.byFamily(products, counting: "product"))
    }
    if let file = invocation[sectionsOption] {
      sources.append(
        try SectionsFile.read(
          file, paths: invocation.paths, decoder: invocation.session.factory.json.decoder()))
    }
    if let count = invocation[generateOption] {
      // Ten million rows take seconds: Ctrl-C stops the making, and then nothing is created.
      var rows: [RowModel] = []
      rows.reserveCapacity(count)
      for number in 1...count {
        if number % 65_536 == 0, invocation.session.interruptCheck() {
          throw ShellError(
            "'ds new' was interrupted", hint: "Ctrl-C stopped it; no data source was created",
            at: name.offset)
        }
        rows.append(.text("Row \(number)"))
      }
      sources.append([Section(rows: rows)])
    }
    guard sources.count <= 1 else {
      throw ShellError(
        "choose one of --rows, --products, --sections and --generate", at: name.offset)
    }
    let library = try library(invocation.session)
    let open = try library.create(name.text, sections: sources.first ?? [])
    let controller = open.document.controller
    // The sentence for people; its name and counts for programs.
    return .view(
      text:
        "created \(name.text): \(plural(controller.sections.count, "section")), \(plural(controller.totalRowCount, "row"))",
      data: .object([
        Field("name", .string(name.text)), Field("sections", .int(controller.sections.count)),
        Field("rows", .int(controller.totalRowCount)),
      ]))
  }

  static let list = Command(
    "list", summary: "list the data sources with their sections and rows",
    examples: ["ds list"], result: .rows(["name", "sections", "rows"])
  ) { invocation in
    let library = try library(invocation.session)
    let sources = try library.list()
    return .table(
      Table(
        columns: ["name", "sections", "rows"],
        rows: sources.map { [.string($0.name), .int($0.sections), .int($0.rows)] }))
  }

  static let drop = Command(
    "drop", summary: "delete a data source", signature: Signature([nameArgument]),
    examples: ["ds drop todo"], result: .record(["name", "dropped"])
  ) { invocation in
    let name = try invocation[nameArgument]
    let library = try library(invocation.session)
    try library.drop(name.text)
    return .sentence(
      "dropped \(name.text)", [Field("name", .string(name.text)), Field("dropped", .bool(true))])
  }

  static let register = Command(
    "register", summary: "use a cell data controller for models of one type",
    discussion: """
      register(dataController:for:) matches the model type exactly, and registering again \
      overwrites. Model types: Text, Product, or a JSON object's type. An unregistered model \
      draws the error cell.
      """,
    signature: Signature([nameArgument, modelTypeArgument, cellControllerArgument]),
    examples: ["ds register shop Product DetailCell", "ds register todo Text BasicCell"],
    result: .record(["model_type", "cell_controller"])
  ) { invocation in
    let open = try open(invocation)
    let modelType = try invocation[modelTypeArgument].text
    let controllerName = try invocation[cellControllerArgument].word
    guard let type = CellControllers.type(named: controllerName) else {
      throw ShellError(DataSourceError.unknownCellController(controllerName).description)
    }
    try open.document.register(dataController: type, for: modelType)
    return .sentence(
      "\(modelType) → \(controllerName)",
      [Field("model_type", .string(modelType)), Field("cell_controller", .string(controllerName))])
  }

  static let background = Command(
    "background", summary: "set the text the delegate shows while there are no rows",
    discussion: "The delegate's backgroundEmptyView(for:). Without TEXT, no background is shown.",
    signature: Signature([nameArgument, textArgument]),
    examples: ["ds background shop 'No products yet'"], result: .record(["background"])
  ) { invocation in
    let open = try open(invocation)
    let text = invocation[textArgument]?.text
    try open.document.setBackground(text)
    return .sentence(
      text.map { "background: \($0)" } ?? "no background",
      [Field("background", text.map(Value.string) ?? .null)])
  }

  /// `empty-state --button TITLE`.
  static let buttonOption = Option(
    "button", .text, value: "TITLE", "the button's title (seed 000's actionText)")
  /// `empty-state --action ACTION`.
  static let actionOption = Option(
    "action", .text, value: "ACTION",
    "what a tap runs: 'add-row:TEXT' adds a first row, 'products' loads the example app's products")

  static let emptyState = Command(
    "empty-state", summary: "set the empty state: a message, and a button that runs an action",
    discussion: """
      The delegate's backgroundEmptyView(for:) gives seed 000's EmptyStateViewController while \
      the data source has no rows: its view model is the message, the button's title \
      (actionText) and the action handler. 'ds render' and 'ds state' show it; 'ds tap' taps \
      the button, which runs the handler: 'add-row:TEXT' adds TEXT as the first row \
      (add(row:at:) at [0, 0]), 'products' loads the example app's fifteen products, one \
      section per family (update(allSections:)), fetched over HTTP the first time. The rows \
      come back, so the empty state goes away. Departure: the seed's handler is any closure; \
      here it is one of these two stored actions, so that it survives the session.
      """,
    signature: Signature([nameArgument, textArgument, buttonOption, actionOption]),
    examples: [
      "ds empty-state todo 'Nothing to do' --button 'Add a task' --action 'add-row:Buy milk'",
      "ds empty-state shop 'No products yet' --button 'Load products' --action products",
    ],
    result: .oneOf([.record(["message", "button", "action"]), .record(["name", "empty_state"])])
  ) { invocation in
    let open = try open(invocation)
    guard let message = invocation[textArgument] else {
      try open.document.setEmptyState(nil)
      return .sentence(
        "no empty state",
        [Field("name", .string(try invocation[nameArgument].text)), Field("empty_state", .null)])
    }
    let button = invocation[buttonOption]
    let actionWord = invocation[actionOption]
    let action = try actionWord.map { word -> EmptyStateAction in
      if word.text == "products" { return .loadProducts }
      if word.text.hasPrefix("add-row:"), word.text.count > 8 {
        return .addRow(String(word.text.dropFirst(8)))
      }
      throw ShellError(
        "unknown action '\(word.text)'", hint: "use 'add-row:TEXT' or 'products'", at: word.offset)
    }
    if (button == nil) != (action == nil), let given = button ?? actionWord {
      throw ShellError(
        "a button needs both its title and its action",
        hint: "give --button TITLE with --action ACTION", at: given.offset)
    }
    try open.document.setEmptyState(
      EmptyStateSettings(message: message.text, actionText: button?.text, action: action))
    var fields = [Field("message", .string(message.text))]
    if let button, let action {
      fields.append(Field("button", .string(button.text)))
      fields.append(Field("action", .string(action.description)))
    }
    return .record(fields)
  }

  static let tap = Command(
    "tap", summary: "tap the empty state's button: its action handler runs",
    discussion: """
      EmptyStateViewController's button: the handler set with 'ds empty-state --action' runs, \
      and the mutation it makes notifies the delegate like any other. It is shown only while \
      the data source has no rows, so a tap on a data source with rows is an error.
      """,
    signature: Signature([nameArgument]),
    examples: ["ds tap todo"],
    result: .events(["event", "button", "action", "scope", "section", "rows", "state", "reason"])
  ) { invocation in
    let open = try open(invocation)
    let name = try invocation[nameArgument]
    let rows = open.document.controller.totalRowCount
    guard rows == 0 else { throw DataSourceError.emptyStateNotShown(name.text, rows: rows) }
    guard let controller = open.delegate.backgroundEmptyView(), controller.hasButton else {
      throw ShellError(
        "'\(name.text)' shows no button while it is empty",
        hint:
          "give it one with 'ds empty-state \(name.text) MESSAGE --button TITLE --action ACTION'",
        at: name.offset)
    }
    open.delegate.notifications = []
    let did = try controller.tapActionButton()
    var events = [
      EventLine(
        "EmptyStateViewController: tapped '\(controller.viewModel.actionText ?? "")': \(did)",
        fields: [
          Field("event", .string("tapped")),
          Field("button", .string(controller.viewModel.actionText ?? "")),
          Field("action", .string(did)),
        ])
    ]
    events += open.delegate.notifications.map(notification)
    if open.document.controller.totalRowCount > 0 { events.append(collectionState(empty: false)) }
    return .events(events)
  }

  // MARK: - Sections

  static let sectionAdd = Command(
    "section add", summary: "add a section; without --at, or out of bounds, it is appended",
    signature: Signature([
      nameArgument, rowWords, rowsFlag, atOption, headerOption, footerOption, quiet,
    ]),
    examples: ["ds section add shop --header Accessories --rows 'AirPods' 'Magic Mouse'"],
    result: .events(["event", "button", "action", "scope", "section", "rows", "state", "reason"])
  ) { invocation in
    let section = Section(sectionData: sectionData(invocation), rows: try rows(invocation))
    let at = invocation[atOption]
    return try mutate(invocation, "add(section:at:)") {
      $0.add(section: section, at: at, notify: $1)
    }
  }

  static let sectionUpdate = Command(
    "section update", summary: "replace a section: its rows, header and footer",
    signature: Signature([
      nameArgument, sectionIndex, rowWords, rowsFlag, headerOption, footerOption, quiet,
    ]),
    examples: ["ds section update shop 0 --header Phones --rows 'iPhone 15'"],
    result: .events(["event", "button", "action", "scope", "section", "rows", "state", "reason"])
  ) { invocation in
    let section = Section(sectionData: sectionData(invocation), rows: try rows(invocation))
    let index = try invocation[sectionIndex]
    return try mutate(invocation, "update(section:at:)") {
      $0.update(section: section, at: index, notify: $1)
    }
  }

  static let sectionData = Command(
    "section data", summary: "replace a section's header and footer, keeping its rows",
    signature: Signature([nameArgument, sectionIndex, headerOption, footerOption, quiet]),
    examples: ["ds section data shop 0 --header 'iPhone' --footer '5 models'"],
    result: .events(["event", "button", "action", "scope", "section", "rows", "state", "reason"])
  ) { invocation in
    let data = sectionData(invocation)
    let index = try invocation[sectionIndex]
    return try mutate(invocation, "update(sectionData:at:)") {
      $0.update(sectionData: data, at: index, notify: $1)
    }
  }

  static let sectionRemove = Command(
    "section remove", summary: "remove a section",
    signature: Signature([nameArgument, sectionIndex, quiet]),
    examples: ["ds section remove shop 2"],
    result: .events(["event", "button", "action", "scope", "section", "rows", "state", "reason"])
  ) { invocation in
    let index = try invocation[sectionIndex]
    return try mutate(invocation, "remove(sectionAt:)") { $0.remove(sectionAt: index, notify: $1) }
  }

  static let sectionClear = Command(
    "section clear", summary: "remove every section (removeAllSections)",
    signature: Signature([nameArgument, quiet]),
    examples: ["ds section clear shop"],
    result: .events(["event", "button", "action", "scope", "section", "rows", "state", "reason"])
  ) { invocation in
    try mutate(invocation, "removeAllSections()") { $0.removeAllSections(notify: $1) }
  }

  static let sectionSet = Command(
    "section set", summary: "replace every section from a JSON file (update(allSections:))",
    signature: Signature([nameArgument, fileArgument, quiet]),
    examples: ["ds section set menu @menu.json"],
    result: .events(["event", "button", "action", "scope", "section", "rows", "state", "reason"])
  ) { invocation in
    let sections = try SectionsFile.read(
      try invocation[fileArgument], paths: invocation.paths,
      decoder: invocation.session.factory.json.decoder())
    return try mutate(invocation, "update(allSections:)") {
      $0.update(allSections: sections, notify: $1)
    }
  }

  // MARK: - Rows

  static let rowAdd = Command(
    "row add", summary: "insert a row at S R",
    discussion: """
      A section out of bounds appends a new one-row section (mutated(all)); a row out of bounds \
      is appended to its section; otherwise the row is inserted (mutated(section: S)).
      """,
    signature: Signature([nameArgument, sectionIndex, rowIndex, valueArgument, productFlag, quiet]),
    examples: ["ds row add todo 0 0 'Water the plants'", "ds row add shop 0 0 42 --product"],
    result: .events(["event", "button", "action", "scope", "section", "rows", "state", "reason"])
  ) { invocation in
    let row = try model(invocation)
    let path = try indexPath(invocation)
    return try mutate(invocation, "add(row:at:)") { $0.add(row: row, at: path, notify: $1) }
  }

  static let rowUpdate = Command(
    "row update", summary: "replace the row at S R; out of bounds does nothing",
    signature: Signature([nameArgument, sectionIndex, rowIndex, valueArgument, productFlag, quiet]),
    examples: ["ds row update todo 0 1 'Call Grace'"],
    result: .events(["event", "button", "action", "scope", "section", "rows", "state", "reason"])
  ) { invocation in
    let row = try model(invocation)
    let path = try indexPath(invocation)
    return try mutate(invocation, "update(row:at:)") { $0.update(row: row, at: path, notify: $1) }
  }

  static let rowRemove = Command(
    "row remove", summary: "remove the row at S R; the last row takes its section with it",
    signature: Signature([nameArgument, sectionIndex, rowIndex, quiet]),
    examples: ["ds row remove todo 0 0"],
    result: .events(["event", "button", "action", "scope", "section", "rows", "state", "reason"])
  ) { invocation in
    let path = try indexPath(invocation)
    return try mutate(invocation, "remove(rowAt:)") { $0.remove(rowAt: path, notify: $1) }
  }

  static let rowsSet = Command(
    "rows set", summary: "replace a section's rows, keeping its header and footer",
    discussion: """
      update(rows:atSection:) as in the original: it tells its delegate the index paths of the \
      new rows, 0..<n in the section (dataSourceWasMutated(_:rows:)), whatever the section held \
      before. So emptying a two-row section notifies no rows ('mutated(rows: [])'), and going \
      from 2 rows to 3 notifies 0-0, 0-1 and 0-2, a row the table view did not have. A section \
      out of bounds does nothing and notifies nothing.
      """,
    signature: Signature([nameArgument, sectionIndex, rowWords, quiet]),
    examples: ["ds rows set todo 0 'Buy bread' 'Call Ada'"],
    result: .events(["event", "button", "action", "scope", "section", "rows", "state", "reason"])
  ) { invocation in
    let rows = try rows(invocation, requireFlag: false)
    let index = try invocation[sectionIndex]
    return try mutate(invocation, "update(rows:atSection:)") {
      $0.update(rows: rows, atSection: index, notify: $1)
    }
  }

  static let rowsPatch = Command(
    "rows patch", summary: "replace several rows, given as S-R=VALUE; invalid ones are skipped",
    discussion: """
      update(rows:) as in the original (1.2.0): a row past the end of its section is skipped, and \
      the rows changed are notified. A section out of bounds voids the whole patch: when the \
      largest section named does not exist, nothing changes and nothing is notified.
      """,
    signature: Signature([nameArgument, patchWords, quiet]),
    examples: [
      "ds rows patch todo 0-0=Milk 0-1=Bread 0-9=skipped", "ds rows patch todo 0-0=Milk 9-9=voids",
    ],
    result: .events(["event", "button", "action", "scope", "section", "rows", "state", "reason"])
  ) { invocation in
    var patch: [IndexPath: RowModel] = [:]
    for word in invocation[patchWords] {
      let parts = word.text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let indexes = parts.first?.split(separator: "-").compactMap { Int($0) } ?? []
      guard parts.count == 2, indexes.count == 2 else {
        throw ShellError(
          "'\(word.text)' is not S-R=VALUE", hint: "for example 0-1='Call Grace'", at: word.offset)
      }
      patch[IndexPath(row: indexes[1], section: indexes[0])] = try parseModel(
        String(parts[1]), at: word, in: invocation)
    }
    return try mutate(invocation, "update(rows:)") { $0.update(rows: patch, notify: $1) }
  }

  // MARK: - Queries

  static let model = Command(
    "model", summary: "the model at S R (modelObject(at:)), or nil out of bounds",
    signature: Signature([nameArgument, sectionIndex, rowIndex]),
    examples: ["ds model shop 0 1"],
    result: .oneOf([
      .record(["index_path", "model_type", "value", "cell"]), .record(["index_path", "model"]),
    ])
  ) { invocation in
    let open = try open(invocation)
    let path = try indexPath(invocation)
    guard let model = open.document.controller.modelObject(at: path) else {
      return .sentence(
        "nil (no row at \(path.shortDescription))",
        [Field("index_path", .string(path.shortDescription)), Field("model", .null)])
    }
    let cell = open.document.controller.cellDataController(at: path)
    return .record([
      Field("index_path", .string(path.shortDescription)),
      Field("model_type", .string(model.modelType)), Field("value", .string(describe(model))),
      Field("cell", .string(cell.reuseIdentifier)),
    ])
  }

  static let count = Command(
    "count", summary: "totalRowCount, and the rows of each section",
    signature: Signature([nameArgument]),
    examples: ["ds count shop"],
    result: .record(["total_row_count", "sections", "rows_per_section"])
  ) { invocation in
    let controller = try open(invocation).document.controller
    return .record([
      Field("total_row_count", .int(controller.totalRowCount)),
      Field("sections", .int(controller.sections.count)),
      Field("rows_per_section", .list(controller.sections.map { .int($0.rows.count) })),
    ])
  }

  static let state = Command(
    "state", summary: "sections, rows, collectionState, separators, background and registrations",
    signature: Signature([nameArgument]),
    examples: ["ds state shop"],
    result: .record([
      "sections", "total_row_count", "collection_state", "separators", "background",
      "registrations",
    ])
  ) { invocation in
    let open = try open(invocation)
    let controller = open.document.controller
    let empty = controller.totalRowCount == 0
    return .record([
      Field("sections", .int(controller.sections.count)),
      Field("total_row_count", .int(controller.totalRowCount)),
      Field("collection_state", .string(empty ? "empty" : "nonEmpty")),
      Field("separators", .string(empty ? "none (empty state)" : "singleLine")),
      Field("background", open.document.backgroundMessage.map(Value.string) ?? .null),
      Field(
        "registrations",
        .object(
          controller.registeredControllers.map { Field($0.modelType, .string($0.controller)) })),
    ])
  }

  static let render = Command(
    "render", summary: "draw the data source as a table view or a collection view",
    discussion: """
      The table style draws a grouped table view: each section's header and footer, and each \
      cell as its cell view draws it through configure(with:), with its reuse identifier. The \
      collection style draws a grid of cards, with headers and footers as supplementary cells. \
      --from and --count choose a window of rows, counted across sections. Long text is cut to \
      the width. With no rows, the delegate's background is drawn, without separators. Under \
      archsh's global --json (or 'output json'), the window's rows whole: each section's header \
      and footer, and each row's model and reuse identifier.
      """,
    signature: Signature([
      nameArgument, styleOption, fromOption, countOption, widthOption, renderFormatOption,
    ]),
    examples: [
      "ds render shop", "ds render shop --style collection --width 72",
      "ds render shop --format svg", "ds render shop --format html --count 5",
      "ds render big --from 500000 --count 20",
    ], result: .oneOf([.record(["total_rows", "from", "sections"]), .diagram])
  ) { invocation in
    let open = try open(invocation)
    let drawing = TableViewDrawing(
      controller: open.document.controller,
      width: invocation[widthOption] ?? 56)
    let from = invocation[fromOption] ?? 0
    let count = invocation[countOption] ?? 50
    let isCollection = invocation[styleOption] == .collection
    let format = invocation[renderFormatOption] ?? .text
    if format != .text {
      let picture = TableViewPicture(
        controller: open.document.controller, from: from, count: count,
        collection: isCollection, title: open.document.name)
      return .diagram(
        format: format.rawValue, text: format == .svg ? picture.svg() : picture.html())
    }
    let text =
      isCollection
      ? drawing.collection(from: from, count: count) : drawing.table(from: from, count: count)
    return .view(text: text, data: drawing.rows(from: from, count: count))
  }

  // MARK: - Helpers

  static func library(_ session: Session) throws -> DataSourceLibrary {
    try session.factory.dataSource.library
  }

  static func open(_ invocation: Invocation) throws -> OpenDataSource {
    try open(invocation.session, try invocation[nameArgument])
  }

  static func open(_ session: Session, _ name: Word) throws -> OpenDataSource {
    let library = try library(session)
    return try library.open(name.text)
  }

  /// Runs a mutation with notify unless --quiet, stores it, and shows the notifications, plus the
  /// collectionState line when the data source became empty or stopped being empty.
  static func mutate(
    _ invocation: Invocation, _ operation: String,
    _ body: @escaping (DataSourceController, Bool) -> Void
  ) throws -> Output {
    let open = try open(invocation)
    let notify = !invocation[quiet]
    var wasEmpty = open.document.controller.totalRowCount == 0
    open.delegate.notifications = []
    try open.document.mutate(operation) {
      // Counted here: the mutation runs on what the workspace holds, which another process may
      // have changed.
      wasEmpty = $0.totalRowCount == 0
      body($0, notify)
    }
    var events = open.delegate.notifications.map(notification)
    let isEmpty = open.document.controller.totalRowCount == 0
    if wasEmpty != isEmpty { events.append(collectionState(empty: isEmpty)) }
    if events.isEmpty {
      events.append(
        EventLine(
          notify
            ? "DataSourceController: no change, no notification"
            : "DataSourceController: no notification (--quiet, notify: false)",
          fields: [
            Field("event", .string("none")),
            Field("reason", .string(notify ? "no change" : "quiet")),
          ]))
    }
    return .events(events)
  }

  /// A delegate notification as a line and its fields: the scope, and the section or rows.
  static func notification(_ mutation: DataSourceMutation) -> EventLine {
    var fields = [Field("event", .string("dataSourceWasMutated"))]
    switch mutation {
    case .all:
      fields.append(Field("scope", .string("all")))
    case .section(let index):
      fields += [Field("scope", .string("section")), Field("section", .int(index))]
    case .rows(let paths):
      fields += [
        Field("scope", .string("rows")),
        Field(
          "rows",
          .list(
            paths.map { .object([Field("section", .int($0.section)), Field("row", .int($0.row))]) }
          )),
      ]
    }
    return EventLine("DataSourceController delegate: \(mutation.description)", fields: fields)
  }

  /// The line that says the data source became empty, or stopped being empty.
  static func collectionState(empty: Bool) -> EventLine {
    let state = empty ? "empty" : "nonEmpty"
    return EventLine(
      "TableViewDataSource: collectionState \(state)",
      fields: [Field("event", .string("collectionState")), Field("state", .string(state))])
  }

  static func indexPath(_ invocation: Invocation) throws -> IndexPath {
    IndexPath(row: try invocation[rowIndex], section: try invocation[sectionIndex])
  }

  static func sectionData(_ invocation: Invocation) -> SectionDataModel? {
    let header = invocation[headerOption]?.text
    let footer = invocation[footerOption]?.text
    return header == nil && footer == nil ? nil : SectionDataModel(header: header, footer: footer)
  }

  /// The rows given after NAME: `--rows` must come with them, so that a stray word is not taken
  /// for a row.
  static func rows(_ invocation: Invocation, requireFlag: Bool = true) throws -> [RowModel] {
    let words = invocation[rowWords]
    if requireFlag, let first = words.first, !invocation[rowsFlag] {
      throw ShellError(
        "'\(first.text)' is not expected here", hint: "rows follow --rows", at: first.offset)
    }
    return try words.map { try parseModel($0.text, at: $0, in: invocation) }
  }

  /// Text, or a JSON object when it starts with `{`, decoded with JSONFactory's decoder.
  static func parseModel(_ text: String, at word: Word, in invocation: Invocation) throws
    -> RowModel
  {
    guard text.hasPrefix("{") else { return .text(text) }
    _ = try ValueInput.check(Data(text.utf8), file: nil, at: word, what: "the row")
    do {
      return try RowModel.object(
        fromJSON: text, decoder: invocation.session.factory.json.decoder())
    } catch {
      throw ShellError(describing: error).located(at: word.offset)
    }
  }

  /// The VALUE of a row command: text or JSON, or with --product a cached product.
  static func model(_ invocation: Invocation) throws -> RowModel {
    let word = try invocation[valueArgument]
    guard invocation[productFlag] else {
      return try parseModel(word.text, at: word, in: invocation)
    }
    let catalog = try invocation.session.factory.api.productCatalog()
    return .product(try catalog.cached(word.text).product)
  }

  static func describe(_ model: RowModel) -> String {
    switch model {
    case .text(let text): return text
    case .product(let product): return "Product \(product.id): \(product.name)"
    case .object(_, let json): return json
    }
  }
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

/// A cell data controller `ds register` takes, by the name DataSourceController's Domain gives it.
struct CellControllerChoice: ChoiceWord {
  /// The controller's name, such as `DetailCell`.
  let word: String

  /// Every controller Domain knows.
  static var allCases: [CellControllerChoice] { CellControllers.names.map(Self.init) }
}
