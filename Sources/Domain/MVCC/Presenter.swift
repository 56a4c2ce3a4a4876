import Foundation

/// Something that sends events of one enum to whoever handles them (the guide's `EventSourse`).
public protocol EventSource: AnyObject {
  /// The event enum.
  associatedtype Event: EventProtocol
  /// Who handles the events: the coordinator that built the presenter.
  var eventHandler: ((Event) -> Void)? { get }
}

/// What selecting a row does.
public enum RowSelection<Event: Sendable>: Sendable {
  /// The presenter sends this event.
  case event(Event)
  /// Nothing is sent: the row's event needs an argument that selecting cannot give.
  case needs(EventArgument)
}

/// What a presenter hands its controller: a title, the list, how to draw its rows, and what
/// selecting each row sends.
public struct ScreenContent<Event: Sendable> {
  /// The navigation bar's title.
  public var title: String
  /// The list's sections.
  public var sections: [Section]
  /// Cell data controllers by model type.
  public var registrations: [(modelType: String, controller: CellDataController.Type)]
  /// What the table shows when the list is empty.
  public var background: String?
  /// The selectable rows.
  public var selections: [IndexPath: RowSelection<Event>]

  /// Creates content; text rows draw as basic cells unless registered otherwise.
  public init(
    title: String, sections: [Section],
    registrations: [(modelType: String, controller: CellDataController.Type)] = [
      ("Text", BasicCellDataController.self)
    ], background: String? = nil, selections: [IndexPath: RowSelection<Event>] = [:]
  ) {
    self.title = title
    self.sections = sections
    self.registrations = registrations
    self.background = background
    self.selections = selections
  }
}

/// The business logic of one screen: it retrieves and formats its data and sends its events (the
/// guide's `Presenter`).
///
/// archsh's presenters are subclasses of this one generic class, one per screen, each with its
/// own event enum. `perform(_:)` is the business logic an event needs before the coordinator
/// hears of it, such as storing the session of a login.
public class Presenter<Event: EventProtocol>: EventSource {
  /// The coordinator's handler.
  public let eventHandler: ((Event) -> Void)?
  /// The name in traces: `Presenter(Discover)`.
  public let name: String
  let dependencies: AppDependencies

  init(
    _ name: String, dependencies: AppDependencies, eventHandler: @escaping (Event) -> Void
  ) {
    self.name = name
    self.dependencies = dependencies
    self.eventHandler = eventHandler
  }

  /// The screen's data, formatted for its controller.
  public func content() throws(NavigationError) -> ScreenContent<Event> {
    ScreenContent(title: name, sections: [])
  }

  /// The business logic that runs before the event reaches the coordinator.
  func perform(_ event: Event) throws(NavigationError) {}

  /// Runs the event's business logic and sends it to the coordinator, in a span of its own.
  public func send(_ event: Event) throws(NavigationError) {
    let component = "Presenter(\(name))"
    let mark = dependencies.log.records.count
    dependencies.log.record(component, "sends", subject: "\(event)", traced: false)
    do {
      try storage {
        try dependencies.log.tracer.withSpan(component, "sends \(event)") { _ in
          try perform(event)
          eventHandler?(event)
        }
      }
    } catch {
      dependencies.log.truncate(to: mark)
      throw error
    }
  }
}

/// What a controller shows: its title and its list, through its provider.
public struct RootView {
  /// The navigation bar's title.
  public let title: String
  /// The provider that owns the list's data source.
  public let provider: TableViewProvider
  /// The rows that send an event when selected, in order, with the event each sends.
  public let selectableRows: [(indexPath: IndexPath, event: String)]

  /// The list.
  public var dataSourceController: DataSourceController { provider.dataSourceController }
}

/// How a screen's controller gets a new provider each time it loads its view: made by
/// DataSourceFactory, and given to the controller when the controller is built.
public typealias TableViewProviderMaker = (
  _ sections: [Section],
  _ registrations: [(modelType: String, controller: CellDataController.Type)],
  _ background: String?, _ didSelect: @escaping (IndexPath) throws(NavigationError) -> Void
) -> TableViewProvider

/// Supplies a screen's list through a DataSourceController, registers its cells, and turns a row
/// selection into a presenter event (the guide's Table/CollectionViewProvider).
public final class TableViewProvider: DataSourceControllerDelegate {
  /// The list.
  public let dataSourceController: DataSourceController
  private let background: EmptyStateViewController?
  private let didSelect: (IndexPath) throws(NavigationError) -> Void

  init(
    dataSourceController: DataSourceController,
    registrations: [(modelType: String, controller: CellDataController.Type)],
    background: EmptyStateViewController?,
    didSelect: @escaping (IndexPath) throws(NavigationError) -> Void
  ) {
    self.dataSourceController = dataSourceController
    for registration in registrations {
      dataSourceController.register(
        dataController: registration.controller, for: registration.modelType)
    }
    self.background = background
    self.didSelect = didSelect
    dataSourceController.delegate = self
  }

  /// The empty list's message: an empty state without a button.
  public func backgroundEmptyView() -> EmptyStateViewController? { background }

  /// tableView(_:didSelectRowAt:): asks the presenter to send the row's event.
  public func didSelectRow(at indexPath: IndexPath) throws(NavigationError) {
    try didSelect(indexPath)
  }
}

