import Foundation

/// The MVC+C app's main flow, after BDModules' MainFactory: the tab bar container, the Discover,
/// Favourites and Profile flows, the controllers of their screens with their presenters, and the
/// providers those presenters read (the media library and the favourites).
public final class MainFactory: Factory {
  /// The root that created it.
  public unowned let root: ApplicationFactory

  init(root: ApplicationFactory) { self.root = root }

  static let mediaLibraryComponent = ComponentDeclaration<ProductMediaLibrary>(
    "mediaLibrary", of: MainFactory.self, .singleton, from: .archsh,
    "the media items: cached products, fetched through APIFactory when missing"
  ) { try $0.main.mediaLibrary }

  static let favouritesStoreComponent = ComponentDeclaration<FavouritesStore>(
    "favouritesStore", of: MainFactory.self, .singleton, from: .archsh,
    "the favourite media items, in 'bookmarks'"
  ) { try $0.main.favouritesStore }

  static let tabBarContainerComponent = ComponentDeclaration<TabBarContainer>.app(
    "tabBarContainer", of: MainFactory.self, "the tab bar; starts one flow per tab"
  ) { $0.main.tabBarContainer(dependencies: $1) }
  static let discoverFlowCoordinatorComponent = ComponentDeclaration<DiscoverFlowCoordinator>.app(
    "discoverFlowCoordinator", of: MainFactory.self, "the catalog, media items over it"
  ) { $0.main.discoverFlowCoordinator(dependencies: $1) }
  static let favouritesFlowCoordinatorComponent =
    ComponentDeclaration<FavouritesFlowCoordinator>.app(
      "favouritesFlowCoordinator", of: MainFactory.self, "the favourites, media items over them"
    ) { $0.main.favouritesFlowCoordinator(dependencies: $1) }
  static let profileFlowCoordinatorComponent = ComponentDeclaration<ProfileFlowCoordinator>.app(
    "profileFlowCoordinator", of: MainFactory.self, "the profile and its settings"
  ) { $0.main.profileFlowCoordinator(dependencies: $1) }
  static let tabBarControllerComponent = ComponentDeclaration<ScreenController<TabBarEvent>>.app(
    "tabBarController", of: MainFactory.self, "the tab bar screen and its presenter"
  ) { $0.main.tabBarController(dependencies: $1, selectedTab: .discover) { _ in } }
  static let discoverControllerComponent = ComponentDeclaration<ScreenController<DiscoverEvent>>
    .app("discoverController", of: MainFactory.self, "Discover and its presenter") {
      $0.main.discoverController(dependencies: $1) { _ in }
    }
  static let mediaItemControllerComponent =
    ComponentDeclaration<ScreenController<MediaItemEvent>>.app(
      "mediaItemController", of: MainFactory.self, "a media item and its presenter"
    ) { $0.main.mediaItemController(dependencies: $1, id: 1) { _ in } }
  static let favouritesControllerComponent =
    ComponentDeclaration<ScreenController<FavouritesEvent>>.app(
      "favouritesController", of: MainFactory.self, "Favourites and its presenter"
    ) { $0.main.favouritesController(dependencies: $1) { _ in } }
  static let profileControllerComponent = ComponentDeclaration<ScreenController<ProfileEvent>>
    .app("profileController", of: MainFactory.self, "Profile and its presenter") {
      $0.main.profileController(dependencies: $1) { _ in }
    }
  static let settingsControllerComponent = ComponentDeclaration<ScreenController<SettingsEvent>>
    .app("settingsController", of: MainFactory.self, "Settings and its presenter") {
      $0.main.settingsController(dependencies: $1) { _ in }
    }

  static let components = [
    mediaLibraryComponent.component, favouritesStoreComponent.component,
    tabBarContainerComponent.component, discoverFlowCoordinatorComponent.component,
    favouritesFlowCoordinatorComponent.component, profileFlowCoordinatorComponent.component,
    tabBarControllerComponent.component, discoverControllerComponent.component,
    mediaItemControllerComponent.component, favouritesControllerComponent.component,
    profileControllerComponent.component, settingsControllerComponent.component,
  ]

  /// The media library over the product catalog.
  public var mediaLibrary: ProductMediaLibrary {
    get throws {
      try core.singleton(Self.mediaLibraryComponent) {
        ProductMediaLibrary(
          catalogs: core.provider(of: APIFactory.productCatalogComponent) {
            [unowned root] in try root.api.productCatalog()
          })
      }
    }
  }

  /// The favourites over the `bookmarks` store.
  public var favouritesStore: FavouritesStore {
    get throws {
      try core.singleton(Self.favouritesStoreComponent) {
        FavouritesStore(
          store: try root.persistenceController(.bookmarks), decoder: root.json.decoder(),
          encoder: root.json.encoder())
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
  ) -> ScreenController<TabBarEvent> {
    core.screenController(
      Self.tabBarControllerComponent, .tabBar, providers: root.dataSource
    ) {
      TabBarPresenter(
        selectedTab: selectedTab, dependencies: dependencies, eventHandler: eventHandler)
    }
  }

  /// A new Discover controller.
  public func discoverController(
    dependencies: AppDependencies, eventHandler: @escaping (DiscoverEvent) -> Void
  ) -> ScreenController<DiscoverEvent> {
    core.screenController(
      Self.discoverControllerComponent, .discover, providers: root.dataSource
    ) {
      DiscoverPresenter("Discover", dependencies: dependencies, eventHandler: eventHandler)
    }
  }

  /// A new media item controller.
  public func mediaItemController(
    dependencies: AppDependencies, id: Int, eventHandler: @escaping (MediaItemEvent) -> Void
  ) -> ScreenController<MediaItemEvent> {
    core.screenController(
      Self.mediaItemControllerComponent, .mediaItem(id), providers: root.dataSource
    ) {
      MediaItemPresenter(id: id, dependencies: dependencies, eventHandler: eventHandler)
    }
  }

  /// A new Favourites controller.
  public func favouritesController(
    dependencies: AppDependencies, eventHandler: @escaping (FavouritesEvent) -> Void
  ) -> ScreenController<FavouritesEvent> {
    core.screenController(
      Self.favouritesControllerComponent, .favourites, providers: root.dataSource
    ) {
      FavouritesPresenter(
        "Favourites", dependencies: dependencies, eventHandler: eventHandler)
    }
  }

  /// A new Profile controller.
  public func profileController(
    dependencies: AppDependencies, eventHandler: @escaping (ProfileEvent) -> Void
  ) -> ScreenController<ProfileEvent> {
    core.screenController(
      Self.profileControllerComponent, .profile, providers: root.dataSource
    ) {
      ProfilePresenter("Profile", dependencies: dependencies, eventHandler: eventHandler)
    }
  }

  /// A new Settings controller.
  public func settingsController(
    dependencies: AppDependencies, eventHandler: @escaping (SettingsEvent) -> Void
  ) -> ScreenController<SettingsEvent> {
    core.screenController(
      Self.settingsControllerComponent, .settings, providers: root.dataSource
    ) {
      SettingsPresenter("Settings", dependencies: dependencies, eventHandler: eventHandler)
    }
  }
}
