import Foundation
import Synchronization

/// A course: a folder a teacher writes, without Swift, that adds walkthroughs, exercises and
/// commands to archsh.
///
/// ```
/// my-course/
///   walkthroughs/NAME.ash   (and NAME.out, its transcript)   help walkthroughs, --tour, --check
///   exercises/NAME.ash                                      learn list, learn start, learn verify
///   commands/NAME.ash                                       the command NAME
/// ```
///
/// archsh's own walkthroughs and exercises are its first course, `archsh`, laid out the same way
/// where it is installed (`share/archsh/walkthroughs`, `share/archsh/exercises`).
public struct Course: Sendable, Equatable {
  /// The course's name: its folder's name; `archsh` for archsh's own.
  public let name: String
  /// The folder given, or nil for archsh's own.
  public let root: String?
  /// Its `walkthroughs/` folder, when it has one.
  public let walkthroughs: String?
  /// Its `exercises/` folder, when it has one.
  public let exercises: String?
  /// Its `commands/` folder, when it has one.
  public let commands: String?

  /// archsh's own course: its walkthroughs and exercises wherever `Installation` finds them.
  public static var archsh: Course {
    Course(
      name: "archsh", root: nil, walkthroughs: Installation.directory(for: .walkthroughs),
      exercises: Installation.directory(for: .exercises), commands: nil)
  }

  /// The course in `folder`, or why it is none: a folder that does not exist, or holds none of
  /// `walkthroughs/`, `exercises/` and `commands/`.
  public static func at(_ folder: String) throws(ShellError) -> Course {
    let manager = FileManager.default
    var isDirectory: ObjCBool = false
    guard manager.fileExists(atPath: folder, isDirectory: &isDirectory) else {
      throw ShellError(
        "the course '\(folder)' does not exist",
        hint: "give the folder that holds walkthroughs/, exercises/ or commands/")
    }
    guard isDirectory.boolValue else {
      throw ShellError(
        "the course '\(folder)' is a file, not a folder",
        hint: "give the folder that holds walkthroughs/, exercises/ or commands/")
    }
    func part(_ name: String) -> String? {
      var isFolder: ObjCBool = false
      let path = URL(fileURLWithPath: folder).standardizedFileURL.appendingPathComponent(name).path
      return manager.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
        ? path : nil
    }
    // Absolute, so that its files are found from wherever a script that uses them runs.
    let absolute = URL(fileURLWithPath: folder).standardizedFileURL.path
    let course = Course(
      name: (absolute as NSString).lastPathComponent, root: absolute,
      walkthroughs: part("walkthroughs"), exercises: part("exercises"), commands: part("commands"))
    guard course.walkthroughs != nil || course.exercises != nil || course.commands != nil else {
      throw ShellError(
        "'\(folder)' is not a course: it holds none of walkthroughs/, exercises/ and commands/",
        hint: "'docs/writing-a-course.md' shows the layout")
    }
    return course
  }

  /// The most files archsh reads from one of a course's folders.
  static let maximumFiles = 1_000

  /// The `.ash` files of one of its folders, by name: the first `maximumFiles` of them.
  func files(in folder: String?) -> [(name: String, path: String)] {
    guard let folder else { return [] }
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
      .filter { $0.hasSuffix(".ash") }.sorted().prefix(Self.maximumFiles)
    return names.map { (String($0.dropLast(4)), (folder as NSString).appendingPathComponent($0)) }
  }
}

/// The courses of this process: archsh's own, then each `--course DIR` and `ARCHSH_COURSES`
/// folder, in the order given.
public enum Courses {
  private static let added = Mutex<[Course]>([])

  /// Every course, archsh's own first.
  public static var all: [Course] { [Course.archsh] + added.withLock { $0 } }

  /// The courses added with `--course` or `ARCHSH_COURSES`.
  public static var teachers: [Course] { added.withLock { $0 } }

  /// Adds the course in `folder`, and returns it.
  ///
  /// An error says why it is none. A folder added twice counts once.
  @discardableResult
  public static func add(_ folder: String) throws(ShellError) -> Course {
    let course = try Course.at(folder)
    return added.withLock { courses in
      if let known = courses.first(where: { $0.root == course.root }) { return known }
      courses.append(course)
      return course
    }
  }

  /// The folders `ARCHSH_COURSES` names, separated by `:` as PATH is.
  public static var fromEnvironment: [String] {
    (Platform.variable("ARCHSH_COURSES") ?? "")
      .split(separator: ":").map(String.init).filter { !$0.isEmpty }
  }

  /// Forgets the added courses (tests).
  static func reset() { added.withLock { $0 = [] } }
}
