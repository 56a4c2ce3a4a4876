import Domain
import Foundation
import Testing

@testable import Commands

@Suite("The composition root")
struct CompositionTests {
  /// The repository's root, from this file's path.
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  private func run(_ line: String) -> (stdout: String, stderr: String) {
    let harness = Harness()
    harness.script([line])
    return (harness.sink.stdout, harness.sink.stderr)
  }

  @Test("factory graph draws every product the factories declare, in each format")
  func graphListsEveryProduct() {
    for format in ["text", "mermaid", "dot"] {
      let output = run("factory graph --format \(format)").stdout
      for component in ApplicationFactory.components {
        #expect(output.contains(component.name), "\(format) graph lacks \(component.name)")
        if format == "text" {
          let injected =
            component.dependencies.isEmpty
            ? "" : " ← " + component.dependencies.joined(separator: ", ")
          let line =
            "\(component.name): \(component.typeName) (\(component.lifetime.rawValue))\(injected)\n"
          #expect(output.contains(line), "text graph lacks \(line)")
        }
        for dependency in component.dependencies where format != "text" {
          let arrow =
            format == "dot"
            ? "\(dependency) -> \(component.name);" : "\(dependency) --> \(component.name)"
          #expect(output.contains(arrow), "\(format) graph lacks \(arrow)")
        }
      }
      for factory in ApplicationFactory.factoryNames {
        #expect(output.contains(factory), "\(format) graph lacks \(factory)")
      }
    }
    let list = run("factory list").stdout
    for component in ApplicationFactory.components {
      #expect(list.contains(component.name) && list.contains(component.factory))
    }
  }

  @Test("factory get shows one identity for a singleton and a new one for each prototype")
  func identities() {
    let output = run(
      "factory get navigationLog; factory get navigationLog; factory get gameParser; factory get gameParser"
    ).stdout
    let ids = output.split(separator: "\n").filter { $0.hasPrefix("id:") }.map {
      $0.split(separator: " ").last.map(String.init) ?? ""
    }
    #expect(ids == ["#1", "#1", "#2", "#3"])
    #expect(run("factory get openDataSource").stderr.contains("'openDataSource' is built from"))
  }

  @Test(
    "no Domain controller is built outside the factories: Commands and ArchShell never call an initializer of a product"
  )
  func noControllerBuiltOutsideFactories() throws {
    let types = Set(
      ApplicationFactory.components.map { component in
        String(component.typeName.prefix { $0 != "<" })
      })
    var offenders: [String] = []
    for folder in ["Sources/Commands", "Sources/ArchShell"] {
      let base = Self.root.appendingPathComponent(folder)
      let files =
        FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)?
        .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
      #expect(!files.isEmpty, "no sources under \(folder)")
      for file in files {
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        for (number, line) in lines.enumerated() {
          let code = line.trimmingCharacters(in: .whitespaces)
          if code.hasPrefix("//") { continue }
          // A plain search first: the word-boundary regex only where the name appears.
          for type in types where type != "DemoAPI" && code.contains(type + "(") {
            if code.range(of: "\\b\(type)\\(", options: .regularExpression) != nil {
              offenders.append("\(file.lastPathComponent):\(number + 1): \(type)(")
            }
          }
        }
      }
    }
    #expect(offenders.isEmpty, "built outside the factories: \(offenders)")
  }

  @Test("no group calls another group's helpers")
  func groupsDoNotCallEachOther() throws {
    let base = Self.root.appendingPathComponent("Sources/Commands/Groups")
    let files = try FileManager.default.contentsOfDirectory(atPath: base.path).filter {
      $0.hasSuffix(".swift") && $0 != "AllGroups.swift"
    }
    let groups = files.map { String($0.dropLast(6)) }
    var offenders: [String] = []
    for file in files {
      let text = try String(contentsOfFile: base.appendingPathComponent(file).path, encoding: .utf8)
      let own = String(file.dropLast(6))
      for group in groups where group != own && group != "Builtins" {
        if text.contains("\(group).") { offenders.append("\(file) uses \(group)") }
      }
    }
    #expect(offenders.isEmpty, "\(offenders)")
    let renderers = Self.root.appendingPathComponent("Sources/Commands/Render")
    for file in try FileManager.default.contentsOfDirectory(atPath: renderers.path) {
      let text = try String(
        contentsOfFile: renderers.appendingPathComponent(file).path, encoding: .utf8)
      for group in groups { #expect(!text.contains("\(group)."), "\(file) uses \(group)") }
    }
  }

  @Test("Domain's code names no command and no option: the shell adds those in its hints")
  func domainSpeaksTheArchitecture() throws {
    let names = AllGroups.registry.groups.filter { !$0.isBuiltins }.flatMap { group in
      group.commands.map { "'\(group.name) \($0.name)" }
    }
    #expect(names.contains("'store persist"))
    let domain = Self.root.appendingPathComponent("Sources/Domain")
    let files = FileManager.default.enumerator(atPath: domain.path)?.compactMap { $0 as? String }
    var offenders: [String] = []
    for file in files ?? [] where file.hasSuffix(".swift") {
      let text = try String(
        contentsOfFile: domain.appendingPathComponent(file).path, encoding: .utf8)
      for (number, line) in text.split(separator: "\n").enumerated() {
        let code = line.trimmingCharacters(in: .whitespaces)
        if code.hasPrefix("//") { continue }
        // An option is `--` and a letter; multipart's `--\(boundary)` is not one.
        if code.range(of: #"['"]--[a-z]"#, options: .regularExpression) != nil {
          offenders.append("\(file):\(number + 1)")
        }
        for name in names where code.contains(name) { offenders.append("\(file):\(number + 1)") }
      }
    }
    #expect(offenders.isEmpty, "\(offenders)")
  }
}

