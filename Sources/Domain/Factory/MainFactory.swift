import Foundation

/// The MVC+C app's main flow, after BDModules' MainFactory: the tab bar container, the Discover,
/// Favourites and Profile flows, the controllers of their screens with their presenters, and the
/// providers those presenters read (the media library and the favourites).
public final class MainFactory: @unchecked Sendable {
  unowned let root: ApplicationFactory
  private var core: FactoryCore { root.core }

  init(root: ApplicationFactory) { self.root = root }

  static let mediaLibraryComponent = FactoryComponent(
    "mediaLibrary", factory: "MainFactory", type: "ProductMediaLibrary", .singleton,
    summary: "the media items: cached products, fetched through APIFactory when missing"
  ) { try $0.main.mediaLibrary }

  static let favouritesStoreComponent = FactoryComponent(
    "favouritesStore", factory: "MainFactory", type: "FavouritesStore", .singleton,
    dependencies: ["persistenceController"], summary: "the favourite media items, in 'bookmarks'"
  ) { try $0.main.favouritesStore }

  static func coordinator(
    _ name: String, _ type: String, _ summary: String,
    _ obtain: @escaping @Sendable (ApplicationFactory, AppDependencies) -> Any
  ) -> FactoryComponent {
    FactoryComponent(
      name, factory: "MainFactory", type: type, .prototype, dependencies: ["appDependencies"],
      summary: summary
    ) { root in obtain(root, try root.appDependencies) }
  }

  static let tabBarContainerComponent = coordinator(
    "tabBarContainer", "TabBarContainer", "the tab bar; starts one flow per tab"
  ) { $0.main.tabBarContainer(dependencies: $1) }
  static let discoverFlowCoordinatorComponent = coordinator(
    "discoverFlowCoordinator", "DiscoverFlowCoordinator", "the catalog, media items over it"
  ) { $0.main.discoverFlowCoordinator(dependencies: $1) }
  static let favouritesFlowCoordinatorComponent = coordinator(
    "favouritesFlowCoordinator", "FavouritesFlowCoordinator",
    "the favourites, media items over them"
  ) { $0.main.favouritesFlowCoordinator(dependencies: $1) }
  static let profileFlowCoordinatorComponent = coordinator(
    "profileFlowCoordinator", "ProfileFlowCoordinator", "the profile and its settings"
  ) { $0.main.profileFlowCoordinator(dependencies: $1) }
  static let tabBarControllerComponent = coordinator(
    "tabBarController", "ScreenController<TabBarEvent>", "the tab bar screen and its presenter"
  ) { $0.main.tabBarController(dependencies: $1, selectedTab: .discover) { _ in } }
  static let discoverControllerComponent = coordinator(
    "discoverController", "ScreenController<DiscoverEvent>", "Discover and its presenter"
  ) { $0.main.discoverController(dependencies: $1) { _ in } }
  static let mediaItemControllerComponent = coordinator(
    "mediaItemController", "ScreenController<MediaItemEvent>", "a media item and its presenter"
  ) { $0.main.mediaItemController(dependencies: $1, id: 1) { _ in } }
  static let favouritesControllerComponent = coordinator(
    "favouritesController", "ScreenController<FavouritesEvent>", "Favourites and its presenter"
  ) { $0.main.favouritesController(dependencies: $1) { _ in } }
  static let profileControllerComponent = coordinator(
    "profileController", "ScreenController<ProfileEvent>", "Profile and its presenter"
  ) { $0.main.profileController(dependencies: $1) { _ in } }
  static let settingsControllerComponent = coordinator(
    "settingsController", "ScreenController<SettingsEvent>", "Settings and its presenter"
  ) { $0.main.settingsController(dependencies: $1) { _ in } }

  static let components = [
    mediaLibraryComponent, favouritesStoreComponent, tabBarContainerComponent,
    discoverFlowCoordinatorComponent, favouritesFlowCoordinatorComponent,
    profileFlowCoordinatorComponent, tabBarControllerComponent, discoverControllerComponent,
    mediaItemControllerComponent, favouritesControllerComponent, profileControllerComponent,
    settingsControllerComponent,
  ]

