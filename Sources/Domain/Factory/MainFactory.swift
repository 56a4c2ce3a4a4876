import Foundation

/// The MVC+C app's main flow, after BDModules' MainFactory: the tab bar container, the Discover,
/// Favourites and Profile flows, the controllers of their screens with their presenters, and the
/// providers those presenters read (the media library and the favourites).
public final class MainFactory: Factory {

  static let mediaLibraryComponent = FactoryComponent(
    "mediaLibrary", factory: "MainFactory", type: "ProductMediaLibrary", .singleton,
    summary: "the media items: cached products, fetched through APIFactory when missing"
  ) { try $0.main.mediaLibrary }

  static let favouritesStoreComponent = FactoryComponent(
    "favouritesStore", factory: "MainFactory", type: "FavouritesStore", .singleton,
    dependencies: ["persistenceController"], summary: "the favourite media items, in 'bookmarks'"
  ) { try $0.main.favouritesStore }

  static func component(
    _ name: String, _ typeName: String, _ summary: String,
    _ obtain: @escaping @Sendable (ApplicationFactory, AppDependencies) -> Any
  ) -> FactoryComponent {
    .app(name, factory: "MainFactory", type: typeName, summary: summary, obtain: obtain)
  }

  static let tabBarContainerComponent = component(
    "tabBarContainer", "TabBarContainer", "the tab bar; starts one flow per tab"
  ) { $0.main.tabBarContainer(dependencies: $1) }
  static let discoverFlowCoordinatorComponent = component(
    "discoverFlowCoordinator", "DiscoverFlowCoordinator", "the catalog, media items over it"
  ) { $0.main.discoverFlowCoordinator(dependencies: $1) }
  static let favouritesFlowCoordinatorComponent = component(
    "favouritesFlowCoordinator", "FavouritesFlowCoordinator",
    "the favourites, media items over them"
  ) { $0.main.favouritesFlowCoordinator(dependencies: $1) }
  static let profileFlowCoordinatorComponent = component(
    "profileFlowCoordinator", "ProfileFlowCoordinator", "the profile and its settings"
  ) { $0.main.profileFlowCoordinator(dependencies: $1) }
  static let tabBarControllerComponent = component(
    "tabBarController", "ScreenController<TabBarEvent>", "the tab bar screen and its presenter"
  ) { $0.main.tabBarController(dependencies: $1, selectedTab: .discover) { _ in } }
  static let discoverControllerComponent = component(
    "discoverController", "ScreenController<DiscoverEvent>", "Discover and its presenter"
  ) { $0.main.discoverController(dependencies: $1) { _ in } }
  static let mediaItemControllerComponent = component(
    "mediaItemController", "ScreenController<MediaItemEvent>", "a media item and its presenter"
  ) { $0.main.mediaItemController(dependencies: $1, id: 1) { _ in } }
  static let favouritesControllerComponent = component(
    "favouritesController", "ScreenController<FavouritesEvent>", "Favourites and its presenter"
  ) { $0.main.favouritesController(dependencies: $1) { _ in } }
  static let profileControllerComponent = component(
    "profileController", "ScreenController<ProfileEvent>", "Profile and its presenter"
  ) { $0.main.profileController(dependencies: $1) { _ in } }
  static let settingsControllerComponent = component(
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
    core.screenController(Self.tabBarControllerComponent, .tabBar) {
      TabBarPresenter(
        selectedTab: selectedTab, dependencies: dependencies, eventHandler: eventHandler)
    }
  }

  /// A new Discover controller.
  public func discoverController(
    dependencies: AppDependencies, eventHandler: @escaping (DiscoverEvent) -> Void
  ) -> ScreenControlling {
    core.screenController(Self.discoverControllerComponent, .discover) {
      DiscoverPresenter("Discover", dependencies: dependencies, eventHandler: eventHandler)
    }
  }

  /// A new media item controller.
  public func mediaItemController(
    dependencies: AppDependencies, id: Int, eventHandler: @escaping (MediaItemEvent) -> Void
  ) -> ScreenControlling {
    core.screenController(Self.mediaItemControllerComponent, .mediaItem(id)) {
      MediaItemPresenter(id: id, dependencies: dependencies, eventHandler: eventHandler)
    }
  }

  /// A new Favourites controller.
  public func favouritesController(
    dependencies: AppDependencies, eventHandler: @escaping (FavouritesEvent) -> Void
  ) -> ScreenControlling {
    core.screenController(Self.favouritesControllerComponent, .favourites) {
      FavouritesPresenter(
        "Favourites", dependencies: dependencies, eventHandler: eventHandler)
    }
  }

  /// A new Profile controller.
  public func profileController(
    dependencies: AppDependencies, eventHandler: @escaping (ProfileEvent) -> Void
  ) -> ScreenControlling {
    core.screenController(Self.profileControllerComponent, .profile) {
      ProfilePresenter("Profile", dependencies: dependencies, eventHandler: eventHandler)
    }
  }

  /// A new Settings controller.
  public func settingsController(
    dependencies: AppDependencies, eventHandler: @escaping (SettingsEvent) -> Void
  ) -> ScreenControlling {
    core.screenController(Self.settingsControllerComponent, .settings) {
      SettingsPresenter("Settings", dependencies: dependencies, eventHandler: eventHandler)
    }
  }
}
