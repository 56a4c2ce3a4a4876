import Domain
import Foundation

/// `screen`: the screen a coordinator shows, drawn through its provider, and row selection.
enum ScreenGroup {
  static let group = CommandGroup(
    "screen", summary: "draw the visible screen through its provider, and select its rows",
    from: [.mvcc],
    discussion: """
      The coordinator builds the screen's controller with its presenter. The presenter \
      retrieves and formats the data (media items are catalog products, from productCache or \
      fetched over HTTP), and the controller's table-view provider supplies it through a \
      DataSourceController with its cells registered; it is drawn as 'ds render' draws. \
      Selecting a row is tableView(_:didSelectRowAt:): the provider asks the presenter, which \
      sends the row's event to the coordinator. Rows are counted across sections from 0, or \
      given as SECTION-ROW. Every command reads what other archsh processes saved in the same \
      workspace first; when one changed the app since 'screen show' drew the rows, and they \
      differ now, 'screen select' sends nothing and asks for 'screen show' again.
      """,
    commands: [show, select])

  /// `show [COORDINATOR]`: the coordinator whose screen is drawn.
  static let showCoordinator = Option.argument(
    "COORDINATOR", .text, "the coordinator", completion: RunningApp.coordinatorNames
  ).concerning(.coordinator)
  /// `show --width`: the drawing's width.
  static let widthOption = Option(
    "width", .integer(30...200), value: "N", "the drawing's width", default: "56")
  /// `select ROW`: the row to select.
  static let rowArgument = Argument(
    "ROW", .text, "a row counted across sections from 0, or SECTION-ROW"
  ).concerning(.row)
  /// `select [COORDINATOR]`: the coordinator whose screen's row is selected.
  static let selectCoordinator = Option.argument(
    "COORDINATOR", .text, "the coordinator (the visible one by default)",
    completion: RunningApp.coordinatorNames
  ).concerning(.coordinator)

  static let show = Command(
    "show", summary: "draw the screen a coordinator shows (the visible one by default)",
    signature: Signature([showCoordinator, widthOption]),
    examples: ["screen show", "screen show profile"],
    result: .record(["coordinator", "screen", "presented", "stack", "title", "rows", "selectable"])
  ) { invocation in
    let name = invocation[showCoordinator]
    let app = try RunningApp.app(invocation.session)
    let (controller, view) = try loaded(app, name)
    let width = invocation[widthOption] ?? 56
    let coordinator = try app.target(name?.text)
    let navigation = coordinator.navigationController
    let place =
      navigation.presentedScreen == controller.screen
      ? "presents \(controller.screen)" : navigation.stackDescription
    var lines = ["\(coordinator.typeName) · \(place)"]
    lines.append(titleBar(view.title, width: width))
    let total = view.dataSourceController.totalRowCount
    lines.append(
      TableViewDrawing(controller: view.dataSourceController, width: width).table(
        from: 0, count: max(total, 1)))
    let selectable = view.selectableRows
    let flat = flatIndexes(view.dataSourceController)
    let choices = selectable.compactMap { row in flat[row.indexPath].map { ($0, row.event) } }
    lines.append(
      choices.isEmpty
        ? "no row sends an event" : "screen select " + describe(choices, events: controller.events))
    let rows = TableViewDrawing(controller: view.dataSourceController, width: width).rows(
      from: 0, count: total)
    let selections: [Value] = choices.sorted { $0.0 < $1.0 }.map { flat, event in
      .object([Field("row", .int(flat)), Field("event", .string(event))])
    }
    invocation.session.shownScreen = ShownScreen(
      name: name?.text, coordinator: coordinator.typeName, screen: controller.screen.description,
      rows: width == 56
        ? rows
        : TableViewDrawing(controller: view.dataSourceController, width: 56).rows(
          from: 0, count: total),
      adoptedChanges: try invocation.session.factory.appDelegate.adoptedChanges)
    return .view(
      text: lines.joined(separator: "\n"),
      data: .object([
        Field("coordinator", .string(coordinator.typeName)),
        Field("screen", .string(controller.screen.description)),
        Field("presented", .bool(navigation.presentedScreen == controller.screen)),
        Field("stack", .string(navigation.stackDescription)),
        Field("title", .string(view.title)),
        Field("rows", rows),
        Field("selectable", .list(selections)),
      ]))
  }

