/// Every command group, in the order the help lists them.
///
/// Adding a group is one file in `Groups/` and one line here.
public enum AllGroups {
  /// The groups.
  public static let groups: [CommandGroup] = [
    Builtins.group,
    TraceGroup.group,
    FactoryGroup.group,
    DatabaseGroup.group,
    StoreGroup.group,
    ParseGroup.group,
    NetGroup.group,
    ProductGroup.group,
    DataSourceGroup.group,
    IssueGroup.group,
    AppGroup.group,
    CoordGroup.group,
    EventGroup.group,
    ScreenGroup.group,
  ]

  /// The registry built from `groups`.
  public static let registry = CommandRegistry(groups: groups)
}
