import Domain
import Foundation
import Plumbing
import Testing

@Suite("BDModules' models: field mappers, value and model objects, ModelFactory")
struct ModelTests {
  private let factory = ApplicationFactory(databasePath: ":memory:")

  private func map(_ text: String, expected: String? = nil) throws -> MappedObject {
    try factory.model.object(from: try StrictJSON.parse(text), expected: expected)
  }

  /// A trip in the original example app's shape (its `trip_stub.json`, with ids of our own that
  /// are not UUIDs): a User as its profile, two Locations.
  private let trip = """
    {"type":"Trip","id":"trip-7","paging_id":7,
     "profile":{"type":"User","id":"123","first_name":"Ada","last_name":"Lovelace","email":"ada@example.com","phone_number":null},
     "start_location":{"type":"Location","id":"alt-1","title":"703 Bradford Way","subtitle":"Pacifica, CA","nickname":null,"latitude":37.621526,"longitude":-122.48551,"image_url":"https://example.com/1.jpg"},
     "end_location":{"type":"Location","id":"alt-2","paging_id":"abc","title":"SFO","subtitle":"San Francisco, CA","nickname":"the airport","latitude":37.617644,"longitude":-122.399322,"image_url":"https://example.com/2.jpg"}}
    """

  @Test("a trip maps its nested objects; ids and paging ids are strings; null becomes nil")
  func nested() throws {
    let mapped = try map(trip)
    let object = try #require(mapped.object as? ModelObject)
    #expect(object.type == "Trip")
    #expect(object.uuid == "trip-7")
    // A number becomes its decimal text; a string stays as it came.
    #expect(object.pagingId == "7")
    guard case .object(let profile)? = object["profile"] else {
      Issue.record("profile is not a value object")
      return
    }
    #expect(profile.type == "User" && profile.hasIdentity)
    #expect((profile as? ModelObject)?.uuid == "123")
    #expect(profile["phoneNumber"] == .null)
    #expect(profile["coverImageURL"] == .null)
    #expect(profile["firstName"] == .json(.string("Ada")))
    guard case .object(let start)? = object["startLocation"],
      case .object(let end)? = object["endLocation"]
    else {
      Issue.record("the locations are not objects: \(object)")
      return
    }
    #expect((start as? ModelObject)?.pagingId == nil)
    #expect((end as? ModelObject)?.pagingId == "abc")
    #expect(start["title"] == .json(.string("703 Bradford Way")))
    #expect(end["nickname"] == .json(.string("the airport")))
    #expect(mapped.warnings.isEmpty)
  }

