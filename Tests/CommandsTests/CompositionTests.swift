import Domain
import Foundation
import Testing

@testable import Commands
@testable import Runtime

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

  @Test("every product has a name of its own, which the factory core keeps its singleton under")
  func uniqueProductNames() {
    let names = ApplicationFactory.components.map(\.name)
    #expect(names.count > 30)
    #expect(Set(names).count == names.count)
  }

  @Test(
    "factory graph draws every product with the dependencies its builder resolved, in each format")
  func graphListsEveryProduct() {
    let graph = ApplicationFactory().graph()
    for format in ["text", "mermaid", "dot"] {
      let output = run("factory graph --format \(format)").stdout
      for node in graph.nodes {
        let component = node.component
        #expect(output.contains(component.name), "\(format) graph lacks \(component.name)")
        if format == "text" {
          let injected =
            node.dependencies.isEmpty ? "" : " ← " + node.dependencies.joined(separator: ", ")
          let scope = component.name == "tracer" ? "singleton, built" : component.lifetime.rawValue
          let line =
            "\(component.name): \(component.typeName) (\(scope))\(injected)  \(component.origin.label)\n"
          #expect(output.contains(line), "text graph lacks \(line)")
        }
        for dependency in node.dependencies where format != "text" {
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
    // A few arrows a reader of the seeds expects, drawn from what the builders asked for
    // Each line ends with its origin, after two spaces.
    let text = run("factory graph").stdout
    for line in [
      "networkController: NetworkController (singleton) ← embeddedAPI  ",
      "dataSourceController: DataSourceController (prototype) ← productTranslator  ",
      "tableViewProvider: TableViewProvider (prototype) ← dataSourceController  ",
      "discoverFlowCoordinator: DiscoverFlowCoordinator (prototype) ← navigationController  ",
      "discoverController: ScreenController<DiscoverEvent> (prototype) ← tableViewProvider  ",
    ] {
      #expect(text.contains(line), "text graph lacks \(line)")
    }
    let list = run("factory list").stdout
    for component in ApplicationFactory.components {
      #expect(list.contains(component.name) && list.contains(component.factory))
    }
  }

  @Test("factory graph and list mark the singletons this session built and count each prototype")
  func graphMarksWhatWasBuilt() {
    let setup =
      "factory get navigationLog; factory get gameParser; factory get gameParser; ds new fruit"
    let text = run(setup + "; factory graph").stdout
    for line in [
      "navigationLog: NavigationLog (singleton, built)  ",
      "gameParser: GameParser (prototype, made 2 times)  ",
      "acknowParser: AcknowParser (prototype)  ",
      "appDelegate: AppDelegate (singleton) ← ",
      // 'ds new' opened the workspace and the library, and built one data source's controller
      "workspace: Workspace (singleton, built)  ",
      "dataSourceLibrary: DataSourceLibrary (singleton, built) ← ",
      "dataSourceController: DataSourceController (prototype, made once) ← productTranslator  ",
      "productTranslator: ProductToProductCellViewModelTranslator (prototype, made once)  ",
    ] {
      #expect(text.contains(line), "graph lacks \(line)")
    }
    let dot = run(setup + "; factory graph --format dot").stdout
    #expect(
      dot.contains(
        ##"gameParser [label="gameParser\nGameParser\nmade 2 times", style="rounded,filled,bold", fillcolor="#fde9d9"];"##
      ))
    #expect(
      dot.contains(
        ##"appDelegate [label="appDelegate\nAppDelegate", style="filled", fillcolor="#f1e4f5"];"##))
    #expect(
      dot.contains(
        ##"workspace [label="workspace\nWorkspace\nbuilt", style="filled,bold,dashed", fillcolor="#eeeeee"];"##
      ))
    let mermaid = run(setup + "; factory graph --format mermaid").stdout
    #expect(mermaid.contains(#"gameParser("gameParser<br/>GameParser<br/>made 2 times")"#))
    #expect(mermaid.contains("  class tracer,workspace,navigationLog,"))
    // The list counts what was built: 1 for a singleton built, one for each prototype made
    let list = run("output json; " + setup + "; factory list").stdout
    #expect(
      list.contains(
        #"{"name":"gameParser","factory":"ModelFactory","scope":"prototype","origin":"Lickability (000/001)","type":"GameParser","built":2,"#
      ))
    #expect(
      list.contains(
        #"{"name":"navigationLog","factory":"ApplicationFactory","scope":"singleton","origin":"archsh's own","type":"NavigationLog","built":1,"#
      ))
    #expect(
      list.contains(
        #"{"name":"appDelegate","factory":"ApplicationFactory","scope":"singleton","origin":"MVC+C (004)","type":"AppDelegate","built":0,"#
      ))
  }

  @Test(
    "factory graph NAME draws the product, what it is built from all the way down and what it is injected into; --built only what was built"
  )
  func graphParts() throws {
    let graph = ApplicationFactory().graph()
    let byName = Dictionary(uniqueKeysWithValues: graph.nodes.map { ($0.component.name, $0) })
    // Computed from the whole graph, so that a new product changes nothing here.
    var expected: Set<String> = ["productUpdater"]
    var pending = ["productUpdater"]
    while let next = pending.popLast() {
      for dependency in byName[next]?.dependencies ?? [] where expected.insert(dependency).inserted
      {
        pending.append(dependency)
      }
    }
    let dependents = graph.nodes.filter { $0.dependencies.contains("productUpdater") }
    #expect(!dependents.isEmpty, "nothing is injected with productUpdater: pick another product")
    expected.formUnion(dependents.map(\.component.name))
    let text = run("factory graph productUpdater").stdout
    let drawn = Set(
      text.split(separator: "\n").compactMap { line -> String? in
        guard let colon = line.firstIndex(of: ":") else { return nil }
        return String(line[..<colon].split(separator: " ").last ?? "")
      })
    #expect(drawn == expected)
    #expect(expected.count < graph.nodes.count)
    // Only the factories with something drawn are, under the root.
    #expect(text.contains("APIFactory") && !text.contains("MainFactory"))
    // An arrow to a product not drawn is not drawn either.
    for line in text.split(separator: "\n") where line.contains(" ← ") {
      let injected = line.split(separator: "←")[1].split(separator: " ").map {
        $0.trimmingCharacters(in: CharacterSet(charactersIn: ","))
      }
      for name in injected where byName[name] != nil {
        #expect(expected.contains(name), "\(line) names \(name), which is not drawn")
      }
    }
    let failed = run("factory graph productUpdatr")
    #expect(
      failed.stderr.contains("unknown component 'productUpdatr' (did you mean 'productUpdater'?)"))

    let setup = "factory get navigationLog; factory get gameParser"
    let built = run(setup + "; factory graph --built").stdout
    for name in ["tracer", "navigationLog", "gameParser"] {
      #expect(built.contains("\(name): "), "--built lacks \(name)")
    }
    // What was not built is not drawn, nor is a factory none of whose products was built.
    #expect(!built.contains("appDelegate") && !built.contains("acknowParser"))
    #expect(!built.contains("MainFactory") && built.contains("ModelFactory"))
    let list = run(setup + "; factory list --built").stdout
    let table = try #require(list.range(of: "name  ").map { list[$0.lowerBound...] })
    let rows = table.split(separator: "\n").dropFirst(2).map { $0.split(separator: " ")[0] }
    #expect(rows == ["tracer", "navigationLog", "gameParser"])
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
    "no product is built outside the factories: Domain, Commands and ArchShell call no product's initializer"
  )
  func noControllerBuiltOutsideFactories() throws {
    // The product types, by the name Swift gives them; an initializer call is `Type(`,
    // `Type<...>(` or `Type.init(`, not after a dot (swift-log's `Logging.Logger(`).
    let types = Set(
      ApplicationFactory.components.map { String($0.typeName.prefix { $0 != "<" }) })
    for type in [
      "DataSourceController", "NavigationController", "TableViewProvider",
      "ProductToProductCellViewModelTranslator", "JSONEncoder", "JSONDecoder", "JSONSerializer",
    ] {
      #expect(types.contains(type), "\(type) is not a product")
    }
    var offenders: [String] = []
    var scanned = 0
    for folder in ["Sources/Domain", "Sources/Commands", "Sources/ArchShell"] {
      let base = Self.root.appendingPathComponent(folder)
      let files =
        FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)?
        .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
      #expect(!files.isEmpty, "no sources under \(folder)")
      for file in files where !file.path.contains("/Sources/Domain/BDModules/Factory/") {
        scanned += 1
        let text = try String(contentsOf: file, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (number, line) in lines.enumerated() {
          for type in Self.initializerCalls(in: line) where types.contains(type) {
            offenders.append("\(folder)/\(file.lastPathComponent):\(number + 1): \(type)(")
          }
        }
      }
    }
    #expect(scanned > 100, "only \(scanned) files scanned")
    #expect(offenders.isEmpty, "built outside the factories: \(offenders)")
  }

  /// The type names a line calls as initializers.
  ///
  /// A call is a capitalised identifier followed by `(`, `.init(` or `<...>(`, not after a dot;
  /// a line comment ends the search. It is one pass over the line's bytes, with no regular
  /// expression, so the scan of every source file takes milliseconds and never holds a test
  /// server's thread.
  static func initializerCalls(in line: Substring) -> [String] {
    let bytes = Array(line.utf8)
    guard bytes.contains(UInt8(ascii: "(")) else { return [] }
    func isIdentifier(_ byte: UInt8) -> Bool {
      (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
        || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_")
    }
    func starts(with text: String, at index: Int) -> Bool {
      let pattern = Array(text.utf8)
      return index + pattern.count <= bytes.count
        && Array(bytes[index..<(index + pattern.count)]) == pattern
    }
    var found: [String] = []
    var index = 0
    while index < bytes.count {
      if starts(with: "//", at: index) { break }
      guard isIdentifier(bytes[index]) else {
        index += 1
        continue
      }
      let start = index
      while index < bytes.count, isIdentifier(bytes[index]) { index += 1 }
      let qualified = start > 0 && bytes[start - 1] == UInt8(ascii: ".")
      guard !qualified, bytes[start] >= 0x41, bytes[start] <= 0x5A else { continue }
      var next = index
      if next < bytes.count, bytes[next] == UInt8(ascii: "<") {
        var depth = 0
        while next < bytes.count {
          if bytes[next] == UInt8(ascii: "<") { depth += 1 }
          if bytes[next] == UInt8(ascii: ">") { depth -= 1 }
          next += 1
          if depth == 0 { break }
        }
      }
      if starts(with: ".init(", at: next) || starts(with: "(", at: next) {
        found.append(String(decoding: bytes[start..<index], as: UTF8.self))
      }
    }
    return found
  }

  @Test("the initializer scan finds the calls it must, and only those")
  func initializerScan() {
    #expect(CompositionTests.initializerCalls(in: "let d = JSONDecoder()") == ["JSONDecoder"])
    #expect(
      CompositionTests.initializerCalls(in: "x = ScreenController<AlertEvent>(screen: s)")
        == ["ScreenController"])
    #expect(CompositionTests.initializerCalls(in: "let e = JSONEncoder.init()") == ["JSONEncoder"])
    #expect(CompositionTests.initializerCalls(in: "var l = Logging.Logger(label: t)").isEmpty)
    #expect(CompositionTests.initializerCalls(in: "f(x) // JSONDecoder()").isEmpty)
    #expect(
      CompositionTests.initializerCalls(in: "try decoder.decode(Product.self, from: d)").isEmpty)
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
    // Renderers (pictures included) and the board draw what Domain holds, never through a group.
    for folder in ["Sources/Commands/Render", "Sources/Commands/Board"] {
      let base = Self.root.appendingPathComponent(folder)
      let enumerator = FileManager.default.enumerator(atPath: base.path)
      while let file = enumerator?.nextObject() as? String {
        guard file.hasSuffix(".swift") else { continue }
        let text = try String(
          contentsOfFile: base.appendingPathComponent(file).path, encoding: .utf8)
        for group in groups { #expect(!text.contains("\(group)."), "\(file) uses \(group)") }
      }
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
