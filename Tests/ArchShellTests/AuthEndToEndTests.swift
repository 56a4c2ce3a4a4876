import Foundation
import Testing

@Suite("auth through the binary, against the embedded API over real HTTP")
struct AuthEndToEndTests {
  @Test("login keeps the credential in the workspace for the next session; refresh replaces it")
  func loginPersists() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let db = directory + "/work.sqlite"
    let first = try Binary.run(
      ["--db", db, "-c", "auth login ada@example.com --password-stdin"], input: "lovelace\n")
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.stdout.hasPrefix("email:         ada@example.com\naccess_token:  …"))
    let stored = try credential(in: db)
    #expect(stored.access.count == 64)
    let second = try Binary.run(["--db", db, "-c", "auth show"])
    #expect(
      second.stdout
        == "email:         ada@example.com\naccess_token:  …\(stored.access.suffix(4))\nrefresh_token: …\(stored.refresh.suffix(4))\nstored_in:     the workspace's 'user' store (a keychain on iOS)\n"
    )
    // The embedded API lives as long as its process: expire and refresh within one.
    let third = try Binary.run(
      [
        "--db", db, "-c", "auth login ada@example.com --password-stdin", "-c", "auth expire",
        "-c", "auth refresh",
      ], input: "lovelace\n")
    #expect(third.status == 0, "\(third.stderr)")
    #expect(third.stdout.contains("expired 1 access token; the next protected request gets 401\n"))
    let refreshed = try credential(in: db)
    #expect(refreshed.access != stored.access && refreshed.refresh != stored.refresh)
    for secret in [stored.access, stored.refresh, refreshed.access, refreshed.refresh] {
      #expect(!third.stdout.contains(secret) && !third.stderr.contains(secret))
    }
    #expect(
      third.stdout.hasSuffix(
        "access_token:  …\(refreshed.access.suffix(4))\nrefresh_token: …\(refreshed.refresh.suffix(4))\nstored_in:     the workspace's 'user' store (a keychain on iOS)\n"
      ))
    let attributes = try FileManager.default.attributesOfItem(atPath: db)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    let out = try Binary.run(["--db", db, "-c", "auth logout", "-c", "auth show"])
    #expect(out.stdout == "logged out\nlogged_in: no\n")
  }

  @Test("no token appears whole in the output, the JSON output or a trace")
  func tokensStayRedacted() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let db = directory + "/work.sqlite"
    let result = try Binary.run([
      "--db", db, "--json", "-c", "set pw lovelace --secret", "-c", "trace on",
      "-c", "auth login ada@example.com $pw", "-c", "auth show", "-c", "trace show",
      "-c", "vars",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    // The credential the login stored is the one the output must never show whole.
    #expect(result.stdout.contains("OAuth2SessionManager tokenGrant (username: ada@example.com"))
    let stored = try credential(in: db)
    for secret in [stored.access, stored.refresh, "lovelace"] {
      #expect(!result.stdout.contains(secret))
      #expect(!result.stderr.contains(secret))
    }
    #expect(result.stdout.contains("auth login <redacted>"))
  }

  @Test("mistakes are one located line each, and nothing is stored")
  func mistakes() throws {
    let wrong = try Binary.run(["--db", ":memory:", "-c", "auth login ada@example.com wrong"])
    #expect(wrong.status == 1)
    #expect(
      wrong.stderr
        == "-c:1:12: error: the token request was refused (HTTP 400, InvalidCredentials: wrong email or password) (the demo account is ada@example.com with the password lovelace)\n"
    )
    let none = try Binary.run(["--db", ":memory:", "-c", "auth refresh"])
    #expect(
      none.stderr
        == "-c:1:1: error: nobody is logged in, so there is no refresh token (log in with 'auth login EMAIL')\n"
    )
    let noPassword = try Binary.run(["--db", ":memory:", "-c", "auth login ada@example.com"])
    #expect(
      noPassword.stderr
        == "-c:1:12: error: 'auth login' needs a password (give a variable set with --secret, or --password-stdin)\n"
    )
    let external = try Binary.run([
      "--db", ":memory:", "--api", "http://127.0.0.1:9", "-c", "auth expire",
    ])
    #expect(external.status == 1)
    #expect(external.stderr.hasPrefix("-c:1:1: error: "))
  }

  @Test("user me sends the bearer token: the user after login, 401 after expiry until a refresh")
  func userMe() throws {
    let result = try Binary.run([
      "--db", ":memory:", "--keep-going", "-c", "user me", "-c",
      "auth login ada@example.com lovelace", "-c", "user me", "-c", "auth expire", "-c", "user me",
      "-c", "auth refresh", "-c", "output json", "-c", "user me",
    ])
    #expect(result.status == 1)
    #expect(
      result.stderr == """
        -c:1:1: error: nobody is logged in, so there is no bearer token to send (log in with 'auth login EMAIL')
        -c:1:1: error: HTTP 401 Unauthorized: a valid bearer token is required for /users/me (the access token expired or is unknown to this API: 'auth refresh', or 'auth login')

        """)
    #expect(result.stdout.contains("type:         user\nid:           "))
    #expect(
      result.stdout.contains("email:        ada@example.com\nfirst_name:   Ada\nlast_name:    -\n"))
    let last = try #require(result.stdout.split(separator: "\n").last)
    let object = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
    #expect(object?["email"] as? String == "ada@example.com")
    #expect(object?["last_name"] is NSNull)
  }

  /// The stored credential, read with sqlite3 from the workspace file.
  private func credential(in db: String) throws -> (access: String, refresh: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "sqlite3", db,
      "SELECT CAST(value AS TEXT) FROM entry WHERE store = 'user' AND key = 'oauth2Credential'",
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let object = try JSONSerialization.jsonObject(with: data) as? [String: String]
    return (object?["accessToken"] ?? "", object?["refreshToken"] ?? "")
  }
}
