import Domain

/// What the `app`, `coord`, `event` and `screen` groups share: the app delegate the factory
/// builds, and the running app it keeps.
enum RunningApp {
  /// The running app, restored from the workspace on first use; an error when there is none.
  static func app(_ session: Session) throws -> AppConfigurator {
    try session.factory.appDelegate.runningApp()
  }

  /// Runs a navigation on the running app, saves the state, and shows what each part did.
  static func navigate(_ session: Session, _ body: (AppConfigurator) throws -> Void) throws
    -> Output
  {
    .events(try session.factory.appDelegate.navigate(body))
  }

  /// The app in memory, which never builds or restores anything.
  static func inMemory(_ session: Session) -> AppConfigurator? {
    session.factory.builtAppDelegate?.app
  }

  /// The app as completion sees it: the one in memory, or the one saved in the workspace by an
  /// earlier run, restored quietly as the next command would restore it; nil when none is saved.
  static func forCompletion(_ session: Session) -> AppConfigurator? {
    inMemory(session) ?? (try? session.factory.appDelegate.running(required: false)) ?? nil
  }

  /// The running coordinators' names, or every name when the app is not in memory.
  static let coordinatorNames: CompletionProvider = { context in
    let names =
      forCompletion(context.session)?.coordinators.map(\.name) ?? AppConfigurator.coordinatorNames
    return names.filter { $0.hasPrefix(context.prefix) }
  }
}
