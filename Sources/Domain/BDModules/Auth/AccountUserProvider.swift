import Foundation
import Plumbing
import Synchronization

/// The logged-in account: its email, its OAuth2 credential and its `User`, kept in the
/// workspace's `user` store (BDModules' `AccountUserProvider`, which keeps its `AccountUser`, the
/// user and the credential, in the keychain on iOS).
///
/// The user is kept as the JSON object the API sent under `data`, as the seed's `User` codes its
/// dictionary, and is mapped again by ModelFactory when it is read, as the seed's provider does
/// with `modelFactory.object(savedAccountUser.user!.dictionary)`. As in the seed, a stored user
/// without a credential is not a login: it is forgotten when read.
public final class AccountUserProvider: OAuth2SessionManagerDelegate {
  private let store: PersistenceController
  private let decoder: JSONDecoder
  private let encoder: JSONEncoder
  private let modelFactory: ModelFactory
  private let serializer: JSONSerializer
  /// The credential decoded last, with the bytes it was decoded from: a request reads the stored
  /// credential every time, and its bytes change only when a grant or a refresh stores another.
  private let lastDecoded = Mutex<(data: Data, credential: OAuth2Credential)?>(nil)
  static let credentialKey = "oauth2Credential"
  static let emailKey = "oauth2Email"
  static let userKey = "accountUser"

  /// Creates the provider over the `user` store, coding the credential as JSON, writing the
  /// user with `serializer` and mapping it again with `modelFactory`.
  public init(
    store: PersistenceController, decoder: JSONDecoder, encoder: JSONEncoder,
    serializer: JSONSerializer, modelFactory: ModelFactory
  ) {
    self.store = store
    self.decoder = decoder
    self.encoder = encoder
    self.serializer = serializer
    self.modelFactory = modelFactory
  }

  /// The stored credential, or nil when logged out.
  public func credential() throws -> OAuth2Credential? {
    guard let data = try? store.retrieve(forKey: Self.credentialKey) else { return nil }
    if let last = lastDecoded.withLock({ $0 }), last.data == data { return last.credential }
    guard let credential = try? decoder.decode(OAuth2Credential.self, from: data) else {
      return nil
    }
    lastDecoded.withLock { $0 = (data, credential) }
    return credential
  }

  /// The logged-in email, or nil.
  public func email() throws -> String? {
    guard let data = try? store.retrieve(forKey: Self.emailKey) else { return nil }
    return String(decoding: data, as: UTF8.self)
  }

  /// The stored user, mapped again from the JSON the API sent; nil when none is stored, or when
  /// nobody is logged in (a user left without a credential is then removed, as in the seed).
  ///
  /// Throws a `ModelError` when the stored JSON no longer maps into a `User`.
  public func user() throws -> MappedObject? {
    guard let data = try? store.retrieve(forKey: Self.userKey) else { return nil }
    guard try credential() != nil else {
      try store.remove(forKeys: [Self.userKey])
      return nil
    }
    guard let json = try? StrictJSON.parse(data) else { throw ModelError.notAnObject(path: "user") }
    return try modelFactory.object(from: json, expected: "User", at: "user")
  }

  /// Records whose credential it keeps, after a password grant; a user stored for an earlier
  /// login is forgotten, since it may be another account's.
  public func logIn(email: String) throws {
    try store.persist(Data(email.utf8), forKey: Self.emailKey)
    try removeUser()
  }

  /// The seed's `userPersistenceHandler()`: what `UserAPI.me` calls with the user it fetched,
  /// which keeps it beside the credential.
  public func userPersistenceHandler() -> (MappedObject) throws -> Void {
    { [self] user in
      try store.persist(Data(serializer.string(user.json).utf8), forKey: Self.userKey)
    }
  }

  /// A grant or a refresh produced a credential: it replaces the stored one.
  public func didUpdateCredential(_ credential: OAuth2Credential) {
    try? save(credential)
  }

  /// Forgets the account: its credential, its email and its user.
  public func logOut() throws {
    for key in [Self.credentialKey, Self.emailKey] {
      if (try? store.retrieve(forKey: key)) != nil { try store.remove(forKeys: [key]) }
    }
    try removeUser()
  }

  private func removeUser() throws {
    if (try? store.retrieve(forKey: Self.userKey)) != nil {
      try store.remove(forKeys: [Self.userKey])
    }
  }

  private func save(_ credential: OAuth2Credential) throws {
    try store.persist(try encoder.encode(credential), forKey: Self.credentialKey)
  }
}
