import Synchronization

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
  ///
  /// With courses whose commands were added (`addCourseCommands`), those are builtins too.
  public static var registry: CommandRegistry { withCourses.withLock { $0 } ?? base }

  private static let base = CommandRegistry(lazy: lazyGroups)
  private static let withCourses = Mutex<CommandRegistry?>(nil)
  private static let courseNames = Mutex<Set<String>>([])

  /// The builtins' and the groups' names: archsh's own, which no course command may take.
  public static var ownNames: Set<String> { Set(base.topLevelNames) }

  /// The names of the commands the courses added.
  public static var courseCommandNames: Set<String> { courseNames.withLock { $0 } }

  /// Adds the commands of every course added so far (`Courses`), as builtins; returns a line for
  /// each command file that could not be added, such as one that would shadow archsh's own.
  public static func addCourseCommands() -> [String] {
    let loaded = CourseCommands.load(Courses.teachers, taken: ownNames)
    let builtins = Builtins.group
    let merged = CommandGroup(
      "", summary: builtins.summary, from: builtins.origins, discussion: builtins.discussion,
      commands: builtins.commands + loaded.commands, hints: builtins.hints,
      offered: builtins.offered)
    let groups = [LazyCommandGroup("") { merged }] + lazyGroups.dropFirst()
    withCourses.withLock { $0 = loaded.commands.isEmpty ? nil : CommandRegistry(lazy: groups) }
    courseNames.withLock { $0 = Set(loaded.commands.map(\.name)) }
    return loaded.problems
  }
}
