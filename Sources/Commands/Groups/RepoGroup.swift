import Domain
import Foundation
import Plumbing
import Synchronization

/// `repo`: BDModules' Repository: paged collections kept in the workspace.
enum RepoGroup {
  static let group = CommandGroup(
    "repo", summary: "page through a collection and keep its models (Repository)",
    from: [.bdModules],
    discussion: """
      A repository fetches a collection page by page through APISessionManager and \
      OAuth2Authorization (an expired token is refreshed and the page replayed unseen), maps each \
      page with ModelFactory's collection parser, and keeps the model objects, de-duplicated by \
      type and uuid, in the workspace: it survives a restart with its cursors. Standard paging \
      sends offset = the number of elements held; Realtime Ascending sends since_id and Realtime \
      Descending max_id, from the paging id of the last element of the page before, sent back \
      verbatim: paging ids are kept as the strings they came as (a JSON number as its decimal \
      text), and nothing orders by them on the client. A page needs only info.total, as the \
      original reads it; offset and count are optional and may disagree with the data ('api \
      lint' reports that). fetch does not check atEnd, as in the seed; atEnd is total == count. \
      An error sets the state to Error and keeps the elements; a fetch cancelled with Ctrl-C \
      keeps the state it had.
      The original's fetch returns false, and sends nothing, while a fetch of the same \
      repository is in flight. 'repo fetch NAME --background' starts one and returns at once \
      (its completion handler runs later: 'repo wait NAME' shows what it brought); a 'repo \
      fetch' of the same repository before then is refused that way, and 'repo state' says \
      Fetching. A slow server ('net fault GET PATH --delay 2s') makes the window wide enough \
      to see.
      Departures from the original: its atEnd is also true after a first fetch that failed \
      (0 == 0), and archsh's is false until a fetch has succeeded; the original keeps elements \
      in memory, and archsh keeps them in the workspace, de-duplicated by a unique index on \
      type and uuid, so that a repository survives a restart.
      """,
    commands: [new, fetch, wait, show, state, list, reset, drop],
    hints: hint(for:))

  /// The shell's hints for RepositoryError.
  static func hint(for error: Error) -> String? {
    guard case RepositoryError.unknown(_, nil) = error else { return nil }
    return "'repo list' lists them; 'repo new NAME PATH' defines one"
  }
  /// A repository's name.
  static let nameArgument = Argument("NAME", .name, "the repository's name").concerning(.value)
  /// `new PATH`.
  static let pathArgument = Argument("PATH", .text, "the collection, such as /users/me/locations")
  /// `new --mode`.
  static let modeOption = Option(
    "mode", Kind<PagingWord>.choice, "Standard (offset) or Realtime (since_id, max_id)",
    default: "standard")
  /// `new --order`.
  static let orderOption = Option(
    "order", Kind<OrderWord>.choice, "the order asked of the API", default: "none")
  /// `new --limit N`.
  static let limitOption = Option("limit", .integer(1...1000), "the page size", default: "20")
  /// `new --opt KEY=VALUE`.
  static let optOption = Many.option(
    "opt", .text, value: "KEY=VALUE", "an extra query parameter for every fetch")
  /// `fetch --all`.
  static let allFlag = Flag("all", "fetch until atEnd, a page with nothing new, or an error")
  /// `fetch --background`.
  static let backgroundFlag = Flag(
    "background", "start the fetch and return at once; 'repo wait NAME' shows its outcome")

  /// A fetch started with `repo fetch --background`: it runs on a thread of its own, and its
  /// outcome waits here for `repo wait`, as the original's completion handler runs later.
  final class BackgroundFetch: Sendable {
    private let outcome = Mutex<Result<FetchResult?, any Error>?>(nil)
    private let landed = DispatchSemaphore(value: 0)

    /// Starts `fetch` on a thread of its own.
    init(_ fetch: @escaping @Sendable () throws -> FetchResult?) {
      Thread { [self] in
        let result = Result { try fetch() }
        outcome.withLock { $0 = result }
        landed.signal()
      }.start()
    }

    /// Whether the fetch has ended.
    var hasLanded: Bool { outcome.withLock { $0 != nil } }

