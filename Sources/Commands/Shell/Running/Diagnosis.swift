import Domain
import Runtime

/// How a Domain error reaches the user: one line with the shell's hint, at the column of the word
/// that gave the input it concerns.
///
/// Domain errors say what went wrong and which input it concerns; the hints that name commands
/// are the shell's, and each group declares those for its controller's errors (`hints:`). This
/// is only the mechanism: it asks the groups, and places the error at its word.
enum Diagnosis {
  /// The error as a shell error with its hint, not yet located; `command` is what the user ran,
  /// for the errors that name it (Domain names the operation instead).
  static func shellError(_ error: Error, command: String? = nil) -> ShellError {
    if let error = error as? ShellError { return error }
    var message = String(describing: error)
    if case WorkspaceError.readOnly(let path, _) = error, let command {
      message =
        "the workspace '\(path)' is read-only, so '\(command)' cannot write; reads still work"
    }
    return ShellError(message, hint: hint(for: error))
  }

  /// The error as a shell error at the word of `parsed` that gave its subject; unlocated when
  /// no word did.
  static func shellError(_ error: Error, in parsed: ParsedCommand) -> ShellError {
    if let error = error as? ShellError { return error }
    var located = shellError(error, command: parsed.resolution.name)
    switch error {
    case APIError.notEmbedded(let url):
      located.message =
        "'\(parsed.resolution.name)' needs the embedded demo API, and archsh is using \(url)"
    case OAuth2Error.network where parsed.resolution.name == "auth login",
      OAuth2Error.refused(_, _, _, nil) where parsed.resolution.name == "auth login":
      // A first login has no credential to keep. (Each pattern needs its own where clause: a
      // where clause after the last pattern applies to that pattern alone.)
      located.hint = "is the API running? nothing was stored; 'auth show' shows any stored login"
    default: break
    }
    if let subject = (error as? SubjectError)?.subject {
      located.offset = parsed.arguments.offset(of: subject)
    }
    return located
  }

  /// Whether `error` is an HTTP 401 that an API answered, however a controller wrapped it.
  static func isUnauthorized(_ error: Error) -> Bool {
    switch error {
    case NetworkError.http(401, _, _), UserAPIError.network(.http(401, _, _)),
      OAuth2Error.network(.http(401, _, _)):
      return true
    default: return false
    }
  }

  /// The hint for a 401, from what the session knew when it came: nobody logged in, a request
  /// replayed with a freshly refreshed token (`refreshed`), or a token that may have expired.
  static func unauthorizedHint(loggedIn: Bool, refreshed: Bool) -> String {
    if !loggedIn {
      return
        "nobody is logged in, so the request went without a bearer token: log in with 'auth login EMAIL'"
    }
    if refreshed {
      return
        "the token was refreshed during this command and the replay still got 401: the API refuses this token for the path, which no refresh fixes; 'auth login' as someone allowed, or check the path"
    }
    return "the access token expired or is unknown to this API: 'auth refresh', or 'auth login'"
  }

  /// The shell's hint for a Domain error, or nil: the first group that declares one for it.
  static func hint(for error: Error) -> String? {
    for group in AllGroups.registry.groups {
      if let hint = group.hints(error) { return hint }
    }
    return nil
  }
}
