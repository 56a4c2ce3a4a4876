// The one file of ArchShell that imports the C library, with the Linux and Darwin branches both
// written. The other files get the POSIX calls through Foundation, which re-exports Glibc on
// Linux and Darwin on macOS; what differs between the two systems, and the C library's `read` and
// `write` under names that a type's own `read` or `write` does not hide, are here.
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The system calls and constants that differ between Linux and macOS.
enum Platform {
  /// Writes up to `count` bytes from `bytes` to `descriptor` (write(2)); returns how many were
  /// written, or -1 with `errno` set.
  static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(descriptor, bytes, count)
    #else
    return Darwin.write(descriptor, bytes, count)
    #endif
  }

  /// Reads up to `count` bytes from `descriptor` into `bytes` (read(2)); returns how many were
  /// read, 0 at the end, or -1 with `errno` set.
  static func read(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.read(descriptor, bytes, count)
    #else
    return Darwin.read(descriptor, bytes, count)
    #endif
  }

  /// The width in columns that the terminal on `descriptor` reports (`ioctl(TIOCGWINSZ)`); nil
  /// when it is not a terminal or reports none.
  static func terminalColumns(of descriptor: Int32) -> Int? {
    #if canImport(Glibc)
    // Glibc's TIOCGWINSZ is an Int32 and the overlay's ioctl takes its request as a UInt.
    let request = UInt(TIOCGWINSZ)
    #else
    // Darwin's overlay declares TIOCGWINSZ as a UInt already.
    let request = TIOCGWINSZ
    #endif
    var size = winsize()
    guard ioctl(descriptor, request, &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }

  /// Runs `body` while holding an exclusive lock on the file at `path` (flock(2)), which is
  /// created with mode 0600 if needed; `body` runs unlocked when the file cannot be opened.
  static func withFileLock<T>(_ path: String, _ body: () -> T) -> T {
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return body() }
    defer { close(descriptor) }
    _ = flock(descriptor, LOCK_EX)
    defer { _ = flock(descriptor, LOCK_UN) }
    return body()
  }
}