  static let select = Command(
    "select", summary: "select a row: its presenter sends the row's event",
    signature: Signature([rowArgument, selectCoordinator]),
    examples: ["screen select 0", "screen select 1-0 profile"],
    result: .events(["component", "action", "subject", "text"])
  ) { invocation in
    let rowWord = try invocation[rowArgument]
    let name = invocation[selectCoordinator]
    let session = invocation.session
    let delegate = try session.factory.appDelegate
    return try RunningApp.navigate(session) { app in
      let (controller, view) = try loaded(app, name)
      // The rows the user was shown are the ones selected from: when another shell changed the
      // app since 'screen show' drew them, and they are not the same rows now, nothing is sent.
      if let shown = session.shownScreen, shown.name == name?.text,
        shown.adoptedChanges != delegate.adoptedChanges
      {
        let coordinator = try app.target(name?.text)
        let total = view.dataSourceController.totalRowCount
        let now = ShownScreen(
          name: shown.name, coordinator: coordinator.typeName,
          screen: controller.screen.description,
          rows: TableViewDrawing(controller: view.dataSourceController, width: 56).rows(
            from: 0, count: total),
          adoptedChanges: delegate.adoptedChanges)
        guard now.coordinator == shown.coordinator, now.screen == shown.screen,
          now.rows == shown.rows
        else {
          throw ShellError(
            "another archsh changed the app since 'screen show' drew \(shown.screen) "
              + "(\(shown.coordinator)): it shows \(now.screen) (\(now.coordinator)) now, so row "
              + "\(rowWord.text) was not selected",
            hint: "run 'screen show' again, and select from what it draws", at: rowWord.offset)
        }
        session.shownScreen?.adoptedChanges = delegate.adoptedChanges
      }
      guard let indexPath = indexPath(rowWord.text, in: view.dataSourceController) else {
        let count = view.dataSourceController.totalRowCount
        if Int(rowWord.text) == nil && !rowWord.text.contains("-") {
          throw ShellError(
            "'\(rowWord.text)' is not a row",
            hint: "give a number such as 0, or SECTION-ROW such as 1-0",
            at: rowWord.offset)
        }
        throw NavigationError.rowOutOfRange(
          screen: controller.screen.description, row: rowWord.text, count: count)
      }
      try view.provider.didSelectRow(at: indexPath)
    }
  }

  // MARK: - Helpers

  /// What `screen show` drew, which `screen select` checks it acts on.
  struct ShownScreen {
    /// The coordinator named to `screen show`, or nil for the visible one.
    var name: String?
    var coordinator: String
    var screen: String
    /// The rows as drawn, at the width the check uses.
    var rows: Value
    /// `AppDelegate.adoptedChanges` then.
    var adoptedChanges: Int
  }

  /// A new controller for the screen a coordinator shows (the visible one without a name), and
  /// its loaded view.
  static func loaded(_ app: AppConfigurator, _ name: Word?) throws -> (
    ScreenControlling, RootView
  ) {
    let controller = try app.controller(forCoordinatorNamed: name?.text)
    let view = try controller.loadRootView()
    return (controller, view)
  }

  /// The navigation bar: the title centred in a rule.
  static func titleBar(_ title: String, width: Int) -> String {
    let text = " \(title) "
    let side = max(2, (width - text.displayWidth) / 2)
    let rest = max(2, width - text.displayWidth - side)
    return String(repeating: "━", count: side) + text + String(repeating: "━", count: rest)
  }

  /// Each row's index counted across sections.
  static func flatIndexes(_ controller: DataSourceController) -> [IndexPath: Int] {
    var result: [IndexPath: Int] = [:]
    var flat = 0
    for (section, rows) in controller.sections.enumerated() {
      for row in rows.rows.indices {
        result[IndexPath(row: row, section: section)] = flat
        flat += 1
      }
    }
    return result
  }

  /// `5` or `1-0` as an index path of the data source; nil when it names no row.
  static func indexPath(_ text: String, in controller: DataSourceController) -> IndexPath? {
    let sections = controller.sections
    if let flat = Int(text) {
      guard flat >= 0 else { return nil }
      var remaining = flat
      for (index, section) in sections.enumerated() {
        if remaining < section.rows.count { return IndexPath(row: remaining, section: index) }
        remaining -= section.rows.count
      }
      return nil
    }
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 2, let section = Int(parts[0]), let row = Int(parts[1]),
      sections.indices.contains(section), sections[section].rows.indices.contains(row)
    else { return nil }
    return IndexPath(row: row, section: section)
  }

  /// `0–14: mediaItemSelected(id) · 15: favouriteToggled`: runs of rows that send the same event.
  static func describe(_ choices: [(Int, String)], events: [EventDescriptor]) -> String {
    func eventName(_ description: String) -> String {
      String(description.prefix { $0 != "(" })
    }
    var runs: [(first: Int, last: Int, event: String)] = []
    for (flat, event) in choices.sorted(by: { $0.0 < $1.0 }) {
      if let last = runs.last, last.last == flat - 1, eventName(last.event) == eventName(event) {
        runs[runs.count - 1].last = flat
      } else {
        runs.append((flat, flat, event))
      }
    }
    return runs.map { run in
      guard run.first != run.last else { return "\(run.first): \(run.event)" }
      let signature =
        events.first { $0.name == eventName(run.event) }?.signature ?? eventName(run.event)
      return "\(run.first)–\(run.last): \(signature)"
    }.joined(separator: " · ")
  }
}
