import Foundation

/// One query parameter a fetch sent: its name and its value, as they went.
public struct QueryParameter: Sendable, Equatable, CustomStringConvertible {
  /// The name, such as `since_id`.
  public let key: String
  /// The value.
  public let value: String

  /// `key=value`.
  public var description: String { "\(key)=\(value)" }
}

/// What one fetch did.
public struct FetchResult: Sendable, Equatable {
  /// The query parameters sent.
  public let parameters: [QueryParameter]
  /// How many elements the page held.
  public let received: Int
  /// How many of them were new.
  public let added: Int
  /// The repository after the fetch.
  public let record: RepositoryRecord

  /// How many were already held.
  public var duplicates: Int { received - added }
}

/// Pages through a collection and keeps its model objects, after BDModules' `Repository`.
///
/// - `fetch` returns nil (the seed's false) only while a fetch of the same repository is in
///   flight; like the seed, it does not check `atEnd`.
/// - Standard paging sends `offset = elements.count`; Realtime Ascending sends `since_id`, and
///   Realtime Descending `max_id`, from the last element's paging id.
/// - New elements are de-duplicated by identity (type and uuid) and keep their order.
/// - An error sets the state to Error and keeps the elements.
///
/// Every request goes through APISessionManager and OAuth2Authorization, so an expired token in
/// the middle of paging is refreshed and the page replayed unseen; ModelFactory's collection
/// parser maps the page; the store keeps it.
public final class Repository {
  /// The repository's name.
  public let name: String
  private let store: RepositoryStore
  private let sessionManager: APISessionManager
  private let authorization: OAuth2Authorization
  private let modelFactory: ModelFactory
  private let serializer: JSONSerializer
  private let tracer: Tracer
  private let isCancelled: @Sendable () -> Bool

  /// Creates the repository object for the stored repository `name`; `serializer` (compact)
  /// writes each element's JSON for the store.
  public init(
    name: String, store: RepositoryStore, sessionManager: APISessionManager,
    authorization: OAuth2Authorization, modelFactory: ModelFactory, serializer: JSONSerializer,
    tracer: Tracer, isCancelled: @escaping @Sendable () -> Bool = { false }
  ) {
    self.name = name
    self.store = store
    self.sessionManager = sessionManager
    self.authorization = authorization
    self.modelFactory = modelFactory
    self.serializer = serializer
    self.tracer = tracer
    self.isCancelled = isCancelled
  }

  /// The parameters the next fetch sends.
  public static func parameters(for record: RepositoryRecord) -> [(key: String, value: String)] {
    let definition = record.definition
    var parameters: [(key: String, value: String)] = [("limit", String(definition.limit))]
    switch (definition.paging, definition.ordering) {
    case (.standard, _):
      parameters.append(("offset", String(record.count)))
    case (.realtime, .descending):
      if let last = record.lastPagingId { parameters.append(("max_id", last)) }
    case (.realtime, _):
      if let last = record.lastPagingId { parameters.append(("since_id", last)) }
    }
    switch definition.ordering {
    case .ascending: parameters.append(("order", "asc"))
    case .descending: parameters.append(("order", "desc"))
    case .none: break
    }
    for (key, value) in definition.options.sorted(by: { $0.key < $1.key }) {
      parameters.append((key, value))
    }
    return parameters
  }

  /// Fetches the next page; nil when a fetch of this repository is already in flight.
  ///
  /// A failure is recorded (state Error, elements kept) and thrown.
  public func fetch() throws -> FetchResult? {
    guard store.begin(name) else { return nil }
    defer { store.end(name) }
    return try fetchClaimed()
  }

  /// Fetches the next page for a caller that has already marked this repository's fetch in
  /// flight (`RepositoryStore.begin`), and that ends the mark when this returns.
  ///
  /// A failure is recorded (state Error, elements kept) and thrown.
  public func fetchClaimed() throws -> FetchResult {
    let record = try store.record(name)
    let parameters = Self.parameters(for: record)
    let path = record.definition.path
    return try tracer.withSpan(
      "Repository", "fetch \(name)", attributes: [("parameters", Self.text(parameters))]
    ) { span in
      do {
        let outcome = authorization.performAndWait(
          "GET \(path)", isCancelled: isCancelled,
          makeTask: OAuth2Authorization.request(
            sessionManager, method: .get, path: path, parameters: parameters))
        let data = try outcome.get().result.get()
        let page = try modelFactory.collectionParser(data)
        var models: [(object: ModelObject, json: String)] = []
        models.reserveCapacity(page.elements.count)
        for (index, element) in page.elements.enumerated() {
          guard let model = element as? ModelObject else {
            throw ModelError.wrongKind(path: "data[\(index)]", expected: "a model object")
          }
          models.append((model, serializer.string(page.items[index])))
        }
        let added = try tracer.withSpan("RepositoryStore", "append") { storeSpan in
          let added = try store.append(name, elements: models, total: page.total)
          storeSpan.setAttribute("added", String(added))
          return added
        }
        span.setAttribute("added", String(added))
        var after = try store.record(name)
        after.fetchState = .fetched
        return FetchResult(
          parameters: parameters.map { QueryParameter(key: $0.key, value: $0.value) },
          received: models.count,
          added: added, record: after)
      } catch {
        // A cancelled fetch is no failure of the repository: its state stays what it was, and
        // the error says what was kept, not what the cancelled request happened to be doing.
        if isCancelled() {
          throw RepositoryError.cancelled(name, elements: record.count)
        }
        try? store.fail(name, error: String(describing: error))
        throw error
      }
    }
  }

  private static func text(_ parameters: [(key: String, value: String)]) -> String {
    parameters.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
  }
}
