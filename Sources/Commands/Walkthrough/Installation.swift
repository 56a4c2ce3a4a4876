import Foundation

/// Where archsh finds what it reads at run time (its walkthroughs and its exercises): relative to
/// its own executable, never at a path compiled in.
///
/// Installed (`make install`, a release archive), the executable is `PREFIX/bin/archsh` and they
/// are in `PREFIX/share/archsh/`. Run from the build tree (`.build-release/release/archsh`,
/// `.build/debug/archsh`), they are the tree's `examples/` and `Sources/Commands/Learn/Exercises/`,
/// found by going up from the executable to the folder that holds `Package.swift`.
public enum Installation {
  /// What is looked for.
  public enum Resource: Sendable {
    /// The walkthroughs (`basics.ash`, …): `share/archsh/walkthroughs`, or `examples/`.
    case walkthroughs
    /// archsh's own exercises: `share/archsh/exercises`, or `Sources/Commands/Learn/Exercises/`.
    case exercises

    /// Its folder under `share/archsh`.
    var installedName: String { self == .walkthroughs ? "walkthroughs" : "exercises" }
    /// Its folder in the build tree.
    var treePath: String { self == .walkthroughs ? "examples" : "Sources/Commands/Learn/Exercises" }
    /// A file it always holds, which tells the folder is the right one.
    var marker: String? { self == .walkthroughs ? "basics.ash" : nil }
    /// The environment variable that names its folder instead.
    var variable: String? { self == .walkthroughs ? "ARCHSH_WALKTHROUGHS" : nil }
  }

  /// The folders looked in for `resource`, in order: its variable's folder when it is set, then
  /// `share/archsh` beside the executable's folder, then the build tree's.
  public static func candidates(for resource: Resource) -> [String] {
    var folders: [String] = []
    if let name = resource.variable, let value = Platform.variable(name),
      !value.isEmpty
    {
      folders.append(value)
    }
    guard let executable = executablePath else { return folders }
    let bin = (executable as NSString).deletingLastPathComponent
    folders.append(
      ((bin as NSString).appendingPathComponent("../share/archsh/" + resource.installedName)
        as NSString).standardizingPath)
    if let tree = buildTree(above: bin) {
      folders.append((tree as NSString).appendingPathComponent(resource.treePath))
    }
    return folders
  }

  /// The first folder of `candidates(for:)` that holds `resource`, or nil.
  public static func directory(for resource: Resource) -> String? {
    candidates(for: resource).first { folder in
      var isDirectory: ObjCBool = false
      let path = resource.marker.map { (folder as NSString).appendingPathComponent($0) } ?? folder
      return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        && isDirectory.boolValue == (resource.marker == nil)
    }
  }

  /// The build tree the executable is in: the nearest folder above it (at most five levels, as
  /// in `.build/x86_64-unknown-linux-gnu/debug/`) that holds `Package.swift` and `examples/`.
  private static func buildTree(above folder: String) -> String? {
    var folder = folder
    for _ in 0..<5 {
      folder = (folder as NSString).deletingLastPathComponent
      let manager = FileManager.default
      if manager.fileExists(atPath: folder + "/Package.swift"),
        manager.fileExists(atPath: folder + "/examples/basics.ash")
      {
        return folder
      }
      if folder == "/" || folder.isEmpty { break }
    }
    return nil
  }

  /// The running binary's path, symbolic links resolved: Foundation asks `/proc/self/exe` on
  /// Linux and `_NSGetExecutablePath` on macOS.
  private static var executablePath: String? {
    Bundle.main.executableURL?.resolvingSymlinksInPath().path
  }
}
