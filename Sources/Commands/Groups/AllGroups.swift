/// Every command group, in the order the help lists them.
///
/// There is no list to edit: each group file registers its group in the `archsh_groups` linker
/// section (`GroupRegistration`), with its place in the help, and this reads them all.
public enum AllGroups {
  /// The groups by name, each built on first use; the builtins come first.
  ///
  /// A test checks that each name is the name of the group it builds, and that no two groups
  /// share a name or a place.
  public static let lazyGroups: [LazyCommandGroup] = GroupRegistrations.all()

  /// Every group, built.
  public static var groups: [CommandGroup] { lazyGroups.map { $0.make() } }

  /// The registry of every group; a line builds only the group it names.
  public static let registry = CommandRegistry(lazy: lazyGroups)
}
