import Foundation

/// The Discover screen's events.
public enum DiscoverEvent: EventProtocol {
  /// A media item's row was selected.
  case mediaItemSelected(Int)
  /// The header (the navigation bar's title) was tapped.
  case headerTapped
  /// Something failed.
  case failed(AppError)

  /// mediaItemSelected(id), headerTapped, failed(error).
  public static let descriptors = [
    EventDescriptor("mediaItemSelected", .id), EventDescriptor("headerTapped"),
    EventDescriptor("failed", .error),
  ]

  /// Builds an event from its parts.
  public static func make(_ name: String, _ value: EventValue?) -> DiscoverEvent? {
    switch (name, value) {
    case ("mediaItemSelected", .id(let id)?): return .mediaItemSelected(id)
    case ("headerTapped", nil): return .headerTapped
    case ("failed", .error(let error)?): return .failed(error)
    default: return nil
    }
  }

  /// `mediaItemSelected(42)`.
  public var description: String {
    switch self {
    case .mediaItemSelected(let id): return "mediaItemSelected(\(id))"
    case .headerTapped: return "headerTapped"
    case .failed(let error): return "failed(\(error.rawValue))"
    }
  }
}

/// A media item screen's events, in the Discover and Favourites flows alike.
public enum MediaItemEvent: EventProtocol {
  /// Back was tapped.
  case backTapped
  /// The header (the navigation bar's title) was tapped.
  case headerTapped
  /// A related media item was selected.
  case mediaItemSelected(Int)
  /// The favourite button was tapped; the presenter has already toggled the favourite.
  case favouriteToggled
  /// Something failed.
  case failed(AppError)

  /// backTapped, headerTapped, mediaItemSelected(id), favouriteToggled, failed(error).
  public static let descriptors = [
    EventDescriptor("backTapped"), EventDescriptor("headerTapped"),
    EventDescriptor("mediaItemSelected", .id), EventDescriptor("favouriteToggled"),
    EventDescriptor("failed", .error),
  ]

  /// Builds an event from its parts.
  public static func make(_ name: String, _ value: EventValue?) -> MediaItemEvent? {
    switch (name, value) {
    case ("backTapped", nil): return .backTapped
    case ("headerTapped", nil): return .headerTapped
    case ("mediaItemSelected", .id(let id)?): return .mediaItemSelected(id)
    case ("favouriteToggled", nil): return .favouriteToggled
    case ("failed", .error(let error)?): return .failed(error)
    default: return nil
    }
  }

  /// `backTapped`.
  public var description: String {
    switch self {
    case .backTapped: return "backTapped"
    case .headerTapped: return "headerTapped"
    case .mediaItemSelected(let id): return "mediaItemSelected(\(id))"
    case .favouriteToggled: return "favouriteToggled"
    case .failed(let error): return "failed(\(error.rawValue))"
    }
  }
}

/// The catalog's media items, by family.
final class DiscoverPresenter: Presenter<DiscoverEvent> {
  override func content() throws(NavigationError) -> ScreenContent<DiscoverEvent> {
    let products = try loading("Discover") { try dependencies.mediaLibrary.mediaItems() }
    let sections = Section.byFamily(products, counting: "item")
    return ScreenContent(
      title: "Discover", sections: sections,
      registrations: [("Product", DetailCellDataController.self)],
      background: "The catalog is empty",
      selections: productSelections(sections) { .mediaItemSelected($0) })
  }
}

/// One media item: its details, the favourite button, and more of its family.
final class MediaItemPresenter: Presenter<MediaItemEvent> {
  let id: Int

  init(
    id: Int, dependencies: AppDependencies, eventHandler: @escaping (MediaItemEvent) -> Void
  ) {
    self.id = id
    super.init("MediaItem", dependencies: dependencies, eventHandler: eventHandler)
  }

  override func content() throws(NavigationError) -> ScreenContent<MediaItemEvent> {
    let item = try loading("MediaItem(\(id))") { try dependencies.mediaLibrary.mediaItem(id: id) }
    let related = try loading("MediaItem(\(id))") {
      try dependencies.mediaLibrary.mediaItems().filter { $0.family == item.family && $0.id != id }
    }
    let isFavourite = try dependencies.favourites.ids().contains(id)
    var sections = [
      Section(rows: [.product(item)]),
      Section(rows: [.text(isFavourite ? "♥ Remove from favourites" : "♡ Add to favourites")]),
    ]
    var selections: [IndexPath: RowSelection<MediaItemEvent>] = [
      IndexPath(row: 0, section: 1): .event(.favouriteToggled)
    ]
    if !related.isEmpty {
      let more = Section(
        sectionData: SectionDataModel(header: "More \(item.family)"),
        rows: related.map(RowModel.product))
      sections.append(more)
      selections.merge(productSelections([more], sectionOffset: 2) { .mediaItemSelected($0) }) {
        first, _ in first
      }
    }
    return ScreenContent(
      title: item.name, sections: sections,
      registrations: [
        ("Product", FullProductDetailsCellDataController.self),
        ("Text", BasicCellDataController.self),
      ],
      selections: selections)
  }

  override func perform(_ event: MediaItemEvent) throws(NavigationError) {
    guard case .favouriteToggled = event else { return }
    let isFavourite = try dependencies.favourites.toggle(id)
    dependencies.log.record(
      "FavouritesStore", isFavourite ? "adds" : "removes", subject: "\(id)",
      text: isFavourite ? "adds \(id) to 'bookmarks'" : "removes \(id) from 'bookmarks'")
  }
}

/// The Discover flow: the catalog, and media items pushed over it.
public final class DiscoverFlowCoordinator: FlowCoordinator {
  /// `discover`.
  public override class var coordinatorName: String { "discover" }

  /// Creates the coordinator.
  public override init(dependencies: AppDependencies) {
    super.init(dependencies: dependencies)
  }

  /// Shows Discover.
  public override func start() { navigationController.start(with: .discover) }

  /// Discover's or a media item's controller.
  public override func makeController(for screen: Screen) -> ScreenControlling? {
    switch screen {
    case .discover:
      return dependencies.main.discoverController(dependencies: dependencies) { [weak self] event in
        self?.handle(event)
      }
    case .mediaItem(let id): return mediaItemController(id)
    default: return nil
    }
  }

  func handle(_ event: DiscoverEvent) {
    handling(event) {
      switch event {
      case .mediaItemSelected(let id): navigationController.push(.mediaItem(id))
      case .headerTapped: navigationController.popToRoot()
      case .failed(let error): forward(.appError(error))
      }
    }
  }
}
