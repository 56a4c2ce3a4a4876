import Foundation
import Plumbing

/// One way a response departs from BDModules' API convention.
public struct ConventionFinding: Sendable, Equatable, CustomStringConvertible {
  /// Which source a finding's rule comes from.
  public enum Rule: String, Sendable {
    /// The convention as BDModules' README states it; the original's code may accept more.
    case text
    /// The README, and the original's code too: ModelFactory dispatches on `type`, and a model
    /// object takes its uuid from `id`.
    case both

    /// The rule's source, as the finding's line names it.
    public var label: String {
      switch self {
      case .text: return "the convention's text"
      case .both: return "the convention's text and the original's code"
      }
    }
  }

  /// Where, such as `data[3].firstName`.
  public let path: String
  /// What is wrong.
  public let message: String
  /// Whose rule it breaks.
  public let rule: Rule

  /// A finding; most rules are the convention's text alone.
  public init(path: String, message: String, rule: Rule = .text) {
    self.path = path
    self.message = message
    self.rule = rule
  }

  /// One line: the place, the finding, and whose rule it is.
  public var description: String { "\(path): \(message) [\(rule.label)]" }
}

/// Checks a response against BDModules' API convention: a top-level `code` from the known list
/// (and a `message` with an error code); `data` on success; every object with a `type`, every
/// model object with a UUID `id`; collections with `info{offset,count,total}` that agree with
/// the data; snake_case field names.
public enum APIConvention {
  /// The codes the convention knows: `OK` and the demo API's error codes.
  public static let knownCodes: Set<String> = [
    "OK", "BadRequest", "Unauthorized", "Forbidden", "ResourceNotFound", "Conflict",
    "ValidationFailed", "TooManyRequests", "InternalError", "BadGateway", "ServiceUnavailable",
    "GatewayTimeout", "ServerError", "ClientError", "InvalidCredentials", "InvalidClient",
    "InvalidRefreshToken", "UnsupportedGrantType", "InvalidParameters", "ResourceAlreadyExists",
  ]

  /// Every finding, in document order.
  public static func lint(_ value: JSONValue, registry: ModelRegistry) -> [ConventionFinding] {
    var findings: [ConventionFinding] = []
    guard case .object(let members) = value else {
      return [ConventionFinding(path: "$", message: "the response is not an object")]
    }
    let code = ModelRegistry.member(members, "code")
    switch code {
    case .string(let text)?:
      if !knownCodes.contains(text) {
        findings.append(ConventionFinding(path: "code", message: "'\(text)' is not a known code"))
      }
      if text != "OK", ModelRegistry.member(members, "message") == nil {
        findings.append(
          ConventionFinding(path: "message", message: "an error needs a human-readable message"))
      }
    default:
      findings.append(ConventionFinding(path: "code", message: "the response needs a string code"))
    }
    checkNames(members, at: "$", into: &findings)
    let succeeded = code == .string("OK")
    switch ModelRegistry.member(members, "data") {
    case nil:
      if succeeded {
        findings.append(ConventionFinding(path: "data", message: "a success needs data"))
      }
    case .array(let items)?:
      checkInfo(ModelRegistry.member(members, "info"), count: items.count, into: &findings)
      for (index, item) in items.enumerated() {
        checkObject(item, at: "data[\(index)]", registry: registry, into: &findings)
      }
    case let data?:
      checkObject(data, at: "data", registry: registry, into: &findings)
    }
    return findings
  }

  private static func checkInfo(
    _ info: JSONValue?, count: Int, into findings: inout [ConventionFinding]
  ) {
    guard case .object(let members)? = info else {
      return findings.append(
        ConventionFinding(path: "info", message: "a collection needs info{offset,count,total}"))
    }
    var numbers: [String: Int] = [:]
    for key in ["offset", "count", "total"] {
      guard case .number(let text)? = ModelRegistry.member(members, key), let number = Int(text)
      else {
        findings.append(ConventionFinding(path: "info.\(key)", message: "expected a whole number"))
        continue
      }
      numbers[key] = number
    }
    if let stated = numbers["count"], stated != count {
      findings.append(
        ConventionFinding(path: "info.count", message: "is \(stated), but data holds \(count)"))
    }
    if let offset = numbers["offset"], let total = numbers["total"], total < offset + count {
      findings.append(
        ConventionFinding(
          path: "info.total", message: "is \(total), fewer than offset \(offset) plus \(count)"))
    }
  }

  private static func checkObject(
    _ value: JSONValue, at path: String, registry: ModelRegistry,
    into findings: inout [ConventionFinding]
  ) {
    switch value {
    case .array(let items):
      for (index, item) in items.enumerated() {
        checkObject(item, at: "\(path)[\(index)]", registry: registry, into: &findings)
      }
    case .object(let members):
      let type = ModelRegistry.member(members, "type")
      guard case .string(let name)? = type else {
        findings.append(
          ConventionFinding(path: path, message: "the object has no string 'type'", rule: .both))
        break
      }
      let id = ModelRegistry.member(members, "id")
      if registry.type(named: name)?.isModel == true, id == nil {
        findings.append(
          ConventionFinding(
            path: path, message: "a \(name) is a model: it needs an 'id'", rule: .both))
      }
      if let id, !Self.isUUID(id) {
        findings.append(ConventionFinding(path: "\(path).id", message: "is not a UUID"))
      }
      if let paging = ModelRegistry.member(members, "paging_id") {
        if case .number(let text) = paging, Int64(text) != nil {
        } else if paging != .null {
          findings.append(
            ConventionFinding(
              path: "\(path).paging_id",
              message: "expected a whole number; the original's code keeps any string"))
        }
      }
      for member in members where member.key != "type" {
        if case .object = member.value {
          checkObject(
            member.value, at: "\(path).\(member.key)", registry: registry, into: &findings)
        } else if case .array(let items) = member.value, items.contains(where: Self.isObject) {
          checkObject(
            member.value, at: "\(path).\(member.key)", registry: registry, into: &findings)
        }
      }
    default:
      break
    }
    if case .object(let members) = value { checkNames(members, at: path, into: &findings) }
  }

  private static func isUUID(_ value: JSONValue) -> Bool {
    if case .string(let text) = value { return UUID(uuidString: text) != nil }
    return false
  }

  private static func isObject(_ value: JSONValue) -> Bool {
    if case .object = value { return true }
    return false
  }

  /// Field names in snake_case: lowercase letters, digits and underscores.
  private static func checkNames(
    _ members: [JSONMember], at path: String, into findings: inout [ConventionFinding]
  ) {
    for member in members where !isSnakeCase(member.key) {
      let place = path == "$" ? member.key : "\(path).\(member.key)"
      findings.append(ConventionFinding(path: place, message: "field names are snake_case"))
    }
  }

  static func isSnakeCase(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, ("a"..."z").contains(first) else { return false }
    return name.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
    }
  }
}
