import CRegistry
import Domain

/// What a group file places in the `archsh_groups` linker section: a function that adds the
/// file's group to the list it is given.
///
/// A group registers itself, in its own file:
///
/// ```swift
/// @used @section("archsh_groups")
/// let storeGroupRegistration: GroupRegistration = { groups in
///   GroupRegistrations.add(LazyCommandGroup("store", order: 40) { StoreGroup.group }, to: groups)
/// }
/// ```
///
/// The linker gathers every such function into one array, and `AllGroups` calls each of them
/// once, at the first command line: adding a group touches no central list.
public typealias GroupRegistration = SectionRegistration

/// Reading the groups' section.
public enum GroupRegistrations {
  /// Adds `group` to the list a registration was given.
  public static func add(_ group: LazyCommandGroup, to list: UnsafeMutableRawPointer) {
    LinkerSection.add([group], to: list)
  }

  /// Every group placed in the section, in help order (then by name).
  public static func all() -> [LazyCommandGroup] {
    let groups = LinkerSection.collect(
      LazyCommandGroup.self, from: archsh_groups_start(), to: archsh_groups_stop())
    // The builtins register like every group: none found means the linker dropped the section,
    // a defect of the build that no input can cause.
    precondition(
      !groups.isEmpty, "no command group was registered: the archsh_groups section is empty")
    return groups.sorted { ($0.order, $0.name) < ($1.order, $1.name) }
  }
}
