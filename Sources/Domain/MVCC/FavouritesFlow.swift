import Foundation

/// The Favourites screen's events.
public enum FavouritesEvent: EventProtocol {
  /// A favourite's row was selected.
  case mediaItemSelected(Int)
  /// Something failed.
  case failed(AppError)

  /// mediaItemSelected(id), failed(error).
  public static let descriptors = [
    EventDescriptor("mediaItemSelected", .id), EventDescriptor("failed", .error),
  ]

  /// Builds an event from its parts.
  public static func make(_ name: String, _ value: EventValue?) -> FavouritesEvent? {
    switch (name, value) {
    case ("mediaItemSelected", .id(let id)?): return .mediaItemSelected(id)
    case ("failed", .error(let error)?): return .failed(error)
    default: return nil
    }
  }

  /// `mediaItemSelected(42)`.
  public var description: String {
    switch self {
    case .mediaItemSelected(let id): return "mediaItemSelected(\(id))"
    case .failed(let error): return "failed(\(error.rawValue))"
    }
  }
}

/// The favourite media items.
final class FavouritesPresenter: Presenter<FavouritesEvent> {
  override func content() throws(NavigationError) -> ScreenContent<FavouritesEvent> {
    let ids = try dependencies.favourites.ids()
    let products = try loading("Favourites") {
      try ids.map { try dependencies.mediaLibrary.mediaItem(id: $0) }
    }
    let sections = Section.byFamily(products, counting: "item")
    return ScreenContent(
      title: "Favourites", sections: sections,
      registrations: [("Product", DetailCellDataController.self)],
      background: "No favourites yet: a media item's ♡ adds one",
      selections: productSelections(sections) { .mediaItemSelected($0) })
  }
}

/// The Favourites flow: the favourites, and media items pushed over them.
public final class FavouritesFlowCoordinator: FlowCoordinator {
  /// `favourites`.
  public override class var coordinatorName: String { "favourites" }

  /// Creates the coordinator.
  public override init(dependencies: AppDependencies) {
    super.init(dependencies: dependencies)
  }

  /// Shows Favourites.
  public override func start() { navigationController.start(with: .favourites) }

  /// Favourites' or a media item's controller.
  public override func makeController(for screen: Screen) -> ScreenControlling? {
    switch screen {
    case .favourites:
      return dependencies.main.favouritesController(dependencies: dependencies) {
        [weak self] event in self?.handle(event)
      }
    case .mediaItem(let id): return mediaItemController(id)
    default: return nil
    }
  }

  func handle(_ event: FavouritesEvent) {
    handling(event) {
      switch event {
      case .mediaItemSelected(let id): navigationController.push(.mediaItem(id))
      case .failed(let error): forward(.appError(error))
      }
    }
  }
}
