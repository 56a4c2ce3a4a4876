import Foundation
import Testing

/// Rules of the house that the compiler does not check, read from the sources themselves.
@Suite("the sources keep the house rules")
struct SourceRulesTests {
  @Test(
    "every @unchecked Sendable says why on the next line (// @unchecked: …); at most 10, and none rests on the thread running commands"
  )
  func uncheckedSendableHasReason() throws {
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Sources").standardized.path
    var unexplained: [String] = []
    var byConvention: [String] = []
    var seen = 0
    let files = try #require(FileManager.default.enumerator(atPath: sources))
    for case let file as String in files where file.hasSuffix(".swift") {
      let lines = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
        .split(separator: "\n", omittingEmptySubsequences: false)
      for (index, line) in lines.enumerated() where line.contains("@unchecked Sendable") {
        guard !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") else { continue }
        seen += 1
        let next = index + 1 < lines.count ? lines[index + 1] : ""
        if !next.trimmingCharacters(in: .whitespaces).hasPrefix("// @unchecked: ") {
          unexplained.append("\(file):\(index + 1)")
        }
        // A type only the command thread touches is not Sendable at all: the compiler holds it
        // to the one thread, where a comment could only promise it.
        if next.contains("command thread") || next.contains("thread running commands")
          || next.contains("thread that runs commands")
        {
          byConvention.append("\(file):\(index + 1)")
        }
      }
    }
    #expect(seen > 0, "no @unchecked Sendable was found: the path is wrong")
    #expect(seen <= 10, "\(seen) @unchecked Sendable: at most 10")
    #expect(unexplained == [], "without a reason: \(unexplained)")
    #expect(byConvention == [], "resting on the command thread: \(byConvention)")
  }

  // MARK: - One platform file per target

