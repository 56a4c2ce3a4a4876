import Foundation

/// Keeps the running root coordinator, as an iOS app delegate keeps its window's: it launches the
/// app, restores it from the state saved in the workspace, and saves it after each change.
public final class AppDelegate {
  /// What the coordinators are built with.
  public let dependencies: AppDependencies
  private let stateStore: AppStateStore
  private let makeConfigurator: () throws -> AppConfigurator
  /// The root coordinator while the app runs in this session.
  public private(set) var app: AppConfigurator?

  init(
    dependencies: AppDependencies, stateStore: AppStateStore,
    makeConfigurator: @escaping () throws -> AppConfigurator
  ) {
    self.dependencies = dependencies
    self.stateStore = stateStore
    self.makeConfigurator = makeConfigurator
  }

  /// The saved state, or nil.
  public func savedState() throws(NavigationError) -> AppSnapshot? { try stateStore.load() }

  /// How many times this process took a state another archsh process saved (`adopt`): a screen
  /// drawn before the count moved may not be the one that is there now.
  public private(set) var adoptedChanges = 0

  /// Launches the app, storing `sessionID` as the session first when it is given.
  ///
  /// An app running in this process is not started again. A state saved in the workspace (by an
  /// earlier process, or another one now) is what the app launches into, as iOS's state
  /// restoration would: the workspace keeps where the app was, never whether a process runs it.
  public func start(sessionID: String?) throws -> AppConfigurator {
    if let app { throw NavigationError.alreadyRunning(flow: app.flow.rawValue) }
    if let sessionID {
      try dependencies.sessionStore.store(id: sessionID, email: nil)
      dependencies.log.record(
        "SessionStore", "stores", subject: "session", text: "stores the given session in 'user'")
    }
    if let restored = try restoreSaved() { return restored }
    let app = try makeConfigurator()
    try app.launch()
    try stateStore.exclusively("starting the app") { change in
      // Another process started it meanwhile: its app is the one that runs here too.
      if case .replaced = change {
        try adopt(change)
        return
      }
      self.app = app
      try save()
    }
    return self.app ?? app
  }

  /// Launches from the saved state, saying so; nil when nothing is saved.
  private func restoreSaved() throws -> AppConfigurator? {
    guard let saved = try stateStore.load() else { return nil }
    let app = try makeConfigurator()
    try app.launch(restoring: saved)
    _ = dependencies.log.drain()
    dependencies.log.record(
      "AppDelegate", "restores", subject: saved.flow,
      text: "launches into the state saved in the workspace (the \(saved.flow) flow)")
    self.app = app
    try stateStore.exclusively("restoring the app") { change in
      try adopt(change)
      try save()
    }
    return self.app
  }

  /// The running app, restored from the saved state when this session has none in memory; nil
  /// (or `notRunning` when `required`) when nothing is saved.
  ///
  /// A restore's own steps are dropped unless `quiet` is false.
  ///
  /// An app in memory is first brought up to what another archsh process saved since this one
  /// last looked (one read of the workspace's data version when nothing changed).
  public func running(required: Bool, quiet: Bool = true) throws -> AppConfigurator? {
    if app != nil {
      try adopt(try stateStore.changeElsewhere())
      if let app { return app }
      if required { throw NavigationError.notRunning }
      return nil
    }
    guard let saved = try stateStore.load() else {
      if required { throw NavigationError.notRunning }
      return nil
    }
    let app = try makeConfigurator()
    try app.launch(restoring: saved)
    self.app = app
    if quiet { _ = dependencies.log.drain() }
    // Saved with the lock held, over exactly what was read: another process may have moved on.
    try stateStore.exclusively("restoring the app") { change in
      try adopt(change)
      try save()
    }
    if required, self.app == nil { throw NavigationError.notRunning }
    return self.app
  }

  /// Takes what another archsh process did to the saved state: its app runs from now on.
  private func adopt(_ change: AppStateStore.Change) throws {
    switch change {
    case .none: break
    case .cleared:
      app = nil
      adoptedChanges += 1
    case .replaced(let saved):
      adoptedChanges += 1
      let restored = try makeConfigurator()
      try restored.launch(restoring: saved)
      app = restored
      _ = dependencies.log.drain()
    }
  }

  /// The running app, with what restoring it recorded dropped; `notRunning` without one.
  public func runningApp() throws -> AppConfigurator {
    guard let app = try running(required: true) else { throw NavigationError.notRunning }
    _ = drain()
    return app
  }

  /// Runs a navigation on the running app and saves the state; returns what each part did.
  ///
  /// The workspace's write lock is held from reading the state to saving it: when another archsh
  /// process changed the state since this one last saw it, the app is restored from what is saved
  /// first, so that the navigation applies to it and nothing the other process did is lost.
  public func navigate(_ body: (AppConfigurator) throws -> Void) throws -> [NavigationRecord] {
    // The app in memory is brought up to date under the lock below: looking for other processes'
    // commits first as well would be a second read for every event.
    if app == nil { _ = try running(required: true) }
    _ = drain()
    try stateStore.exclusively("sending an event") { change in
      try adopt(change)
      guard let app else { throw NavigationError.notRunning }
      try body(app)
      try save()
    }
    return drain()
  }

  /// Drops the coordinators in memory and launches again from the saved state, as a new process.
  public func relaunch() throws -> AppConfigurator {
    app = nil
    guard let app = try running(required: true, quiet: false) else {
      throw NavigationError.notRunning
    }
    return app
  }

  /// Stops the app and clears its saved state; returns whether there was anything to stop.
  public func reset() throws(NavigationError) -> Bool {
    let wasRunning = app != nil
    app = nil
    let cleared = try stateStore.clear()
    return wasRunning || cleared
  }

  /// Saves the app's state in the workspace.
  public func save() throws(NavigationError) {
    guard let app else { return }
    try stateStore.save(app.snapshot)
  }

  /// The steps recorded since the last call.
  public func drain() -> [NavigationRecord] { dependencies.log.drain() }
}