    /// Waits for the fetch to end and returns what it brought, or throws its error.
    func wait() throws -> FetchResult? {
      if let result = outcome.withLock({ $0 }) { return try result.get() }
      landed.wait()
      landed.signal()
      return try outcome.withLock { $0 }?.get()
    }
  }
  /// `show --from I`.
  static let fromOption = Option("from", .integer(0...Int.max), "the first position", default: "0")
  /// `show --count N`.
  static let countOption = Option("count", .integer(1...10_000), "how many", default: "20")

  static let new = Command(
    "new", summary: "define a repository: its path, paging mode, order and page size",
    signature: Signature([
      nameArgument, pathArgument, modeOption, orderOption, limitOption, optOption,
    ]),
    examples: [
      "repo new favourites /users/me/locations --mode standard --limit 5",
      "repo new timeline /users/me/locations --mode realtime --order desc --limit 5",
    ],
    result: .record(recordFields)
  ) { invocation in
    let name = try invocation[nameArgument]
    var options: [String: String] = [:]
    for word in invocation[optOption] {
      guard let equals = word.text.firstIndex(of: "="), equals != word.text.startIndex else {
        throw ShellError(
          "'\(word.text)' is not KEY=VALUE", hint: "for example --opt q=cafe", at: word.offset)
      }
      options[String(word.text[..<equals])] = String(word.text[word.text.index(after: equals)...])
    }
    let definition = RepositoryDefinition(
      name: name.text, path: try invocation[pathArgument].text, options: options,
      ordering: (invocation[orderOption] ?? OrderWord.none).ordering,
      paging: (invocation[modeOption] ?? .standard).paging, limit: invocation[limitOption] ?? 20)
    do {
      try invocation.session.factory.api.repositoryStore.create(definition)
    } catch RepositoryError.realtimeNeedsOrder {
      throw ShellError(
        RepositoryError.realtimeNeedsOrder.description, hint: "add --order asc or --order desc",
        at: invocation.word(for: modeOption)?.offset ?? name.offset)
    }
    return record(try invocation.session.factory.api.repositoryStore.record(name.text))
  }

  static let fetch = Command(
    "fetch", summary: "fetch the next page: what was sent, what was new, the cursors",
    signature: Signature([nameArgument, allFlag, backgroundFlag]),
    examples: [
      "repo fetch favourites", "repo fetch favourites --all", "repo fetch favourites --background",
    ],
    result: .oneOf([
      .record(["repository", "in_flight"]),
      .record(["repository", "started", "parameters"]),
      .sequence([
        .record(["pages"]),
        .record(recordFields),
      ]),
    ])
  ) { invocation in
    let name = try invocation[nameArgument]
    let repository = try invocation.session.factory.api.repository(named: name.text)
    if invocation[backgroundFlag] {
      return try background(invocation, name: name)
    }
    var results: [FetchResult] = []
    let started = Date()
    // --all shows its progress on a terminal: pages, elements and the rate.
    defer { if invocation[allFlag] { invocation.context.progress(nil) } }
    func cancelled(elements: Int) -> ShellError {
      ShellError(
        "the fetch of '\(name.text)' was cancelled after \(plural(results.count, "page")) this run",
        hint:
          "Ctrl-C; the \(plural(elements, "element")) stored are kept, and 'repo fetch \(name.text) --all' goes on from there",
        at: name.offset)
    }
    repeat {
      let fetched: FetchResult?
      do {
        fetched = try repository.fetch()
      } catch RepositoryError.cancelled(_, let elements) {
        throw cancelled(elements: elements)
      }
      guard let result = fetched else {
        return .sentence(
          "a fetch of '\(name.text)' is already in flight: Repository.fetch returns false and sends nothing",
          [Field("repository", .string(name.text)), Field("in_flight", .bool(true))])
      }
      results.append(result)
      if invocation[allFlag] {
        let seconds = max(Date().timeIntervalSince(started), 0.001)
        let count = result.record.count
        let total = result.record.total.map { " of \($0)" } ?? ""
        invocation.context.progress(
          "repo fetch \(name.text): \(plural(results.count, "page")), \(count)\(total) elements, \(Int(Double(results.count) / seconds)) pages/s (Ctrl-C stops, keeping what was fetched)"
        )
      }
      if !invocation[allFlag] || result.record.atEnd || result.added == 0 { break }
    } while !invocation.session.interruptCheck()
    guard let last = results.last else { return .empty }
    if invocation[allFlag], !last.record.atEnd, last.added > 0, invocation.session.interruptCheck()
    {
      throw cancelled(elements: last.record.count)
    }
    return fetchedOutput(results)
  }