  /// The media library over the product catalog.
  public var mediaLibrary: ProductMediaLibrary {
    get throws {
      try core.singleton(Self.mediaLibraryComponent) { ProductMediaLibrary(api: root.api) }
    }
  }

  /// The favourites over the `bookmarks` store.
  public var favouritesStore: FavouritesStore {
    get throws {
      try core.singleton(Self.favouritesStoreComponent) {
        FavouritesStore(store: try root.persistenceController(.bookmarks))
      }
    }
  }

  /// A new tab bar container.
  public func tabBarContainer(dependencies: AppDependencies) -> TabBarContainer {
    core.prototype(Self.tabBarContainerComponent) { TabBarContainer(dependencies: dependencies) }
  }

  /// A new Discover flow coordinator.
  public func discoverFlowCoordinator(dependencies: AppDependencies) -> DiscoverFlowCoordinator {
    core.prototype(Self.discoverFlowCoordinatorComponent) {
      DiscoverFlowCoordinator(dependencies: dependencies)
    }
  }

  /// A new Favourites flow coordinator.
  public func favouritesFlowCoordinator(dependencies: AppDependencies)
    -> FavouritesFlowCoordinator
  {
    core.prototype(Self.favouritesFlowCoordinatorComponent) {
      FavouritesFlowCoordinator(dependencies: dependencies)
    }
  }

  /// A new Profile flow coordinator.
  public func profileFlowCoordinator(dependencies: AppDependencies) -> ProfileFlowCoordinator {
    core.prototype(Self.profileFlowCoordinatorComponent) {
      ProfileFlowCoordinator(dependencies: dependencies)
    }
  }

  /// A new tab bar controller.
  public func tabBarController(
    dependencies: AppDependencies, selectedTab: Tab,
    eventHandler: @escaping (TabBarEvent) -> Void
  ) -> ScreenControlling {
    core.prototype(Self.tabBarControllerComponent) {
      ScreenController(
        screen: .tabBar,
        presenter: TabBarPresenter(
          selectedTab: selectedTab, dependencies: dependencies, eventHandler: eventHandler))
    }
  }

  /// A new Discover controller.
  public func discoverController(
    dependencies: AppDependencies, eventHandler: @escaping (DiscoverEvent) -> Void
  ) -> ScreenControlling {
    core.prototype(Self.discoverControllerComponent) {
      ScreenController(
        screen: .discover,
        presenter: DiscoverPresenter(
          "Discover", dependencies: dependencies, eventHandler: eventHandler))
    }
  }

  /// A new media item controller.
  public func mediaItemController(
    dependencies: AppDependencies, id: Int, eventHandler: @escaping (MediaItemEvent) -> Void
  ) -> ScreenControlling {
    core.prototype(Self.mediaItemControllerComponent) {
      ScreenController(
        screen: .mediaItem(id),
        presenter: MediaItemPresenter(
          id: id, dependencies: dependencies, eventHandler: eventHandler))
    }
  }

  /// A new Favourites controller.
  public func favouritesController(
    dependencies: AppDependencies, eventHandler: @escaping (FavouritesEvent) -> Void
  ) -> ScreenControlling {
    core.prototype(Self.favouritesControllerComponent) {
      ScreenController(
        screen: .favourites,
        presenter: FavouritesPresenter(
          "Favourites", dependencies: dependencies, eventHandler: eventHandler))
    }
  }

  /// A new Profile controller.
  public func profileController(
    dependencies: AppDependencies, eventHandler: @escaping (ProfileEvent) -> Void
  ) -> ScreenControlling {
    core.prototype(Self.profileControllerComponent) {
      ScreenController(
        screen: .profile,
        presenter: ProfilePresenter(
          "Profile", dependencies: dependencies, eventHandler: eventHandler))
    }
  }

  /// A new Settings controller.
  public func settingsController(
    dependencies: AppDependencies, eventHandler: @escaping (SettingsEvent) -> Void
  ) -> ScreenControlling {
    core.prototype(Self.settingsControllerComponent) {
      ScreenController(
        screen: .settings,
        presenter: SettingsPresenter(
          "Settings", dependencies: dependencies, eventHandler: eventHandler))
    }
  }
}