  @Test("in each target, at most one Swift file imports the C library, with both branches written")
  func oneFileImportsTheCLibrary() throws {
    let swiftFiles = try Self.files(endingWith: [".swift"])
    var importers: [String: [String]] = [:]
    for file in swiftFiles where file.lines.contains(where: Self.importsCLibrary) {
      importers[String(file.path.prefix { $0 != "/" }), default: []].append(file.path)
      #expect(
        file.text.contains("canImport(Glibc)") && file.text.contains("canImport(Darwin)"),
        "\(file.path) imports the C library without both branches, #if canImport(Glibc) and #elseif canImport(Darwin)"
      )
    }
    #expect(swiftFiles.count > 50, "only \(swiftFiles.count) Swift files found: the path is wrong")
    #expect(
      importers.count >= 3,
      "the platform files of ArchShell, Commands and Plumbing were not all found: \(importers)")
    let crowded = importers.filter { $0.value.count > 1 }
    #expect(crowded.isEmpty, "more than one file imports Glibc or Darwin: \(crowded)")
  }

  @Test("only a target's platform file names Glibc.… or Darwin.…")
  func qualifiedCallsStayInThePlatformFile() throws {
    // The scanner itself, on lines it must and must not flag.
    #expect(Self.namesCLibrary("      _ = Glibc.write(writer, &byte, 1)"))
    #expect(Self.namesCLibrary("let count = Darwin.read(0, &byte, 1)"))
    #expect(!Self.namesCLibrary("  // Glibc.write, wrapped in Platform.write"))
    #expect(!Self.namesCLibrary("memmem is not in Glibc's module."))
    #expect(!Self.namesCLibrary("#if canImport(Darwin)"))
    let swiftFiles = try Self.files(endingWith: [".swift"])
    var outside: [String] = []
    var inside = 0
    for file in swiftFiles {
      let isPlatformFile = file.lines.contains(where: Self.importsCLibrary)
      for (index, line) in file.lines.enumerated() where Self.namesCLibrary(line) {
        if isPlatformFile { inside += 1 } else { outside.append("\(file.path):\(index + 1)") }
      }
    }
    #expect(swiftFiles.count > 50, "only \(swiftFiles.count) Swift files found: the path is wrong")
    #expect(inside > 0, "no platform file wraps a C call by its qualified name: the scan is wrong")
    #expect(outside == [], "call the platform file's wrapper instead: \(outside)")
  }

  @Test("a Linux-only C name appears in C sources only inside a Linux branch")
  func linuxOnlyCNamesAreGuarded() throws {
    // The scanner itself, on sources it must and must not flag.
    #expect(
      Self.linuxOnlyNames(in: "int f(void) { return accept4(0, 0, 0, 0); }").unguarded == [
        "1: accept4"
      ])
    #expect(
      Self.linuxOnlyNames(in: "#ifdef __linux__\nint s = SOCK_CLOEXEC;\n#else\nint s = 0;\n#endif")
        .unguarded == [])
    #expect(
      Self.linuxOnlyNames(in: "#if defined(__linux__)\n#else\nint f = MSG_NOSIGNAL;\n#endif")
        .unguarded == ["3: MSG_NOSIGNAL"])
    #expect(
      Self.linuxOnlyNames(
        in:
          "#ifdef __APPLE__\n#define L \"libedit.3.dylib\"\n#else\n#define L \"libedit.so.2\"\n#endif"
      ).unguarded == [])
    #expect(
      Self.linuxOnlyNames(in: "#ifdef __APPLE__\n#define L \"libedit.so.2\"\n#endif").unguarded == [
        "2: libedit.so"
      ])
    #expect(Self.linuxOnlyNames(in: "// epoll\n/* TCP_QUICKACK */ int x;").found == 0)
    let cFiles = try Self.files(endingWith: [".c", ".h"])
    var unguarded: [String] = []
    for file in cFiles {
      let names = Self.linuxOnlyNames(in: file.text)
      unguarded += names.unguarded.map { "\(file.path):\($0)" }
    }
    #expect(cFiles.count >= 2, "only \(cFiles.count) C files found: the path is wrong")
    // The scan itself is held by the samples above; the sources may use none of these names.
    #expect(
      unguarded == [],
      "outside #ifdef __linux__ (or, for libedit.so, __APPLE__'s #else): \(unguarded)")
  }

  @Test(
    "the interpreter names none of its observers: the board, the recorder, the exercise, the log book and the tracer register with it"
  )
  func interpreterNamesNoObserver() throws {
    let files = try Self.files(endingWith: ["Shell/Running/Interpreter.swift"])
    let interpreter = try #require(files.first)
    var named: [String] = []
    for (index, line) in interpreter.lines.enumerated() {
      let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false)[0]
      for name in [
        "session.board", "session.recorder", "Board", "SessionRecorder", "RecordGroup",
        "afterLessonLine", "LogBook", "logBook", "tracer", "Tracer", "withSpan", "drainCompleted",
      ]
      where code.contains(name) {
        named.append("Interpreter.swift:\(index + 1): \(name)")
      }
    }
    #expect(named == [])
    // The scan reads the file it means: the loop's observers are told there.
    #expect(interpreter.lines.contains { $0.contains("notify {") })
  }

  @Test("no C library is bound by hand: nothing in Sources calls dlopen or dlsym")
  func noHandBoundLibraries() throws {
    let files = try Self.files(endingWith: [".c", ".h", ".swift"])
    #expect(files.count > 50, "only \(files.count) files found: the path is wrong")
    let offenders = files.filter { $0.text.contains("dlsym") || $0.text.contains("dlopen") }
      .map(\.path)
    #expect(offenders == [])
  }

  @Test(
    "Domain reads like the seeds: one folder per seed and Shared, each opening with its seed, and no raw SQLite or unsafe pointer"
  )
  func domainHoldsTheSeeds() throws {
    let domain = try Self.files(endingWith: [".swift"]).filter { $0.path.hasPrefix("Domain/") }
    #expect(domain.count > 30, "only \(domain.count) Domain files found: the path is wrong")
    let folders = Set(domain.map { $0.path.split(separator: "/")[1] })
    #expect(
      folders == ["BDModules", "DataSourceController", "Lickability", "MVCC", "Shared"],
      "Domain's folders: \(folders.sorted())")
    // Each folder has a file that is only its comment, naming its seed (`BDModules.swift`,
    // `DataSourceControllerSeed.swift`), or saying what the seeds share.
    for folder in folders {
      let opening = domain.first {
        ["Domain/\(folder)/\(folder).swift", "Domain/\(folder)/\(folder)Seed.swift"]
          .contains($0.path) && $0.lines.first?.hasPrefix("//") == true
      }
      let first = opening?.lines.first ?? ""
      #expect(
        first.contains("Seed") || first.contains("the seeds share"),
        "Domain/\(folder) has no opening comment naming its seed")
    }
    let raw = ["sqlite3_", "FastStatement", "Unsafe"]
    let offenders = domain.flatMap { file in
      file.lines.enumerated().compactMap { index, line in
        raw.contains { line.contains($0) } ? "\(file.path):\(index + 1)" : nil
      }
    }
    #expect(offenders == [], "raw SQLite or unsafe pointers in Domain: \(offenders)")
  }

  @Test(
    "a stored row's column is read through Row.stored, never GRDB's subscript, which stops the process on a value of another type"
  )
  func storedRowsAreReadSafely() throws {
    let grdbFiles = try Self.files(endingWith: [".swift"]).filter {
      $0.text.contains("import GRDB") && $0.path != "Runtime/StoredValue.swift"
    }
    #expect(grdbFiles.count > 10, "only \(grdbFiles.count) files import GRDB: the path is wrong")
    // `row["name"]`, `$0["name"]`, `sectionRow["id"]`: a row's column named by a string literal
    // (a dictionary, such as a JSON object's `object["type"]`, is another name).
    let subscriptByName = /(\$0|\b[a-z]*[Rr]ow)\["[a-z_]+"\]/
    let offenders = grdbFiles.flatMap { file in
      file.lines.enumerated().compactMap { index, line in
        line.contains(subscriptByName) && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
          ? "\(file.path):\(index + 1)" : nil
      }
    }
    #expect(offenders == [], "GRDB row subscripts: \(offenders)")
  }

  /// The folder of the targets' sources.
  static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Sources").standardized.path

  /// The files under Sources whose names end with one of `suffixes`, each with its path from
  /// there (`ArchShell/Platform.swift`), its text and its lines.
  static func files(endingWith suffixes: [String]) throws -> [(
    path: String, text: String, lines: [Substring]
  )] {
    let enumerator = try #require(FileManager.default.enumerator(atPath: sources))
    var found: [(path: String, text: String, lines: [Substring])] = []
    for case let file as String in enumerator where suffixes.contains(where: { file.hasSuffix($0) })
    {
      let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
      found.append((file, text, text.split(separator: "\n", omittingEmptySubsequences: false)))
    }
    return found.sorted { $0.path < $1.path }
  }

  /// Whether `line` imports Glibc or Darwin (`import Glibc`, `@preconcurrency import Darwin`,
  /// `import struct Glibc.stat`).
  static func importsCLibrary(_ line: Substring) -> Bool {
    var words = line.split(whereSeparator: \.isWhitespace)
    while let first = words.first, first.hasPrefix("@") { words.removeFirst() }
    guard words.count >= 2, words[0] == "import" else { return false }
    let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "func", "var"]
    let name = words.count >= 3 && kinds.contains(words[1]) ? words[2] : words[1]
    let module = name.prefix { $0 != "." }
    return module == "Glibc" || module == "Darwin"
  }

  /// Whether `line`, unless it is a `//` comment, names something by `Glibc.` or `Darwin.`.
  static func namesCLibrary(_ line: Substring) -> Bool {
    let code = Array(line.drop { $0 == " " || $0 == "\t" })
    guard !code.starts(with: ["/", "/"]) else { return false }
    let modules: [[Character]] = [Array("Glibc."), Array("Darwin.")]
    for module in modules {
      for start in code.indices where code[start...].starts(with: module) {
        let before: Character = start > 0 ? code[start - 1] : " "
        let after: Character = start + module.count < code.count ? code[start + module.count] : " "
        let startsName = !(before.isLetter || before.isNumber || before == "_" || before == ".")
        if startsName, after.isLetter || after == "_" { return true }
      }
    }
    return false
  }

  /// The C names that only Linux has (or, for libedit, only Debian spells so).
  static let linuxOnlyCNames = [
    "SOCK_CLOEXEC", "TCP_QUICKACK", "MSG_NOSIGNAL", "pthread_condattr_setclock", "libedit.so",
    "accept4", "epoll",
  ]

  /// The Linux-only names in `source`, a C file, outside its comments.
  ///
  /// Returns how many there are, and those outside a Linux branch (`#ifdef __linux__`, `#if
  /// defined(__linux__)`, the `#else` of `#ifndef __linux__`), each as `LINE: NAME`.
  /// `libedit.so` may also be in any branch that is not Apple's (the `#else` of `#ifdef
  /// __APPLE__`). The `#if` lines themselves are not searched: `#ifdef SOCK_CLOEXEC` asks, it
  /// does not use.
  static func linuxOnlyNames(in source: String) -> (found: Int, unguarded: [String]) {
    /// One `#if … #endif`: what its current branch's condition says about the system.
    struct Branch {
      enum Kind { case linux, notLinux, apple, notApple, other }
      var kind: Kind
      var inElse = false
      /// An earlier branch of the same `#if` was Apple's, so this one is not.
      var afterApple = false
      var isLinux: Bool { kind == .linux && !inElse || kind == .notLinux && inElse }
      var isNotApple: Bool {
        isLinux || afterApple || kind == .apple && inElse || kind == .notApple && !inElse
      }
    }
    func kind(of condition: Substring, negated: Bool) -> Branch.Kind {
      let condition = condition.filter { !$0.isWhitespace }
      for (system, yes, no) in [
        ("__linux__", Branch.Kind.linux, Branch.Kind.notLinux),
        ("__APPLE__", Branch.Kind.apple, Branch.Kind.notApple),
      ] where condition.contains(system) {
        let isNegated =
          negated || condition.contains("!defined(\(system))")
          || condition.contains("!defined\(system)") || condition.contains("!\(system)")
        return isNegated ? no : yes
      }
      return .other
    }
    var stack: [Branch] = []
    var found = 0
    var unguarded: [String] = []
    let lines = Self.withoutComments(source).split(
      separator: "\n", omittingEmptySubsequences: false)
    for (index, line) in lines.enumerated() {
      let trimmed = line.drop { $0 == " " || $0 == "\t" }
      if trimmed.hasPrefix("#") {
        let directive = trimmed.dropFirst().drop { $0 == " " || $0 == "\t" }
        let word = directive.prefix { $0.isLetter }
        let condition = directive.dropFirst(word.count)
        switch word {
        case "if", "ifdef":
          stack.append(Branch(kind: kind(of: condition, negated: false)))
          continue
        case "ifndef":
          stack.append(Branch(kind: kind(of: condition, negated: true)))
          continue
        case "elif", "elifdef", "elifndef":
          guard var branch = stack.popLast() else { continue }
          branch.afterApple = branch.afterApple || branch.kind == .apple
          branch.kind = kind(of: condition, negated: word == "elifndef")
          stack.append(branch)
          continue
        case "else":
          if !stack.isEmpty { stack[stack.count - 1].inElse = true }
          continue
        case "endif":
          _ = stack.popLast()
          continue
        default:
          // #define and #include lines are searched like code.
          break
        }
      }
      for name in linuxOnlyCNames where line.contains(name) {
        found += 1
        let guarded =
          stack.contains { $0.isLinux } || name == "libedit.so" && stack.contains { $0.isNotApple }
        if !guarded { unguarded.append("\(index + 1): \(name)") }
      }
    }
    return (found, unguarded)
  }

  /// `source`, C, with its comments turned into spaces (their newlines kept) and its string and
  /// character literals kept.
  static func withoutComments(_ source: String) -> String {
    var result: [Character] = []
    var characters = Array(source)[...]
    var quote: Character?
    while let character = characters.popFirst() {
      if let open = quote {
        result.append(character)
        if character == "\\", let escaped = characters.popFirst() {
          result.append(escaped)
        } else if character == open || character == "\n" {
          quote = nil
        }
      } else if character == "\"" || character == "'" {
        quote = character
        result.append(character)
      } else if character == "/", characters.first == "/" {
        while let next = characters.first, next != "\n" { characters.removeFirst() }
      } else if character == "/", characters.first == "*" {
        characters.removeFirst()
        while let next = characters.popFirst() {
          if next == "*", characters.first == "/" {
            characters.removeFirst()
            break
          }
          result.append(next == "\n" ? "\n" : " ")
        }
      } else {
        result.append(character)
      }
    }
    return String(result)
  }
}