  /// `repo fetch --background`: starts the fetch on a thread of its own and says what it sends.
  static func background(_ invocation: Invocation, name: Word) throws -> Output {
    guard !invocation[allFlag] else {
      throw ShellError(
        "--background fetches one page; it does not go with --all",
        hint: "'repo fetch \(name.text) --all' waits for every page",
        at: invocation.word(for: backgroundFlag)?.offset ?? name.offset)
    }
    let store = try invocation.session.factory.api.repositoryStore
    let parameters = Repository.parameters(for: try store.record(name.text))
      .map { "\($0.key)=\($0.value)" }.joined(separator: "&")
    // Marked in flight here, before the thread starts, so that the next line typed finds it so.
    guard store.begin(name.text) else {
      return .sentence(
        "a fetch of '\(name.text)' is already in flight: Repository.fetch returns false and sends nothing",
        [Field("repository", .string(name.text)), Field("in_flight", .bool(true))])
    }
    // The thread asks the factory for a Repository of its own (a prototype), as a second caller
    // of the original would hold its own reference.
    let factory = invocation.session.factory
    let repositoryName = name.text
    invocation.session.backgroundFetches[name.text] = BackgroundFetch {
      defer { store.end(repositoryName) }
      return try factory.api.repository(named: repositoryName).fetchClaimed()
    }
    return .sentence(
      "fetching '\(name.text)' in the background (Repository.fetch returned true), sending \(parameters); 'repo wait \(name.text)' shows what it brings",
      [
        Field("repository", .string(name.text)), Field("started", .bool(true)),
        Field("parameters", .string(parameters)),
      ])
  }

  static let wait = Command(
    "wait",
    summary: "wait for the fetch 'repo fetch --background' started, and show what it brought",
    discussion: """
      The completion handler of the original's fetch, run when you ask: the page sent, what was \
      new and the repository's state, as 'repo fetch' shows them, or the fetch's error.
      """,
    signature: Signature([nameArgument]), examples: ["repo wait favourites"],
    result: .sequence([.record(["pages"]), .record(recordFields)])
  ) { invocation in
    let name = try invocation[nameArgument]
    guard let fetch = invocation.session.backgroundFetches[name.text] else {
      throw ShellError(
        "no fetch of '\(name.text)' was started in the background",
        hint: "'repo fetch \(name.text) --background' starts one", at: name.offset)
    }
    invocation.session.backgroundFetches[name.text] = nil
    guard let result = try fetch.wait() else { return .empty }
    return fetchedOutput([result])
  }

  /// What `repo fetch` and `repo wait` show: each page sent, then the repository's state.
  static func fetchedOutput(_ results: [FetchResult]) -> Output {
    guard let last = results.last else { return .empty }
    var lines = results.map { result in
      "sent \(result.parameters.map(\.description).joined(separator: "&")): +\(result.added) new (\(result.duplicates) duplicates)"
    }
    if lines.count > 12 {
      lines = Array(lines.prefix(5)) + ["… \(lines.count - 10) more pages …"] + lines.suffix(5)
    }
    let pages: [Value] = results.map { result in
      .object([
        Field(
          "parameters",
          .object(result.parameters.map { Field($0.key, .string($0.value)) })),
        Field("added", .int(result.added)), Field("duplicates", .int(result.duplicates)),
      ])
    }
    return .sequence([
      .view(text: lines.joined(separator: "\n"), data: .object([Field("pages", .list(pages))])),
      record(last.record),
    ])
  }

  static let show = Command(
    "show", summary: "draw the elements through a DataSourceController, from a position",
    discussion: """
      The elements from --from are loaded from the workspace into a DataSourceController, one \
      detail cell each, and drawn as a table view; --json gives the elements' stored JSON.
      """,
    signature: Signature([nameArgument, fromOption, countOption]),
    examples: ["repo show favourites", "repo show favourites --from 10 --count 5"],
    // The elements as stored, which are what the repository's path answers.
    result: .list(.value)
  ) { invocation in
    let name = try invocation[nameArgument]
    let store = try invocation.session.factory.api.repositoryStore
    let from = invocation[fromOption] ?? 0
    let count = invocation[countOption] ?? 20
    let controller = try store.dataSourceController(name.text, from: from, count: count)
    let whole = try store.elements(name.text, from: from, count: count).map { row -> Value in
      guard let json = try? StrictJSON.parse(row.json) else { return .string(row.json) }
      return JSONRenderer.value(fromJSON: json)
    }
    return .view(
      text: TableViewDrawing(controller: controller, width: 56).table(from: 0, count: count),
      data: .list(whole))
  }

