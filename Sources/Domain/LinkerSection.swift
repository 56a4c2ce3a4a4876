/// What a file places in one of archsh's linker sections: a function that adds entries to the list
/// it is given.
///
/// Files place it with `@used @section` (SE-0492). Groups register this way (`archsh_groups`),
/// and so do migrations (`archsh_migrations`); `CRegistry` names each section's bounds.
public typealias SectionRegistration = @convention(c) (UnsafeMutableRawPointer) -> Void

/// Reading a linker section of registrations.
public enum LinkerSection {
  /// Adds `entries` to the list a registration was given; the list holds `Entry`s.
  public static func add<Entry>(_ entries: [Entry], to list: UnsafeMutableRawPointer) {
    list.assumingMemoryBound(to: [Entry].self).pointee += entries
  }

  /// Calls every registration from `start` to `stop`, and returns what they added, in the
  /// linker's order; nothing when the section is empty (its bounds are null).
  public static func collect<Entry>(
    _ type: Entry.Type, from start: UnsafePointer<UnsafeRawPointer?>?,
    to stop: UnsafePointer<UnsafeRawPointer?>?
  ) -> [Entry] {
    var entries: [Entry] = []
    guard let start, let stop else { return [] }
    withUnsafeMutablePointer(to: &entries) { list in
      for index in 0..<(stop - start) {
        guard let entry = start[index] else { continue }
        unsafeBitCast(entry, to: SectionRegistration.self)(UnsafeMutableRawPointer(list))
      }
    }
    return entries
  }
}
