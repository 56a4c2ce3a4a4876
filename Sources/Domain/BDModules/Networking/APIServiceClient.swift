import Foundation

/// Performs a request and maps its `data{}` into a model, after BDModules'
/// `APIServiceClient<T>`: through OAuth2Authorization, with the bearer header when logged in,
/// and ModelFactory's object parser.
///
/// archsh's models are dictionary-backed, as the seed's are, so the `T` of the seed is the API
/// type the client expects, such as `User`.
public final class APIServiceClient {
  /// The API type the client expects.
  public let type: String
  private let sessionManager: APISessionManager
  private let authorization: OAuth2Authorization
  private let modelFactory: ModelFactory
  private let tracer: Tracer
  private let isCancelled: @Sendable () -> Bool

  /// Creates a client for `type`.
  public init(
    type: String, sessionManager: APISessionManager, authorization: OAuth2Authorization,
    modelFactory: ModelFactory, tracer: Tracer,
    isCancelled: @escaping @Sendable () -> Bool = { false }
  ) {
    self.type = type
    self.sessionManager = sessionManager
    self.authorization = authorization
    self.modelFactory = modelFactory
    self.tracer = tracer
    self.isCancelled = isCancelled
  }

  /// Sends the request and maps the object under `data`, which must be of the client's type.
  ///
  /// Throws the refresh's `OAuth2Error`, the request's `NetworkError`, or a `ModelError`.
  public func performRequest(
    method: APISessionManager.Method, path: String,
    parameters: [(key: String, value: String)] = [], files: [any MultipartFile] = []
  ) throws -> MappedObject {
    return try tracer.withSpan(
      "APIServiceClient", "\(method.rawValue) \(path)", attributes: [("type", type)]
    ) { _ in
      let outcome = authorization.performAndWait(
        "\(method.rawValue) \(path)", isCancelled: isCancelled,
        makeTask: OAuth2Authorization.request(
          sessionManager, method: method, path: path, parameters: parameters, files: files))
      let data = try outcome.get().result.get()
      let mapped = try modelFactory.objectParser(data)
      guard mapped.object.type == type else {
        throw ModelError.typeMismatch(expected: type, found: mapped.object.type, path: "data")
      }
      return mapped
    }
  }
}
