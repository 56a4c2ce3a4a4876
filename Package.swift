// swift-tools-version:6.2
import Foundation
import PackageDescription

let package = Package(
  name: "archsh",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "archsh", targets: ["ArchShell"])
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
  ],
  targets: [
    // The architecture itself: controllers, factories, tracing. No terminal, no shell words.
    .target(
      name: "Domain",
      dependencies: [
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ]
    ),
    // The embedded REST backend, on Hummingbird; it shares only the wire format with Domain.
    .target(
      name: "DemoAPI",
      dependencies: [
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // The command language, the registry and one file per command group.
    .target(name: "Commands", dependencies: ["Domain", "DemoAPI"]),
    // libedit, through its readline-compatible API and a few non-variadic wrappers.
    .systemLibrary(
      name: "CEdit",
      pkgConfig: "libedit",
      providers: [.apt(["libedit-dev"])]
    ),
    // The executable: process options, line sources, the REPL loop.
    .executableTarget(
      name: "ArchShell",
      dependencies: [
        "Commands",
        "CEdit",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .testTarget(name: "DomainTests", dependencies: ["Domain", "DemoAPI"]),
    .testTarget(name: "CommandsTests", dependencies: ["Commands", "Domain"]),
    .testTarget(name: "ArchShellTests", dependencies: ["ArchShell"], exclude: ["Fixtures"]),
  ]
)

// The libFuzzer target, only for `make fuzz` (Fuzz/run.sh sets ARCHSH_FUZZ=1 and builds it with
// --sanitize=fuzzer); an ordinary build has no libFuzzer to link it against.
if ProcessInfo.processInfo.environment["ARCHSH_FUZZ"] == "1" {
  package.targets.append(
    .executableTarget(name: "ShellFuzz", dependencies: ["Commands"], path: "Fuzz/ShellFuzz"))
}
