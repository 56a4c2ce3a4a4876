import Domain
import Foundation
import Testing

@Suite("BDModules' models: field mappers, value and model objects, ModelFactory")
struct ModelTests {
  private let factory = ApplicationFactory(databasePath: ":memory:")

  private func map(_ text: String, expected: String? = nil) throws -> MappedObject {
    try factory.model.object(from: try StrictJSON.parse(text), expected: expected)
  }

  private let trip = """
    {"type":"Trip","id":"6955b900-0000-4000-8000-00000000a001","paging_id":7,
     "profile":{"type":"Profile","display_name":"Ada","avatar_url":null},
     "start_location":{"type":"Location","id":"6955b900-0000-4000-8000-000000000001","name":"Home","latitude":51.5,"longitude":-0.1},
     "end_location":{"type":"Location","id":"6955b900-0000-4000-8000-000000000002","name":"Work","latitude":51.52,"longitude":-0.08},
     "stops":[{"type":"Location","id":"6955b900-0000-4000-8000-000000000003","name":"Café","latitude":1,"longitude":2}]}
    """

  @Test("a trip maps its nested value objects and its value array; null becomes nil")
  func nested() throws {
    let mapped = try map(trip)
    let object = try #require(mapped.object as? ModelObject)
    #expect(object.type == "Trip")
    #expect(object.uuid == "6955b900-0000-4000-8000-00000000a001")
    #expect(object.pagingId == 7)
    guard case .object(let profile)? = object["profile"] else {
      Issue.record("profile is not a value object")
      return
    }
    #expect(profile.type == "Profile" && !profile.hasIdentity)
    #expect(profile["avatarURL"] == .null)
    #expect(profile["displayName"] == .json(.string("Ada")))
    guard case .array(let stops)? = object["stops"] else {
      Issue.record("stops is not a value array")
      return
    }
    #expect(stops.map(\.type) == ["Location"])
    #expect((stops.first as? ModelObject)?.uuid == "6955b900-0000-4000-8000-000000000003")
    // Absent optional field: nil; absent paging_id: nil.
    #expect(object["distanceMeters"] == .null)
    guard case .object(let start)? = object["startLocation"] else { return }
    #expect((start as? ModelObject)?.pagingId == nil)
    #expect(mapped.warnings.isEmpty)
  }

  @Test("a missing required field is reported and logged under Model, and the object is built")
  func missingRequired() throws {
    let mapped = try map(
      #"{"type":"Location","id":"6955b900-0000-4000-8000-000000000001","latitude":1,"longitude":null}"#
    )
    #expect(mapped.object.type == "Location")
    #expect(
      mapped.warnings.map(\.description) == [
        "$.name: required field 'name' is missing",
        "$.longitude: required field 'longitude' is missing",
      ])
    let lines = try factory.api.logBook.lines(tag: "Model")
    #expect(lines.map(\.message) == mapped.warnings.map(\.description))
    #expect(lines.allSatisfy { $0.level == .error })
  }

  @Test("a missing optional array becomes []; a wrong kind is an error at its place")
  func arrays() throws {
    let withoutStops = trip.replacingOccurrences(
      of: #",\s*"stops":\[.*\]"#, with: "", options: .regularExpression)
    #expect(!withoutStops.contains("stops"))
    #expect(try map(withoutStops).object["stops"] == .array([]))
    let wrong = trip.replacingOccurrences(of: #""stops":["#, with: #""stops":{"a":["#)
      .replacingOccurrences(of: "2}]}", with: "2}]}}")
    #expect(throws: ModelError.wrongKind(path: "$.stops", expected: "an array")) {
      try map(wrong)
    }
  }

  @Test("a missing or unknown type, a non-UUID id and a bad paging_id are located errors")
  func errors() throws {
    #expect(throws: ModelError.missingType(path: "$")) { try map(#"{"id":"x"}"#) }
    #expect(throws: ModelError.unknownType("Locaton", path: "$", suggestion: "Location")) {
      try map(#"{"type":"Locaton"}"#)
    }
    #expect(throws: ModelError.invalidID("42", path: "$")) {
      try map(#"{"type":"Location","id":"42","name":"a","latitude":1,"longitude":2}"#)
    }
    #expect(throws: ModelError.invalidPagingID(path: "$")) {
      try map(
        #"{"type":"Location","id":"6955b900-0000-4000-8000-000000000001","paging_id":"7","name":"a","latitude":1,"longitude":2}"#
      )
    }
    #expect(throws: ModelError.missingType(path: "$.profile")) {
      try map(trip.replacingOccurrences(of: #""type":"Profile","#, with: ""))
    }
    #expect(throws: ModelError.typeMismatch(expected: "User", found: "Trip", path: "$")) {
      try map(trip, expected: "User")
    }
  }

  @Test("value objects are equal by dictionary; model objects by type and uuid")
  func equality() throws {
    let a = try map(#"{"type":"Profile","display_name":"Ada","bio":"x"}"#).object
    let b = try map(#"{"bio":"x","type":"Profile","display_name":"Ada"}"#).object
    let c = try map(#"{"type":"Profile","display_name":"Grace"}"#).object
    #expect(a == b && a != c)
    let home =
      #"{"type":"Location","id":"6955b900-0000-4000-8000-000000000001","name":"Home","latitude":1,"longitude":2}"#
    let renamed = home.replacingOccurrences(of: "Home", with: "House")
    let first = try #require(try map(home).object as? ModelObject)
    let second = try #require(try map(renamed).object as? ModelObject)
    #expect(first == second && first.hashValue == second.hashValue)
    #expect(!first.dictionaryEquals(second))
  }

  @Test("the collection parser reads data[] and an info that agrees with it")
  func collections() throws {
    let item =
      #"{"type":"Location","id":"6955b900-0000-4000-8000-000000000001","name":"a","latitude":1,"longitude":2}"#
    let good = #"{"code":"OK","data":["# + item + #"],"info":{"offset":5,"count":1,"total":10}}"#
    let collection = try factory.model.collectionParser(Data(good.utf8))
    #expect(collection.elements.count == 1 && collection.total == 10 && collection.offset == 5)
    #expect(throws: ModelError.missingInfo) {
      try factory.model.collectionParser(Data(#"{"code":"OK","data":[]}"#.utf8))
    }
    #expect(throws: ModelError.infoDisagrees("total is 3, fewer than offset 5 plus count 1")) {
      try factory.model.collectionParser(
        Data(good.replacingOccurrences(of: #""total":10"#, with: #""total":3"#).utf8))
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
        "code: 'Okay' is not a known code", "message: an error needs a human-readable message",
        "info.count: is 3, but data holds 2", "info.total: is 1, fewer than offset 0 plus 2",
        "data[0].id: is not a UUID", "data[0].paging_id: expected a whole number",
        "data[0].firstName: field names are snake_case", "data[1]: the object has no string 'type'",
      ])
    let good = try StrictJSON.parse(
      #"{"code":"OK","data":{"type":"Trip","id":"6955b900-0000-4000-8000-00000000a001","profile":{"type":"Profile","display_name":"A"},"stops":[]}}"#
    )
    #expect(APIConvention.lint(good, registry: .bdModules).isEmpty)
    let missingID = try StrictJSON.parse(#"{"code":"OK","data":{"type":"User","email":"a@b.c"}}"#)
    #expect(
      APIConvention.lint(missingID, registry: .bdModules).map(\.description) == [
        "data: a User is a model: it needs an 'id'"
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
