import Foundation
import Testing

/// The release binary is a plain, hardened one: what `readelf` and `ldd` say of it.
@Suite("the release link")
struct ReleaseLinkTests {
  /// Whether the binary under test is a release build, which alone is linked hardened.
  static var isRelease: Bool { Binary.path.contains("/release/") }

  private func tool(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }

  @Test(
    "PIE, full RELRO (BIND_NOW), no RUNPATH $ORIGIN, and the system's shared libsqlite3",
    .enabled(if: isRelease, "only the release build is linked hardened"))
  func hardened() throws {
    let header = try tool(["readelf", "-h", Binary.path])
    #expect(header.contains("DYN (Position-Independent Executable file)"), "\(header)")
    let dynamic = try tool(["readelf", "-d", Binary.path])
    #expect(dynamic.contains("(FLAGS)") && dynamic.contains("BIND_NOW"), "\(dynamic)")
    #expect(dynamic.contains("(FLAGS_1)") && dynamic.contains("NOW"), "\(dynamic)")
    #expect(!dynamic.contains("RUNPATH") && !dynamic.contains("RPATH"), "\(dynamic)")
    #expect(dynamic.contains("Shared library: [libsqlite3.so.0]"), "\(dynamic)")
    let segments = try tool(["readelf", "-l", Binary.path])
    #expect(segments.contains("GNU_RELRO"), "\(segments)")
    let libraries = try tool(["ldd", Binary.path])
    let sqlite = libraries.split(separator: "\n").first { $0.contains("libsqlite3.so.0") }
    #expect(
      sqlite?.contains("/usr/lib/") == true || sqlite?.contains("/lib/") == true, "\(libraries)")
    #expect(!libraries.contains("libssl") && !libraries.contains("libcrypto"), "\(libraries)")
  }
}
