import Foundation

/// One acknowledgement from a CocoaPods acknowledgements plist: a library's title, its license
/// text, and the license's name.
public struct Acknow: Equatable, Sendable {
  /// The library's name.
  public var title: String
  /// The license text.
  public var text: String
  /// The license's name, such as `MIT`, when the plist gives one.
  public var license: String?

  /// Creates an acknowledgement.
  public init(title: String, text: String, license: String? = nil) {
    self.title = title
    self.text = text
    self.license = license
  }
}

/// Why a parser refused its input.
///
/// Each case reads as one line.
public enum ParserError: Error, Equatable, CustomStringConvertible, SubjectError {
  /// The file could not be read.
  case unreadable(path: String, reason: String)
  /// The file is not a property list whose root is a dictionary.
  case notAPropertyList(path: String)
  /// The input lacks what the parser needs (GameParser's `invalidInput`).
  case invalidInput(String)

  /// The same error, naming its file `path` instead (as a walkthrough's transcript names it).
  public func naming(_ path: String) -> ParserError {
    switch self {
    case .unreadable(_, let reason): .unreadable(path: path, reason: reason)
    case .notAPropertyList: .notAPropertyList(path: path)
    case .invalidInput: self
    }
  }

  /// The input the error concerns: the file, or the value given.
  public var subject: ErrorSubject? {
    switch self {
    case .unreadable(let path, _), .notAPropertyList(let path): return ErrorSubject(.file, path)
    case .invalidInput: return .value
    }
  }

  /// A one-line description.
  public var description: String {
    switch self {
    case .unreadable(let path, let reason):
      return "cannot read '\(path)': \(reason)"
    case .notAPropertyList(let path):
      return "'\(path)' is not a property list with a dictionary at its root"
    case .invalidInput(let reason):
      return "invalidInput: \(reason)"
    }
  }
}

/// Parses a CocoaPods acknowledgements plist, after Lickability's AcknowParser (seed 000).
///
/// The plist's `PreferenceSpecifiers` array holds groups: the first group's `FooterText` is the
/// header, the last group's is the footer, and each group in between is one library (`Title`,
/// `FooterText` as the license text, `License`). A group without a title or text gives an empty
/// one.
///
/// Deliberate difference: the seed's initializer turns an unreadable plist into an empty root
/// dictionary, so a typo in a path silently shows no acknowledgements. This initializer throws.
public struct AcknowParser: Sendable {
  /// The groups of the plist's `PreferenceSpecifiers`, as dictionaries of strings.
  let specifiers: [[String: String]]

  /// Loads the plist at `plistPath`.
  public init(plistPath: String) throws(ParserError) {
    var isDirectory: ObjCBool = false
    let exists = FileManager.default.fileExists(atPath: plistPath, isDirectory: &isDirectory)
    if exists, isDirectory.boolValue {
      throw .unreadable(path: plistPath, reason: "it is a directory")
    }
    guard let data = FileManager.default.contents(atPath: plistPath) else {
      throw .unreadable(path: plistPath, reason: exists ? "permission denied" : "no such file")
    }
    let root = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    guard let dictionary = root as? [String: Any] else { throw .notAPropertyList(path: plistPath) }
    let groups = dictionary["PreferenceSpecifiers"] as? [Any] ?? []
    specifiers = groups.map { group in
      guard let fields = group as? [String: Any] else { return [:] }
      return fields.compactMapValues { $0 as? String }
    }
  }

  /// The header and footer: the `FooterText` of the first and last groups.
  public func parseHeaderAndFooter() -> (header: String?, footer: String?) {
    (specifiers.first?["FooterText"], specifiers.count > 1 ? specifiers.last?["FooterText"] : nil)
  }

  /// The acknowledgements: every group between the first and the last.
  public func parseAcknowledgements() -> [Acknow] {
    guard specifiers.count > 2 else { return [] }
    return specifiers.dropFirst().dropLast().map { group in
      Acknow(
        title: group["Title"] ?? "", text: group["FooterText"] ?? "", license: group["License"])
    }
  }
}

/// A game, as GameParser builds it.
public struct Game: Equatable, Sendable {
  /// The game's name.
  public var name: String
}

/// The newer Parser example of Lickability's guide: JSON in, a model out, `invalidInput` when the
/// JSON lacks what the model needs.
public struct GameParser: Sendable {
  /// Creates a parser.
  public init() {}

  /// Parses a game from a JSON object; `invalidInput` when `name` is missing or not text.
  public func parse(json: [String: Any]) throws(ParserError) -> Game {
    guard let name = json["name"] as? String else {
      throw .invalidInput("the JSON object has no text field 'name'")
    }
    return Game(name: name)
  }

  /// Parses a game from JSON text; `invalidInput` when it is not a JSON object.
  public func parse(text: String) throws(ParserError) -> Game {
    let object = try? JSONSerialization.jsonObject(
      with: Data(text.utf8), options: [.fragmentsAllowed])
    guard let json = object as? [String: Any] else {
      throw .invalidInput("the input is not a JSON object")
    }
    return try parse(json: json)
  }
}