  @Test("the example app's types are the original's, field for field")
  func originalTypes() {
    let described = ModelRegistry.bdModules.types.map { type in
      "\(type.name)(\(type.isModel ? "model" : "value")): "
        + type.mappers.map {
          "\($0.apiKeyPath)→\($0.modelKey)\($0.required ? "!" : "")\($0.kind == .default ? "" : " " + $0.kind.rawValue)"
        }.joined(separator: ", ")
    }
    #expect(
      described == [
        "User(model): first_name→firstName!, last_name→lastName!, email→email!, phone_number→phoneNumber, cover_image_url→coverImageURL, profile_image_url→profileImageURL",
        "Location(model): title→title!, subtitle→subtitle!, nickname→nickname, latitude→latitude!, longitude→longitude!, image_url→imageUrl!",
        "Trip(model): profile→profile! ValueObject, start_location→startLocation! ValueObject, end_location→endLocation! ValueObject",
      ])
  }

  @Test("a missing required field is reported and logged under Model, and the object is built")
  func missingRequired() throws {
    let mapped = try map(
      #"{"type":"Location","id":"1","title":"Polk Street","latitude":1,"longitude":null,"image_url":null}"#
    )
    #expect(mapped.object.type == "Location")
    #expect(
      mapped.warnings.map(\.description) == [
        "$.subtitle: required field 'subtitle' is missing",
        "$.longitude: required field 'longitude' is missing",
        "$.image_url: required field 'imageUrl' is missing",
      ])
    let lines = try factory.api.logBook.lines(tag: "Model")
    #expect(lines.map(\.message) == mapped.warnings.map(\.description))
    #expect(lines.allSatisfy { $0.level == .error })
  }

  @Test("the seed's User maps with no warning and keeps both image URLs")
  func seedUser() throws {
    let mapped = try map(
      #"{"type":"User","id":"b3476de8","cover_image_url":"http://test.com/users/cover.png","phone_number":"5555551212","profile_image_url":"http://test.com/users/profile.png","first_name":"Patrick","last_name":"Hogan","email":"abc@cba.com"}"#
    )
    #expect(mapped.warnings.isEmpty)
    #expect(mapped.object["coverImageURL"] == .json(.string("http://test.com/users/cover.png")))
    #expect(
      mapped.object["profileImageURL"] == .json(.string("http://test.com/users/profile.png")))
  }

  @Test("a value object field holding something else is an error at its place")
  func wrongKind() throws {
    let wrong = trip.replacingOccurrences(
      of: #""profile":{"type":"User""#, with: #""profile":[{"type":"User""#
    ).replacingOccurrences(of: #""phone_number":null},"#, with: #""phone_number":null}],"#)
    #expect(throws: ModelError.wrongKind(path: "$.profile", expected: "an object")) {
      try map(wrong)
    }
  }

  @Test("a missing or unknown type, an empty id and a bad paging_id are located errors")
  func errors() throws {
    #expect(throws: ModelError.missingType(path: "$")) { try map(#"{"id":"x"}"#) }
    #expect(throws: ModelError.unknownType("Locaton", path: "$", suggestion: "Location")) {
      try map(#"{"type":"Locaton"}"#)
    }
    #expect(throws: ModelError.invalidID("''", path: "$")) {
      try map(#"{"type":"Location","id":"","title":"a","latitude":1,"longitude":2}"#)
    }
    #expect(throws: ModelError.invalidPagingID(path: "$")) {
      try map(#"{"type":"Location","id":"1","paging_id":[7],"title":"a"}"#)
    }
    // Any non-empty id maps, and a number is its decimal text.
    #expect(
      (try map(#"{"type":"User","id":42,"email":"a@b.c"}"#).object as? ModelObject)?.uuid == "42")
    #expect(throws: ModelError.missingType(path: "$.profile")) {
      try map(trip.replacingOccurrences(of: #""profile":{"type":"User","#, with: #""profile":{"#))
    }
    #expect(throws: ModelError.typeMismatch(expected: "User", found: "Trip", path: "$")) {
      try map(trip, expected: "User")
    }
  }

  @Test("value objects are equal by dictionary; model objects by type and uuid")
  func equality() throws {
    let registry = ModelRegistry(types: [
      ModelType(name: "Note", isModel: false, mappers: [APIFieldMapper("text", "text")])
    ])
    var warnings: [MappingWarning] = []
    let a = try registry.map(
      try StrictJSON.parse(#"{"type":"Note","text":"x"}"#), at: "$", warnings: &warnings)
    let b = try registry.map(
      try StrictJSON.parse(#"{"text":"x","type":"Note"}"#), at: "$", warnings: &warnings)
    let c = try registry.map(
      try StrictJSON.parse(#"{"type":"Note","text":"y"}"#), at: "$", warnings: &warnings)
    #expect(a == b && a != c)
    let home =
      #"{"type":"Location","id":"abc","title":"Home","subtitle":"x","latitude":1,"longitude":2}"#
    let renamed = home.replacingOccurrences(of: "Home", with: "House")
    let first = try #require(try map(home).object as? ModelObject)
    let second = try #require(try map(renamed).object as? ModelObject)
    #expect(first == second && first.hashValue == second.hashValue)
    #expect(!first.dictionaryEquals(second))
  }

  @Test("the collection parser needs only info.total, and accepts an info that disagrees")
  func collections() throws {
    let item =
      #"{"type":"Location","id":"123","title":"a","subtitle":"b","latitude":1,"longitude":2}"#
    let good = #"{"code":"OK","data":["# + item + #"],"info":{"offset":5,"count":1,"total":10}}"#
    let collection = try factory.model.collectionParser(Data(good.utf8))
    #expect(collection.elements.count == 1 && collection.total == 10 && collection.offset == 5)
    // As the original's tests send them: no offset, and a count that is not the page's size.
    let lenient = #"{"code":"OK","data":["# + item + #"],"info":{"count":10,"total":3}}"#
    let page = try factory.model.collectionParser(Data(lenient.utf8))
    #expect(page.total == 3 && page.offset == nil && page.count == 10)
    #expect(throws: ModelError.missingInfo) {
      try factory.model.collectionParser(Data(#"{"code":"OK","data":[],"info":{"count":0}}"#.utf8))
    }
    #expect(throws: ModelError.missingData(expected: "object")) {
      try factory.model.objectParser(Data(#"{"code":"OK","data":[]}"#.utf8))
    }
  }

  @Test("api lint finds each departure from the convention, one located finding each")
  func convention() throws {
    let bad = try StrictJSON.parse(
      #"{"code":"Okay","data":[{"type":"Location","id":"42","firstName":"x","paging_id":"3"},{"name":"x"}],"info":{"offset":0,"count":3,"total":1}}"#
    )
    #expect(
      APIConvention.lint(bad, registry: .bdModules).map(\.description) == [
        "code: 'Okay' is not a known code [the convention's text]",
        "message: an error needs a human-readable message [the convention's text]",
        "info.count: is 3, but data holds 2 [the convention's text]",
        "info.total: is 1, fewer than offset 0 plus 2 [the convention's text]",
        "data[0].id: is not a UUID [the convention's text]",
        "data[0].paging_id: expected a whole number; the original's code keeps any string [the convention's text]",
        "data[0].firstName: field names are snake_case [the convention's text]",
        "data[1]: the object has no string 'type' [the convention's text and the original's code]",
      ])
    let good = try StrictJSON.parse(
      #"{"code":"OK","data":{"type":"Trip","id":"6955b900-0000-4000-8000-00000000a001","profile":{"type":"User","id":"6955b900-0000-4000-8000-00000000a002","first_name":"A"}}}"#
    )
    #expect(APIConvention.lint(good, registry: .bdModules).isEmpty)
    let missingID = try StrictJSON.parse(#"{"code":"OK","data":{"type":"User","email":"a@b.c"}}"#)
    #expect(
      APIConvention.lint(missingID, registry: .bdModules).map(\.description) == [
        "data: a User is a model: it needs an 'id' [the convention's text and the original's code]"
      ])
  }

  @Test("a dotted apiKeyPath walks into nested objects; a missing step is a missing field")
  func dottedKeyPath() throws {
    let registry = ModelRegistry(types: [
      ModelType(
        name: "Place", isModel: false,
        mappers: [
          APIFieldMapper("coordinate.latitude", "latitude", required: true),
          APIFieldMapper("coordinate.longitude", "longitude"),
        ])
    ])
    var warnings: [MappingWarning] = []
    let place = try registry.map(
      try StrictJSON.parse(#"{"type":"Place","coordinate":{"latitude":51.5}}"#), at: "$",
      warnings: &warnings)
    #expect(place["latitude"] == .json(.number("51.5")))
    #expect(place["longitude"] == .null)
    #expect(warnings.isEmpty)
    _ = try registry.map(
      try StrictJSON.parse(#"{"type":"Place","coordinate":7}"#), at: "$", warnings: &warnings)
    #expect(
      warnings.map(\.description) == ["$.coordinate.latitude: required field 'latitude' is missing"]
    )
  }
}
