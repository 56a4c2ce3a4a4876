import Domain
import Foundation
import Plumbing

/// `api`: BDModules' API convention.
enum APIGroup {
  static let group = CommandGroup(
    "api", summary: "check a response against BDModules' API convention",
    from: [.bdModules],
    discussion: """
      The convention: a top-level code from the known list (and a message with an error code); \
      data on success; every object with a type, every model object with a UUID id; collections \
      with info{offset,count,total} that agree with the data; snake_case field names.
      Each finding says whose rule it applies: the convention's text (BDModules' README), or \
      the text and the original's code together (ModelFactory dispatches on 'type', and a model \
      object takes its uuid from 'id'). The text asks for time-sortable ids, so a paging_id \
      that is not a whole number is a finding; the original's code keeps paging_id as a String \
      and maps any, as 'model map' and 'help model' say.
      """,
    commands: [lint])

  /// `lint @FILE|PATH`.
  static let sourceArgument = Argument(
    "SOURCE", .text, "@FILE with a response, or a PATH to GET (through OAuth2Authorization)"
  ).concerning(.value)

  static let lint = Command(
    "lint", summary: "each way a response departs from the convention, one located line each",
    discussion: """
      With findings, it prints them and fails (status 1), as a linter does; in a walkthrough, \
      follow it with 'expect fails'.
      """,
    signature: Signature([sourceArgument]),
    examples: ["api lint /users/me/locations", "api lint @response.json"],
    result: .record(["conforms", "findings"])
  ) { invocation in
    let source = try invocation[sourceArgument]
    let json: JSONValue
    if source.text.hasPrefix("@") {
      json = try ValueInput.json(source, what: "the response", paths: invocation.paths).json
    } else {
      guard source.text.hasPrefix("/") else {
        throw ShellError(
          "'\(source.text)' is neither @FILE nor a path", hint: "for example /users/me",
          at: source.offset)
      }
      let api = invocation.session.factory.api
      let manager = try api.apiSessionManager()
      let response = try api.oAuth2Authorization.performAndWait(
        "GET \(source.text)", isCancelled: invocation.session.interruptCheck,
        makeTask: OAuth2Authorization.request(manager, method: .get, path: source.text)
      ).get()
      if let error = response.error { throw error }
      // The status is said: a 404's empty body is not a convention's finding, nor a JSON error.
      let status = response.statusCode ?? 0
      if response.data.isEmpty {
        throw ShellError(
          "GET \(source.text) answered HTTP \(status) with an empty body: there is nothing to lint",
          hint: (200..<300).contains(status)
            ? "the convention wants {\"code\":…,\"data\":…}"
            : "check the path; net get shows the response",
          at: source.offset)
      }
      json = try ValueInput.check(
        response.data, file: nil, at: source, what: "the response (HTTP \(status))")
    }
    let findings = APIConvention.lint(json, registry: invocation.session.factory.model.registry)
    let listed: [Value] = findings.map { finding in
      .object([
        Field("path", .string(finding.path)), Field("message", .string(finding.message)),
        Field("rule", .string(finding.rule.rawValue)),
      ])
    }
    guard !findings.isEmpty else {
      return .sentence(
        "conforms to the BDModules API convention",
        [Field("conforms", .bool(true)), Field("findings", .list(listed))])
    }
    throw FailureWithOutput(
      output: .sentence(
        findings.map(\.description).joined(separator: "\n"),
        [Field("conforms", .bool(false)), Field("findings", .list(listed))]),
      error: ShellError(
        "\(plural(findings.count, "finding")): the response departs from the BDModules API convention",
        at: source.offset))
  }
}
