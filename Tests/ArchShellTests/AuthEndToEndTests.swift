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
    #expect(first.stdout.hasPrefix("email:         ada@example.com\nuser:          User "))
    let stored = try credential(in: db)
    #expect(stored.access.count == 64)
    let second = try Binary.run(["--db", db, "-c", "auth show"])
    let lines = second.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 6, "\(second.stdout)")
    #expect(lines.first == "email:         ada@example.com")
    #expect(
      lines.count > 1 && lines[1].hasPrefix("user:          User ") && lines[1].contains("(Ada"))
    #expect(
      lines.dropFirst(2).joined(separator: "\n")
        == "access_token:  …\(stored.access.suffix(4))\nrefresh_token: …\(stored.refresh.suffix(4))\nstored_in:     the workspace's 'user' store (a keychain on iOS)\n"
    )
    // A new process: login, expire and refresh.
    let third = try Binary.run(
      [
        "--db", db, "-c", "auth login ada@example.com --password-stdin", "-c", "auth expire",
        "-c", "auth refresh",
      ], input: "lovelace\n")
    #expect(third.status == 0, "\(third.stderr)")
    // The first session's token is still live (the API kept it), and the new login's.
    #expect(third.stdout.contains("expired 2 access tokens; the next protected request gets 401\n"))
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
    // A later session is still logged in: the embedded API kept its tokens in the workspace.
    let later = try Binary.run(["--db", db, "-c", "user me"])
    #expect(later.status == 0, "\(later.stderr)")
    #expect(
      later.stdout.range(
        of: "\nemail +email +Default +yes +ada@example.com\n", options: .regularExpression)
        != nil, "\(later.stdout)")
    let out = try Binary.run(["--db", db, "-c", "auth logout", "-c", "auth show"])
    #expect(out.stdout == "logged out\nlogged_in: no\n")
  }

  @Test("no token appears whole in the output, the JSON output or a trace")
  func tokensStayRedacted() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let db = directory + "/work.sqlite"
    let result = try Binary.run([
      "--db", db, "--json", "-c", "set pw lovelace --secret", "-c", "trace on",
      "-c", "auth login ada@example.com $pw", "-c", "auth show", "-c", "user me --cached",
      "-c", "trace show", "-c", "vars",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    // The credential the login stored is the one the output must never show whole.
    #expect(
      result.stdout.contains(
        #""component":"OAuth2SessionManager","operation":"tokenGrant","attributes":{"username":"ada@example.com""#
      ))
    let stored = try credential(in: db)
    for secret in [stored.access, stored.refresh, "lovelace"] {
      #expect(!result.stdout.contains(secret))
      #expect(!result.stderr.contains(secret))
    }
    // The password's word is redacted in the traced line; the rest of it stays.
    #expect(
      result.stdout.contains(
        #""component":"archsh","operation":"auth login ada@example.com <redacted>""#))
  }

  @Test(
    "across login, refresh and replay, a burst and session requests, no token or password appears in the output, the JSON, the traces or the kept log"
  )
  func noSecretAnywhere() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let db = directory + "/work.sqlite"
    let result = try Binary.run([
      "--db", db, "--json", "-c", "set pw lovelace --secret", "-c", "trace on",
      "-c", "auth login ada@example.com $pw", "-c", "user me", "-c", "auth expire",
      "-c", "user me", "-c", "auth expire", "-c", "auth burst 5 /users/me",
      "-c", "session request GET /users/me --auth --json",
      "-c", "trace show", "-c", "trace export", "-c", "log level API Verbose",
      "-c", "log show --limit 1000", "-c", "store retrieve user oauth2Credential", "-c",
      "auth show",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let stored = try credential(in: db)
    #expect(stored.access.count == 64)
    // Every token the API granted (the login's, each refresh's) is 64 hexadecimal digits: none
    // may appear anywhere, nor may the password.
    let log = try sqlite(db, "SELECT message FROM log_lines ORDER BY id")
    #expect(log.contains("[REQUEST] GET http://127.0.0.1:"))
    #expect(log.contains("Authorization: Bearer …\(stored.access.suffix(4))"))
    for text in [result.stdout, result.stderr, log] {
      #expect(text.range(of: "[0-9a-f]{64}", options: .regularExpression) == nil)
      #expect(!text.contains("lovelace"))
    }
    #expect(result.stdout.contains(#""component":"OAuth2Authorization","operation":"refresh""#))
    // The burst's Mermaid export names every object on the path.
    for participant in [
      "auth", "UserAPI", "OAuth2Authorization", "APISessionManager", "OAuth2SessionManager",
    ] {
      #expect(result.stdout.contains("participant \(participant)\\n"), "\(participant)")
    }
    // 'store retrieve' in JSON: the value is a JSON string, so its quotes are escaped.
    #expect(result.stdout.contains(#"accessToken\":\"…"# + stored.access.suffix(4)))
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
    let unknown = try Binary.run(["--db", ":memory:", "-c", "auth login nobody@example.com pw"])
    #expect(
      unknown.stderr
        == "-c:1:12: error: the token request was refused (HTTP 400, InvalidCredentials: wrong email or password) (the demo account is ada@example.com with the password lovelace)\n"
    )
    // A token response that is not JSON: one line, and the stored credential is untouched.
    let malformed = try Binary.run([
      "--db", ":memory:", "--keep-going", "-c", "auth login ada@example.com lovelace", "-c",
      "net fault POST /oauth/token --malformed", "-c", "auth refresh", "-c", "auth show",
    ])
    #expect(
      malformed.stderr
        == "-c#3:1:1: error: the token request failed: cannot decode the response: the body is not valid JSON (the credential is kept: run the command again, or log in again with 'auth login EMAIL')\n"
    )
    let tokens = malformed.stdout.split(separator: "\n").filter {
      $0.hasPrefix("access_token:") || $0.hasPrefix("refresh_token:")
    }
    // The login's tokens, then the same ones from 'auth show'.
    #expect(tokens.count == 4)
    #expect(tokens.count == 4 && tokens[0] == tokens[2] && tokens[1] == tokens[3])
    let external = try Binary.run([
      "--db", ":memory:", "--api", "http://127.0.0.1:9", "-c", "auth expire",
    ])
    #expect(external.status == 1)
    #expect(external.stderr.hasPrefix("-c:1:1: error: "))
  }

  @Test(
    "user me goes through OAuth2Authorization: after expiry it refreshes and replays; a failed refresh is one line and keeps the credential"
  )
  func userMe() throws {
    let result = try Binary.run([
      "--db", ":memory:", "--keep-going", "-c", "user me", "-c",
      "auth login ada@example.com lovelace", "-c", "user me", "-c", "auth expire", "-c",
      "trace on", "-c", "user me", "-c", "trace off", "-c",
      "net fault POST /oauth/token --status 500", "-c", "auth expire", "-c", "user me", "-c",
      "output json", "-c", "user me",
    ])
    #expect(result.status == 1)
    #expect(
      result.stderr == """
        -c#1:1:1: error: nobody is logged in, so there is no bearer token to send (log in with 'auth login EMAIL')
        -c#10:1:1: error: the token request was refused (HTTP 500, InternalError: injected fault: HTTP 500 for /oauth/token) (the credential is kept: run the command again, or log in again with 'auth login EMAIL')

        """)
    #expect(
      result.stdout.contains(
        "type:      User\nkind:      model object\nuuid:      6955b900-0000-4000-8000-000000000000\n"
      ))
    // The mapped fields' table, whatever its column widths and the order of its rows.
    for row in [
      "email +email +Default +yes +ada@example.com", "firstName +first_name +Default +yes +Ada",
    ] {
      #expect(
        result.stdout.range(of: "\n\(row)\n", options: .regularExpression) != nil,
        "\(result.stdout)")
    }
    // The traced 'user me' shows the whole path: 401, the queue, one refresh, the replay.
    let trace = result.stdout.components(separatedBy: "archsh user me").dropFirst().first ?? ""
    for step in [
      "APIServiceClient GET /users/me (type: User)", "OAuth2Authorization authorize GET /users/me",
      "~ 401: queued, refresh started", "ModelFactory map (type: User)",
      "status: 401, connection: ", "OAuth2Authorization refresh (queued: 1)",
      "OAuth2SessionManager refreshToken (status: 200)", "APISessionManager POST /oauth/token",
      "status: 200, connection: ",
    ] {
      #expect(trace.contains(step), "the trace lacks \(step)")
    }
    // After the failed refresh the credential was kept, so the last 'user me' refreshes again.
    let last = try #require(result.stdout.split(separator: "\n").last)
    let object = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
    let fields = object?["fields"] as? [String: Any]
    #expect(object?["type"] as? String == "User")
    #expect(fields?["email"] as? String == "ada@example.com")
    #expect(fields?["firstName"] as? String == "Ada")
  }

  @Test(
    "auth login is a token grant, then me(): the User is kept; auth show and user me --cached read it without a request, in a later session too; logout forgets it"
  )
  func loginKeepsUser() throws {
    let directory = try Binary.makeTemporaryDirectory()
    let db = directory + "/work.sqlite"
    let login = try Binary.run(
      ["--db", db, "-c", "auth login ada@example.com --password-stdin"], input: "lovelace\n")
    #expect(login.status == 0, "\(login.stderr)")
    let userLine = try #require(login.stdout.split(separator: "\n").dropFirst().first)
    #expect(userLine.hasPrefix("user:          User ") && userLine.contains(" (Ada"), "\(userLine)")
    // The user is stored as the JSON object the API sent under data.
    let stored = try sqlite(
      db, "SELECT CAST(value AS TEXT) FROM entry WHERE store = 'user' AND key = 'accountUser'")
    let object = try JSONSerialization.jsonObject(with: Data(stored.utf8)) as? [String: Any]
    #expect(object?["type"] as? String == "User")
    #expect(object?["email"] as? String == "ada@example.com")
    #expect(object?["first_name"] as? String == "Ada")

    // A later session: /users/me would fail, but nothing asks it.
    let later = try Binary.run([
      "--db", db, "-c", "net fault GET /users/me --status 500", "-c", "auth show", "-c",
      "user me --cached", "-c", "output json", "-c", "net faults", "-c", "user me --cached",
    ])
    #expect(later.status == 0, "\(later.stderr)")
    #expect(later.stdout.contains("email:         ada@example.com\n\(userLine)\naccess_token:  …"))
    #expect(later.stdout.contains("type:      User\nkind:      model object\n"))
    // The mapped fields' table, whatever its column widths.
    #expect(
      later.stdout.range(
        of: "\nemail +email +Default +yes +ada@example.com\n", options: .regularExpression)
        != nil, "\(later.stdout)")
    #expect(
      later.stdout.contains(
        #"[{"method":"GET","path":"/users/me","fault":"status 500","remaining":1,"hits":0}]"#),
      "\(later.stdout)")
    let last = try #require(later.stdout.split(separator: "\n").last)
    let cached = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
    #expect(cached?["type"] as? String == "User")
    #expect((cached?["fields"] as? [String: Any])?["email"] as? String == "ada@example.com")

    // Logged out, the credential and the user are gone.
    let out = try Binary.run([
      "--db", db, "--keep-going", "-c", "auth logout", "-c", "auth show", "-c", "user me --cached",
    ])
    #expect(out.stdout == "logged out\nlogged_in: no\n")
    #expect(
      out.stderr
        == "-c#3:1:1: error: nobody is logged in, so no user is stored (log in with 'auth login EMAIL')\n"
    )
    #expect(try sqlite(db, "SELECT count(*) FROM entry WHERE store = 'user'") == "0\n")
  }

  @Test(
    "when me() fails after the grant, auth login says the credential is kept and the user was not fetched; user me fetches and stores it"
  )
  func meFailsAfterGrant() throws {
    let result = try Binary.run([
      "--db", ":memory:", "--keep-going", "-c", "net fault GET /users/me --status 500", "-c",
      "auth login ada@example.com lovelace", "-c", "auth show", "-c", "user me --cached", "-c",
      "user me", "-c", "auth show",
    ])
    #expect(result.status == 1)
    #expect(
      result.stderr == """
        -c#2:1:12: error: logged in as 'ada@example.com' and the credential is kept, but the user could not be fetched: HTTP 500 InternalError: injected fault: HTTP 500 for /users/me ('user me' fetches the user again; 'auth show' shows the stored login)
        -c#4:1:1: error: no user is stored with the credential ('user me' fetches the user and stores it)

        """)
    let shows = result.stdout.components(separatedBy: "email:         ada@example.com\n")
      .dropFirst()
    #expect(shows.count == 2, "\(result.stdout)")
    #expect(
      shows.first?.hasPrefix("user:          none stored ('user me' fetches it and stores it)\n")
        == true)
    #expect(shows.last?.hasPrefix("user:          User ") == true, "\(result.stdout)")
  }

  @Test("'help app' and 'help auth' say that their two sessions are kept apart")
  func sessionsExplained() throws {
    for group in ["app", "auth"] {
      let help = try Binary.run(["--no-rc", "--db", ":memory:", "-c", "help \(group)"])
      let text = help.stdout.replacingOccurrences(of: "\n", with: " ")
      #expect(text.contains("'app login EMAIL'"), "\(group)")
      #expect(text.contains("'auth login'"), "\(group)")
    }
  }

  /// The stored credential, read with sqlite3 from the workspace file.
  private func credential(in db: String) throws -> (access: String, refresh: String) {
    let text = try sqlite(
      db, "SELECT CAST(value AS TEXT) FROM entry WHERE store = 'user' AND key = 'oauth2Credential'")
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
    return (object?["accessToken"] ?? "", object?["refreshToken"] ?? "")
  }

  /// What sqlite3 prints for `query` on the workspace at `db`.
  private func sqlite(_ db: String, _ query: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sqlite3", db, query]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }
}
