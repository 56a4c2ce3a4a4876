import Domain

/// How a Domain error reaches the user: one line with the shell's hint, at the column of the word
/// that gave the input it concerns.
///
/// Domain errors say what went wrong and which input it concerns; the hints that name commands
/// are the shell's, and live here, in one place for every group.
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

  /// The shell's hint for a Domain error, or nil.
  static func hint(for error: Error) -> String? {
    switch error {
    case let error as NavigationError: return hint(for: error)
    case let error as DataSourceError:
      switch error {
      case .unknown(_, let suggestion):
        return suggestion.map { "did you mean '\($0)'?" } ?? "see 'ds list'"
      case .emptyStateNotShown(let name, _):
        return "the empty state shows only while there are no rows; 'ds render \(name)' shows them"
      case .noEmptyStateButton:
        return "give it one with 'ds empty-state NAME MESSAGE --button TITLE --action ACTION'"
      default:
        return nil
      }
    case WorkspaceError.readOnly:
      return "make the file writable, or choose another workspace with --db"
    case WorkspaceError.busy:
      return "run it again when the other process is done, or use another workspace with --db"
    case PersistenceController.Error.unknownStore(_, nil):
      return "'store stores' lists them"
    case PersistenceController.Error.builtInStore(let store):
      return "'store trim \(store) --to-bytes 0' removes its entries"
    case PersistenceController.Error.objectFailedToPersist(let store, _):
      return "raise it with 'store limits \(store) --bytes N'"
    case let error as APIError:
      switch error {
      case .invalidBaseURL: return "for example --api http://127.0.0.1:8080"
      case .notEmbedded: return "start archsh without --api and ARCHSH_API"
      case .cannotStart, .invalidPath: return nil
      }
    case let error as OAuth2Error:
      switch error {
      case .notLoggedIn: return "log in with 'auth login EMAIL'"
      case .refused(_, "InvalidCredentials", _, _):
        return "the demo account is ada@example.com with the password lovelace"
      case .refused(_, "InvalidRefreshToken", _, nil):
        return "the API no longer knows the refresh token: log in again with 'auth login EMAIL'"
      case .refused(_, _, _, nil), .network:
        return
          "the credential is kept: run the command again, or log in again with 'auth login EMAIL'"
      case .refused: return nil
      }
    case UserAPIError.notLoggedIn:
      return "log in with 'auth login EMAIL'"
    case UserAPIError.userNotFetched:
      return "'user me' fetches the user again; 'auth show' shows the stored login"
    case UserAPIError.network(.http(401, _, _)):
      return "the access token expired or is unknown to this API: 'auth refresh', or 'auth login'"
    case UserAPIError.authorization(let error):
      return hint(for: error)
    case APISessionError.filesNeedBody:
      return "send files with POST, PUT or PATCH"
    case RepositoryError.unknown(_, nil):
      return "'repo list' lists them; 'repo new NAME PATH' defines one"
    case let error as ParserError:
      if case .invalidInput = error { return #"for example '{"name": "Tetris"}'"# }
      return "give the path to an acknowledgements .plist"
    case let error as ProductCatalogError:
      switch error {
      case .notAProductName(_, .fetch): return "for example 'product update 42'"
      case .notAProductName(_, .read): return "for example 'product show 42'"
      case .notCached(let text): return "fetch it with 'product update \(text)'"
      case .invalidURL: return nil
      }
    default: return nil
    }
  }

  /// The shell's hint for a navigation error.
  static func hint(for error: NavigationError) -> String? {
    switch error {
    case .notRunning: return "start it with 'app start'"
    case .alreadyRunning:
      return "'app relaunch' launches it again from the saved state; 'app reset' clears it"
    case .unknownCoordinator(_, .some): return nil
    case .unknownCoordinator:
      return "the coordinators are \(AppConfigurator.coordinatorNames.joined(separator: ", "))"
    case .coordinatorNotRunning(_, let flow):
      return flow == "login" ? "log in first: app login EMAIL" : "log out first: app logout"
    case .noScreen(let name):
      return name == "app"
        ? "AppConfigurator shows a screen only while it presents an alert" : "see 'coord tree'"
    case .blockedByAlert: return "dismiss it first: event send app dismissTapped"
    case .eventNotAllowed, .missingArgument, .badArgument, .unexpectedArgument:
      return "see 'event list'"
    case .rowOutOfRange, .rowNotSelectable: return "'screen show' lists the rows to select"
    case .rowNeedsArgument(_, _, .email): return "log in with 'app login EMAIL'"
    case .rowNeedsArgument: return "send its event with 'event send'"
    case .alreadyLoggedIn: return "log out first: app logout"
    case .loadFailed: return "'net log' shows the requests"
    case .storage: return nil
    }
  }
}
