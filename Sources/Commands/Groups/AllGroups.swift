/// Every command group, in the order the help lists them.
///
/// A new group is one line here, as swift-argument-parser's `subcommands:` lists its commands. A
/// test fails when a group file's group is missing from the list.
public enum AllGroups {
  /// The groups by name, each built on first use; the builtins come first.
  ///
  /// A test checks that each name is the name of the group it builds, and that no two groups
  /// share a name.
  public static let lazyGroups: [LazyCommandGroup] = [
    LazyCommandGroup("") { Builtins.group },
    LazyCommandGroup("trace") { TraceGroup.group },
    LazyCommandGroup("factory") { FactoryGroup.group },
    LazyCommandGroup("db") { DatabaseGroup.group },
    LazyCommandGroup("store") { StoreGroup.group },
    LazyCommandGroup("parse") { ParseGroup.group },
    LazyCommandGroup("net") { NetGroup.group },
    LazyCommandGroup("product") { ProductGroup.group },
    LazyCommandGroup("auth") { AuthGroup.group },
    LazyCommandGroup("user") { UserGroup.group },
    LazyCommandGroup("session") { SessionGroup.group },
    LazyCommandGroup("log") { LogGroup.group },
    LazyCommandGroup("model") { ModelGroup.group },
    LazyCommandGroup("client") { ClientGroup.group },
    LazyCommandGroup("repo") { RepoGroup.group },
    LazyCommandGroup("api") { APIGroup.group },
    LazyCommandGroup("ds") { DataSourceGroup.group },
    LazyCommandGroup("issue") { IssueGroup.group },
    LazyCommandGroup("app") { AppGroup.group },
    LazyCommandGroup("coord") { CoordGroup.group },
    LazyCommandGroup("event") { EventGroup.group },
    LazyCommandGroup("screen") { ScreenGroup.group },
    LazyCommandGroup("board") { BoardGroup.group },
    LazyCommandGroup("record") { RecordGroup.group },
    LazyCommandGroup("learn") { LearnGroup.group },
  ]

  /// Every group, built.
  public static var groups: [CommandGroup] { lazyGroups.map { $0.make() } }

  /// The registry of every group; a line builds only the group it names.
  public static let registry = CommandRegistry(lazy: lazyGroups)
}