/// Gives access to a controller's view (the guide's `RootViewGettable`).
public protocol RootViewGettable {
  /// Loads the view: the presenter's data through the provider.
  func loadRootView() throws(NavigationError) -> RootView
}

/// Provides a controller's events to its coordinator (the guide's `ControllerEventSourse`).
public protocol ControllerEventSource {
  /// The event enum.
  associatedtype Event: EventProtocol
  /// Who handles the events.
  var eventHandler: ((Event) -> Void)? { get }
}

/// A screen's controller (the guide's `Controller`): built with its presenter, it draws and
/// reports what the user did.
///
/// It has no coordinator and no navigation controller, so it cannot show other controllers or
/// present itself.
public protocol Controller: AnyObject, RootViewGettable, ControllerEventSource {}

/// A controller as the shell drives it, whatever its event enum.
public protocol ScreenControlling: AnyObject {
  /// The screen it was built for.
  var screen: Screen { get }
  /// Its presenter's name, such as `Discover`.
  var presenterName: String { get }
  /// The events its presenter can send.
  var events: [EventDescriptor] { get }
  /// Loads its view.
  func loadRootView() throws(NavigationError) -> RootView
  /// The event of that name, or an error that says what this screen can send.
  func descriptor(named name: String) throws(NavigationError) -> EventDescriptor
  /// Has the presenter send the event of that name, with its typed argument.
  func send(eventNamed name: String, value: EventValue?) throws(NavigationError)
}

/// The controller archsh builds for every screen, with the screen's presenter.
public final class ScreenController<Event: EventProtocol>: Controller, ScreenControlling {
  /// The screen.
  public let screen: Screen
  private let presenter: Presenter<Event>
  private let tableViewProviders: TableViewProviderMaker

  /// Creates a controller with its presenter, and the way to make a provider for its list.
  init(
    screen: Screen, presenter: Presenter<Event>,
    tableViewProviders: @escaping TableViewProviderMaker
  ) {
    self.screen = screen
    self.presenter = presenter
    self.tableViewProviders = tableViewProviders
  }

  /// The presenter's handler: the coordinator's.
  public var eventHandler: ((Event) -> Void)? { presenter.eventHandler }
  /// The presenter's name.
  public var presenterName: String { presenter.name }
  /// Every event of the screen's enum.
  public var events: [EventDescriptor] { Event.descriptors }

  /// The presenter's data through a new provider.
  public func loadRootView() throws(NavigationError) -> RootView {
    let content = try presenter.content()
    let presenter = self.presenter
    let screen = self.screen
    let provider = tableViewProviders(
      content.sections, content.registrations, content.background
    ) { indexPath throws(NavigationError) in
      guard content.sections.indices.contains(indexPath.section),
        content.sections[indexPath.section].rows.indices.contains(indexPath.row)
      else {
        throw .rowOutOfRange(
          screen: screen.description, row: indexPath.shortDescription,
          count: content.sections.reduce(0) { $0 + $1.rows.count })
      }
      switch content.selections[indexPath] {
      case .event(let event)?: try presenter.send(event)
      case .needs(let argument)?:
        throw .rowNeedsArgument(
          screen: screen.description, row: indexPath.shortDescription, argument: argument)
      case nil:
        throw .rowNotSelectable(
          screen: screen.description, row: indexPath.shortDescription,
          reason: "sends no event when selected")
      }
    }
    let selectable = content.selections.compactMap {
      indexPath, selection -> (indexPath: IndexPath, event: String)? in
      if case .event(let event) = selection { return (indexPath, event.description) }
      return nil
    }.sorted { ($0.indexPath.section, $0.indexPath.row) < ($1.indexPath.section, $1.indexPath.row) }
    return RootView(title: content.title, provider: provider, selectableRows: selectable)
  }

  /// The event of that name, or an error that says what this screen can send.
  public func descriptor(named name: String) throws(NavigationError) -> EventDescriptor {
    try Event.descriptor(named: name, screen: screen)
  }

  /// Makes the event for this screen and has the presenter send it.
  public func send(eventNamed name: String, value: EventValue?) throws(NavigationError) {
    try presenter.send(Event.make(name, value: value, screen: screen))
  }

}

// MARK: - Rows

extension RowModel {
  /// A row drawn by DetailCell: a title and a detail.
  static func detail(_ title: String, _ detail: String) -> RowModel {
    let object = ["type": "DetailCell", "title": title, "detail": detail]
    let data =
      (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    return .object(type: "DetailCell", json: String(decoding: data, as: UTF8.self))
  }
}

/// Selections that send `make(id)` for every product row.
func productSelections<Event>(
  _ sections: [Section], sectionOffset: Int = 0, _ make: (Int) -> Event
) -> [IndexPath: RowSelection<Event>] {
  var selections: [IndexPath: RowSelection<Event>] = [:]
  for (sectionIndex, section) in sections.enumerated() {
    for (rowIndex, row) in section.rows.enumerated() {
      if case .product(let product) = row {
        selections[IndexPath(row: rowIndex, section: sectionIndex + sectionOffset)] = .event(
          make(product.id))
      }
    }
  }
  return selections
}

func loading<T>(_ screen: String, _ body: () throws -> T) throws(NavigationError) -> T {
  do {
    return try body()
  } catch {
    throw .loadFailed(screen: screen, reason: String(describing: error))
  }
}

// MARK: - The presenters