  static let state = Command(
    "state", summary: "the fetch state, total, count, atEnd and cursors",
    signature: Signature([nameArgument]), examples: ["repo state favourites"],
    result: .record(recordFields)
  ) { invocation in
    record(
      try invocation.session.factory.api.repositoryStore.record(try invocation[nameArgument].text))
  }

  static let list = Command(
    "list", summary: "every repository", examples: ["repo list"],
    result: .rows(["name", "path", "paging", "ordering", "limit", "state", "count", "total"])
  ) { invocation in
    .table(
      Table(
        columns: ["name", "path", "paging", "ordering", "limit", "state", "count", "total"],
        rows: try invocation.session.factory.api.repositoryStore.list().map { record in
          let definition = record.definition
          return [
            .string(definition.name), .string(definition.path), .string(definition.paging.rawValue),
            .string(definition.ordering.rawValue), .int(definition.limit),
            .string(record.fetchState.rawValue), .int(record.count),
            record.total.map(Value.int) ?? .null,
          ]
        }))
  }

  static let reset = Command(
    "reset", summary: "forget the elements and cursors; keep the definition",
    signature: Signature([nameArgument]), examples: ["repo reset favourites"],
    result: .record(recordFields)
  ) { invocation in
    let name = try invocation[nameArgument].text
    let store = try invocation.session.factory.api.repositoryStore
    try store.reset(name)
    return record(try store.record(name))
  }

  static let drop = Command(
    "drop", summary: "delete a repository and its elements",
    signature: Signature([nameArgument]), examples: ["repo drop favourites"],
    result: .record(["repository", "dropped"])
  ) { invocation in
    let name = try invocation[nameArgument].text
    try invocation.session.factory.api.repositoryStore.drop(name)
    return .sentence(
      "dropped '\(name)'", [Field("repository", .string(name)), Field("dropped", .bool(true))])
  }

  /// The fields of a repository's record, as `repo state` shows it.
  static let recordFields = [
    "name", "paging", "state", "count", "total", "at_end", "first_paging_id", "last_paging_id",
    "next_fetch", "error",
  ]

  /// A repository's state as a record.
  static func record(_ record: RepositoryRecord) -> Output {
    let definition = record.definition
    var fields = [
      Field("name", .string(definition.name)),
      Field(
        "paging",
        .string(
          "\(definition.paging.rawValue), \(definition.ordering.rawValue), limit \(definition.limit)"
        )),
      Field("state", .string(record.fetchState.rawValue)),
      Field("count", .int(record.count)),
      Field("total", record.total.map(Value.int) ?? .null),
      Field("at_end", .bool(record.atEnd)),
      Field("first_paging_id", record.firstPagingId.map { .string($0) } ?? .null),
      Field("last_paging_id", record.lastPagingId.map { .string($0) } ?? .null),
      Field(
        "next_fetch",
        .string(
          Repository.parameters(for: record).map { "\($0.key)=\($0.value)" }.joined(separator: "&"))
      ),
    ]
    if let error = record.lastError { fields.append(Field("error", .string(error))) }
    return .record(fields)
  }
}

/// `repo new --order`: the words for the seed's orderings.
enum OrderWord: String, ChoiceWord {
  /// No order asked of the API.
  case none
  /// Oldest first.
  case asc
  /// Newest first.
  case desc

  /// The seed's ordering.
  var ordering: RepositoryDefinition.Ordering {
    switch self {
    case .none: return .none
    case .asc: return .ascending
    case .desc: return .descending
    }
  }
}

/// `repo new --mode`: the words for the seed's paging modes.
enum PagingWord: String, ChoiceWord {
  /// By offset.
  case standard
  /// By cursor.
  case realtime

  /// The seed's paging mode.
  var paging: RepositoryDefinition.PagingMode {
    switch self {
    case .standard: return .standard
    case .realtime: return .realtime
    }
  }
}
