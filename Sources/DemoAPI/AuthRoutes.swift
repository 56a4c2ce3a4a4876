import Foundation
import Plumbing

extension DemoAPI {
  /// `POST /oauth/token`.
  ///
  /// The token endpoint takes its fields as a JSON object, which is how BDModules'
  /// `OAuth2SessionManager` sends them (its `APISessionManager` serializes requests as JSON), or as
  /// a form, as RFC 6749 has it. It answers as the original's `login_stub.json`: `access_token`
  /// and `refresh_token` at the top level, beside `"code":"OK"`. A body over 64 KiB is answered 413.
  static func token(_ request: ServerRequest, accounts: Accounts) -> ServerResponse {
    guard request.body.count <= 64 * 1024 else {
      return ServerResponse(
        status: 413, contentType: "text/plain; charset=utf-8",
        "the body is larger than \(64 * 1024) bytes\n")
    }
    let fields = formFields(
      String(decoding: request.body, as: UTF8.self),
      contentType: request.header("content-type") ?? "")
    let client = (fields["client_id"] ?? "", fields["client_secret"] ?? "")
    let result: Result<Accounts.Grant, Accounts.Refusal>
    switch fields["grant_type"] {
    case "password":
      result = accounts.grant(
        username: fields["username"] ?? "", password: fields["password"] ?? "",
        clientID: client.0, clientSecret: client.1)
    case "refresh_token":
      result = accounts.refresh(
        token: fields["refresh_token"] ?? "", clientID: client.0, clientSecret: client.1)
    case let other:
      return json(
        400,
        Envelope.error(
          "UnsupportedGrantType",
          "grant_type must be password or refresh_token, not \(other ?? "nothing")"))
    }
    switch result {
    case .success(let grant):
      return json(200, Envelope.grant(grant))
    case .failure(let refusal):
      return json(refusal.status, Envelope.error(refusal.code, refusal.message))
    }
  }

  /// The protected `GET /users/me`.
  static func me(_ request: ServerRequest, accounts: Accounts) -> ServerResponse {
    guard let account = bearer(request).flatMap(accounts.account(forAccessToken:)) else {
      return json(
        401, Envelope.error("Unauthorized", "a valid bearer token is required for /users/me"))
    }
    return json(200, Envelope.ok(Envelope.user(account)))
  }

  /// The bearer token of an `Authorization` header.
  static func bearer(_ request: ServerRequest) -> String? {
    guard let value = request.header("authorization") else { return nil }
    let parts = value.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    return String(parts[1])
  }

  /// The fields of a JSON object body (the string members; a JSON content type says which) or of
  /// a form-encoded body.
  static func formFields(_ body: String, contentType: String) -> [String: String] {
    if contentType.lowercased().hasPrefix("application/json") {
      let object = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
      return (object ?? [:]).compactMapValues { $0 as? String }
    }
    var fields: [String: String] = [:]
    for pair in body.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      func decode(_ text: Substring) -> String {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
          ?? String(text)
      }
      fields[decode(parts[0])] = parts.count == 2 ? decode(parts[1]) : ""
    }
    return fields
  }
}

extension Envelope {
  /// A token response, as BDModules' login expects it: the tokens beside `"code":"OK"`.
  static func grant(_ grant: Accounts.Grant) -> String {
    """
    {"access_token":\(quote(grant.accessToken)),"refresh_token":\(quote(grant.refreshToken)),\
    "token_type":"bearer","expires_in":\(grant.expiresIn),"code":"OK"}
    """
  }

  /// An account's first and last names, from its email: `ada.lovelace@…` gives Ada Lovelace;
  /// the demo account is Ada Lovelace.
  static func names(_ account: Accounts.Account) -> (first: String, last: String) {
    if account.email == Accounts.demoEmail { return ("Ada", "Lovelace") }
    let local = account.email.split(separator: "@").first.map(String.init) ?? account.email
    let parts = local.split(whereSeparator: { ".-_".contains($0) }).map {
      $0.prefix(1).uppercased() + $0.dropFirst()
    }
    return (parts.first ?? local, parts.dropFirst().joined(separator: " "))
  }

  /// A user in the shape of the original example app's `User` (its `me_stub.json`): the fields
  /// of `UserAPIMapper`, `null` for the optional ones it lacks.
  static func user(_ account: Accounts.Account) -> String {
    let (first, last) = names(account)
    let slug = account.email.split(separator: "@").first.map(String.init) ?? "user"
    return """
      {"type":"User","id":\(quote(account.id)),"first_name":\(quote(first)),\
      "last_name":\(quote(last)),"email":\(quote(account.email)),"phone_number":null,\
      "cover_image_url":\(quote("https://example.com/users/\(slug)/cover.png")),\
      "profile_image_url":\(quote("https://example.com/users/\(slug)/profile.png"))}
      """
  }
}
