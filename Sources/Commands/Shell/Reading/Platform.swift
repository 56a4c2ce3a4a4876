// The one file of Commands that imports the C library, with the Linux and Darwin branches both
// written. The other files get the POSIX calls through Foundation, which re-exports Glibc on
// Linux and Darwin on macOS; the C library's `read` is here under a name that a type's own `read`
// does not hide.
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The system calls that the command files reach through a name of their own.
enum Platform {
  /// Reads up to `count` bytes from `descriptor` into `bytes` (read(2)); returns how many were
  /// read, 0 at the end, or -1 with `errno` set.
  static func read(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.read(descriptor, bytes, count)
    #else
    return Darwin.read(descriptor, bytes, count)
    #endif
  }

  /// The environment variable `name`, or nil when it is unset.
  ///
  /// `getenv` reads one variable; `ProcessInfo.environment` copies the whole environment into a
  /// dictionary, and building that dictionary's type at start-up made the runtime scan every
  /// conformance record of the binary (docs/performance.md).
  static func variable(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
  }
}
