// swift-tools-version:6.2
import Foundation
import PackageDescription

let package = Package(
  name: "archsh",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "archsh", targets: ["archsh"])
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
  ],
  targets: [
    // What archsh needs to run the architecture and the seeds do not describe, knowing nothing
    // of Domain: the strict JSON reader, the HTTP/1.1 transport (NIOPosix, swift-nio-ssl,
    // NIOHTTP1), the event bus and spans, and the raw-SQLite statements.
    .target(
      name: "Plumbing",
      dependencies: [
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOTLS", package: "swift-nio"),
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ]),
    // archsh's own runtime, which no seed has: the SQLite workspace (its engine, WAL, sidecar
    // repair, atomic runs, kept statements), the access-time log, the per-connection byte bounds and
    // totals, the learner's progress and the embedded API's state. Domain calls it through named
    // operations, and hands it the schema (every feature's migrations).
    .target(
      name: "Runtime",
      dependencies: [
        "Plumbing",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ],
      // Its hot paths (a persist's kept statements, its store's limits, the per-store caches,
      // which are generic) are called from Domain: compiled for cross-module optimization, they
      // are inlined and specialized there as they were when they lived in Domain
      // (docs/performance.md, "The runtime as a target of its own").
      swiftSettings: [
        .unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))
      ]
    ),
    // The architecture itself: controllers, factories, coordinators, data sources. No terminal,
    // no shell words.
    .target(
      name: "Domain",
      dependencies: [
        "Plumbing",
        "Runtime",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // The embedded REST backend, on Plumbing's LoopbackServer (SwiftNIO's HTTP/1.1 server
    // pipeline); it shares only the wire format with Domain.
    .target(name: "DemoAPI", dependencies: ["Plumbing"]),
    // The board's web server, on the same LoopbackServer: the page and its event stream, behind
    // a token.
    // Like DemoAPI it knows nothing of Domain; Commands hands it JSON. The page is three files
    // (Page/board.html, board.css, board.js), compiled into the binary: nothing is read from disk
    // at run time.
    .target(
      name: "BoardServer",
      dependencies: ["Plumbing"],
      resources: [
        .embedInCode("Page/board.html"), .embedInCode("Page/board.css"),
        .embedInCode("Page/board.js"),
      ]
    ),
    // The command language, the registry and one file per command group.
    // The commands. `learn`'s exercises are files in Learn/Exercises, which archsh reads at run
    // time relative to its executable (Installation): `make install` copies them to
    // share/archsh/exercises. A new exercise is a new file, with no Swift to edit.
    .target(
      name: "Commands", dependencies: ["Plumbing", "Runtime", "Domain", "DemoAPI", "BoardServer"],
      exclude: ["Learn/Exercises"]),
    // libedit, linked as the system ships it and called through its readline-compatible header
    // (<editline/readline.h>, from Debian's libedit-dev or macOS's SDK); with the signal flags and
    // handlers in one C file: a `static` flag in a header exists once per translation unit, and
    // in the release build the handler and the Swift code saw different copies.
    .target(name: "CEdit", linkerSettings: [.linkedLibrary("edit")]),
    // The commit the binary was built from, for --version: one C function whose value `make`
    // writes into a header that is not in git (scripts/build-info), so that a new commit
    // compiles one C file, not a Swift module.
    .target(name: "CBuildInfo"),
    // The shell: process options, line sources, the REPL loop. A library, so that the unit tests
    // link it without the executable's static link (below).
    .target(
      name: "ArchShell",
      dependencies: [
        "Commands",
        "CEdit",
        "CBuildInfo",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // The executable, one line that starts the shell. Its release link carries the Swift runtime
    // and Foundation statically (`-static-stdlib`, Linux only), so that the installed binary needs
    // no toolchain; the option sits here, not on `swift build`'s command line, because there it
    // compiled every module against the static runtime's module folder, which has no Swift
    // Testing, and the unit tests could not be built beside the release binary.
    .executableTarget(
      name: "archsh",
      dependencies: ["ArchShell"],
      // A plain, hardened release link: position-independent (the toolchain's default), full
      // RELRO (`-z now`: every symbol bound at start-up, and the tables made read-only), and the
      // system's shared libsqlite3 as GRDB links it. `make release` adds --disable-local-rpath,
      // so that the binary has no RUNPATH $ORIGIN. Two Linux-only options that
      // docs/performance.md measures: --no-export-dynamic (the runtime's backtracer no longer
      // walks every exported symbol at start-up), and packed relative relocations (RELR): ld.so
      // reads 24 KB of them at start-up, not 2.9 MB.
      linkerSettings: [
        .unsafeFlags(
          [
            // The modules are compiled against the shared runtime's interfaces, and the shared
            // Foundation carries CoreFoundation, ICU, its collections and C shims inside itself,
            // so those interfaces name none of them: the static link names them here.
            "-static-stdlib", "-lCoreFoundation", "-l_FoundationICU", "-l_FoundationCollections",
            "-l_FoundationCShims", "-lswiftSynchronization",
            "-Xlinker", "-z", "-Xlinker", "relro", "-Xlinker", "-z", "-Xlinker", "now",
            "-Xlinker", "--no-export-dynamic", "-use-ld=lld",
            "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
          ],
          .when(platforms: [.linux], configuration: .release))
      ]
    ),
    // What every test target shares: the directory their files go in.
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    .testTarget(
      name: "DomainTests",
      dependencies: [
        "Plumbing", "Runtime", "Domain", "DemoAPI", "TestSupport",
        .product(name: "NIOPosix", package: "swift-nio"),
      ],
      exclude: ["Fixtures"]),
    .testTarget(
      name: "CommandsTests",
      dependencies: [
        "Commands", "Plumbing", "Runtime", "Domain", "BoardServer", "TestSupport",
        .product(name: "NIOCore", package: "swift-nio"),
      ]),
    .testTarget(
      name: "ArchShellTests", dependencies: ["ArchShell", "Commands", "Plumbing", "TestSupport"],
      exclude: ["Fixtures"]),
  ]
)

// The release build compiles archsh's own modules for testing (`-enable-testing`), so that the
// unit tests are built on the very modules the shipped binary is linked from: `make test` compiles
// the test targets in `.build-release` beside `make run`'s build, and no debug build of every
// dependency is needed (it took 4 min 30 s of CI's 13). The dependencies are compiled as before.
// docs/performance.md ("The release build compiled for testing") says what it cost.
for target in package.targets
where ["Plumbing", "Runtime", "Domain", "Commands", "ArchShell"].contains(target.name) {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .unsafeFlags(["-enable-testing"], .when(configuration: .release)),
      // A concrete generic type such as `Set<String>` gets its metadata from an accessor called
      // with its conformances, not from its mangled name: the runtime would otherwise find each
      // conformance (`String: Hashable`) by scanning every conformance record of the binary, about
      // a tenth of start-up's time (docs/performance.md).
      .unsafeFlags(
        ["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"],
        .when(configuration: .release)),
    ]
}

// The libFuzzer targets, only for `make fuzz` (Fuzz/run.sh sets ARCHSH_FUZZ=1 and builds it with
// --sanitize=fuzzer); an ordinary build has no libFuzzer to link it against.
// SwiftPM passes -sanitize=fuzzer to the fuzz target's own module only, so the code it exercises
// would run uninstrumented and libFuzzer would fuzz blind; the coverage that -sanitize=fuzzer
// implies is asked for here, for the modules whose code the commands reach.
if ProcessInfo.processInfo.environment["ARCHSH_FUZZ"] == "1" {
  let coverage = SwiftSetting.unsafeFlags([
    "-sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp"
  ])
  for target in package.targets where ["Runtime", "Domain", "Commands"].contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [coverage]
  }
  package.targets.append(
    .executableTarget(name: "ShellFuzz", dependencies: ["Commands"], path: "Fuzz/ShellFuzz"))
  // The response path: bytes from a server in, a response or an error out.
  package.targets.append(
    .executableTarget(name: "ResponseFuzz", dependencies: ["Plumbing"], path: "Fuzz/ResponseFuzz"))
}
