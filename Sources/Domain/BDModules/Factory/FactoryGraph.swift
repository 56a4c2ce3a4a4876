import Foundation
import Synchronization

/// The factories' products with what each one's builder resolved, and what this session has built:
/// what `factory list` and `factory graph` draw.
public struct FactoryGraph: Sendable {
  /// One product.
  public struct Node: Sendable {
    /// The product's declaration.
    public let component: FactoryComponent
    /// The products its builder resolved, in the order of `ApplicationFactory.components`.
    public let dependencies: [String]
    /// How many times this session has built it: a singleton 0 or 1 (more after a re-pointed API
    /// or a relaunch), a prototype once per request.
    public let constructions: Int
  }

  /// Every product, in the order of `ApplicationFactory.components`.
  public let nodes: [Node]
  /// The products the survey could not build, with why (the embedded API under `--api`).
  public let unbuilt: [(name: String, reason: String)]

  /// The part of the graph made of the products `keeps` accepts, with the arrows between them.
  public func restricted(to keeps: (Node) -> Bool) -> FactoryGraph {
    let kept = nodes.filter(keeps)
    let names = Set(kept.map(\.component.name))
    return FactoryGraph(
      nodes: kept.map { node in
        Node(
          component: node.component, dependencies: node.dependencies.filter(names.contains),
          constructions: node.constructions)
      },
      unbuilt: unbuilt.filter { names.contains($0.name) })
  }
}

/// What building every product once recorded.
struct FactorySurvey: Sendable {
  /// What each product's builder resolved.
  let dependencies: [String: Set<String>]
  /// The products that could not be built, with why.
  let failures: [(name: String, reason: String)]
}

extension ApplicationFactory {
  /// Every product with the dependencies its builder resolves, and how many times this session has
  /// built it.
  ///
  /// The dependencies are recorded, never declared: a scratch root (an in-memory workspace, and
  /// a stand-in for the embedded API that listens nowhere) builds every product once through its
  /// accessor, and the core records what each builder asks for. What this session's own builds
  /// recorded is added, so the graph shows every dependency resolved here. The scratch root is
  /// surveyed once per process and per kind of API (embedded, or `--api`).
  public func graph() -> FactoryGraph {
    let survey = Self.surveys.survey(embedded: configuration.apiURL == nil) {
      Self.survey(apiURL: configuration.apiURL)
    }
    let resolved = resolvedDependencies
    let order = Dictionary(
      Self.components.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    let nodes = Self.components.map { component in
      let names = survey.dependencies[component.name, default: []].union(
        resolved[component.name, default: []])
      return FactoryGraph.Node(
        component: component,
        dependencies: names.sorted { (order[$0] ?? .max, $0) < (order[$1] ?? .max, $1) },
        constructions: constructionCount(component.name))
    }
    return FactoryGraph(nodes: nodes, unbuilt: survey.failures)
  }

  /// Builds every product once in a scratch root configured like this one, and returns what each
  /// builder resolved.
  static func survey(apiURL: String?) -> FactorySurvey {
    let scratch = ApplicationFactory(
      configuration: ApplicationConfiguration(
        databasePath: ":memory:", apiURL: apiURL, startEmbeddedAPI: { UnstartedAPI() }))
    var failures: [(name: String, reason: String)] = []
    for component in components {
      do {
        _ = try component.sample(scratch)
      } catch {
        failures.append((component.name, String(describing: error)))
      }
    }
    return FactorySurvey(dependencies: scratch.resolvedDependencies, failures: failures)
  }

  private static let surveys = SurveyCache()
}

/// The surveys made so far in this process: one with the embedded API, one with `--api`.
private final class SurveyCache: Sendable {
  private let surveys = Mutex<[Bool: FactorySurvey]>([:])

  func survey(embedded: Bool, make: () -> FactorySurvey) -> FactorySurvey {
    if let known = surveys.withLock({ $0[embedded] }) { return known }
    let made = make()
    surveys.withLock { $0[embedded] = made }
    return made
  }
}

/// The survey's stand-in for the embedded demo API: building the networking products needs a
/// base URL, and nothing is ever sent to this one.
private final class UnstartedAPI: EmbeddedAPIServer {
  let baseURL = URL(string: "http://127.0.0.1:9") ?? URL(fileURLWithPath: "/")
  func stop() {}
  func expireAccessTokens() -> Int { 0 }
  var accessTokenLifetime: Double = 0
}

extension AcknowParser {
  /// Runs `body` with the path of a small acknowledgements plist, removed afterwards: the input the
  /// survey builds an AcknowParser from.
  static func withSamplePlist<T>(_ body: (String) throws -> T) throws -> T {
    let plist = """
      <?xml version="1.0" encoding="UTF-8"?>
      <plist version="1.0"><dict><key>PreferenceSpecifiers</key><array/></dict></plist>
      """
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "archsh-factory-survey-\(UUID().uuidString).plist")
    try Data(plist.utf8).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url.path)
  }
}