@Suite("Errors reach their column by their subject")
struct ErrorSubjectTests {
  /// Runs `setup` then `line` with keep-going, and returns the error line `line` gave.
  private func error(_ line: String, after setup: [String] = []) -> String {
    var settings = InterpreterSettings()
    settings.keepGoing = true
    let harness = Harness(settings: settings)
    harness.script(setup + [line])
    return harness.sink.stderr.split(separator: "\n").last.map(String.init) ?? ""
  }

  @Test("each Domain error points at the word that gave the input it concerns")
  func columns() {
    #expect(
      error("store retrieve bookmarkz home")
        == "test.ash:1:16: error: unknown store 'bookmarkz' (did you mean 'bookmarks'?)")
    #expect(
      error("store retrieve bookmarks nope")
        == "test.ash:1:26: error: no key 'nope' in store 'bookmarks'")
    #expect(
      error(
        "store persist tiny k 12345", after: ["store create tiny", "store limits tiny --bytes 4"])
        == "test.ash:3:22: error: the value (5 bytes) is larger than the byte limit of store 'tiny' (4 bytes) (raise it with 'store limits tiny --bytes N')"
    )
    #expect(
      error("store create generalCache")
        == "test.ash:1:14: error: store 'generalCache' already exists")
    #expect(
      error("event send discover mediaItemSelected x", after: ["app start --session s"])
        == "test.ash:2:39: error: mediaItemSelected: 'x' is not a product id (see 'event list')")
    #expect(
      error("event send discover headerTapped now", after: ["app start --session s"])
        == "test.ash:2:34: error: headerTapped takes no argument, and 'now' was given (see 'event list')"
    )
    #expect(
      error("event send discover flyAway", after: ["app start --session s"]).hasPrefix(
        "test.ash:2:21: error: Discover cannot send 'flyAway'"))
    #expect(
      error("screen select 99", after: ["app start"])
        == "test.ash:2:15: error: Login has no row 99; it has 2 rows ('screen show' lists the rows to select)"
    )
    #expect(
      error("screen select 0 login", after: ["app start"])
        == "test.ash:2:15: error: row 0-0 of Login needs an email address, which selecting cannot give (log in with 'app login EMAIL')"
    )
    #expect(
      error("ds drop nothing")
        == "test.ash:1:9: error: no data source named 'nothing' (see 'ds list')")
  }
}
