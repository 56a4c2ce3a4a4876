import Domain
import Foundation

/// `store`: PersistenceController, a set of named stores with PINCache's semantics on SQLite.
enum StoreGroup {
  static let group = CommandGroup(
    "store", summary: "persist and retrieve keys in named stores (PersistenceController)",
    from: [.lickability],
    discussion: """
      Each store keeps entries with their value, creation and access times, access count and \
      byte count. Limits follow PINCache: a byte limit (50MB by default) trimmed by least recent \
      access after a write, an age limit (30d by default) counted from creation, and TTL mode, \
      where an expired entry reads as missing. Reads update the access time and count.
      Deliberate differences from the seed: a value larger than the byte limit is rejected with \
      an error (PINCache drops it silently); several controllers with one identifier share one \
      data set (PINCache forbids that, the seed promises it); a key's byte count is its value's \
      length, not its size on disk.
      """,
    commands: [
      stores, create, drop, persist, retrieve, remove, keys, entries, bytes, limits, trim,
    ],
    hints: hint(for:))

  /// The shell's hints for PersistenceController's errors.
  static func hint(for error: Error) -> String? {
    switch error {
    case PersistenceController.Error.unknownStore(_, nil):
      return "'store stores' lists them"
    case PersistenceController.Error.builtInStore(let store):
      return "'store trim \(store) --to-bytes 0' removes its entries"
    case PersistenceController.Error.objectFailedToPersist(let store, _):
      return "raise it with 'store limits \(store) --bytes N'"
    case PersistenceController.Error.expired(let store, _):
      return "'store trim \(store) --expired' is that trim"
    default: return nil
    }
  }
  // MARK: - Completion

  static let storeNames: CompletionProvider = { context in
    guard let workspace = try? context.session.factory.workspace else { return [] }
    return (try? PersistenceController.storeNames(in: workspace)) ?? []
  }

  /// Keys of the store named two words after the group word, from a prefix range query.
  static let keyNames: CompletionProvider = { context in
    guard context.previousWords.count >= 3,
      let controller = try? context.session.factory.persistenceController(
        identifier: context.previousWords[2])
    else { return [] }
    return (try? controller.keys(prefix: context.prefix, limit: 100)) ?? []
  }

  // MARK: - Parameters

  /// The store a command works on.
  static let storeArgument = Argument(
    "STORE", .name, "the store's name", completion: storeNames
  ).concerning(.store)

  /// `create`'s new store name.
  static let createName = Argument(
    "NAME", .name, "letters, digits, '_', '-' and '.'"
  ).concerning(.store)

  /// `persist`'s key.
  static let keyArgument = Argument("KEY", .name, "the key", completion: keyNames)

  /// `persist`'s value, or @PATH.
  static let valueArgument = Argument(
    "VALUE", .text, "the value, or @PATH to read a file"
  ).concerning(.value)

  /// `persist --json`.
  static let jsonFlag = Flag("json", "check that the value is valid JSON")

  /// `persist --age`.
  static let entryAgeOption = Option(
    "age", .duration, value: "DURATION", "an age limit for this entry alone")

  /// The keys `retrieve` and `remove` work on.
  static let keysArgument = Many.arguments("KEY", .name, "the keys", completion: keyNames)

  /// `keys --prefix`.
  static let prefixOption = Option("prefix", .text, value: "P", "only keys that start with P")

  /// `keys --limit`.
  static let limitOption = Option("limit", .integer(0...Int.max), value: "N", "at most N keys")

  /// `bytes`'s optional key.
  static let oneKey = Option.argument("KEY", .name, "one key", completion: keyNames)

  /// `limits --bytes`.
  static let byteLimitOption = Option(
    "bytes", .bytes, value: "N", "the byte limit, such as 50MB; 0 for none")

  /// `limits --age`.
  static let ageLimitOption = Option(
    "age", .duration, value: "DURATION", "the age limit, such as 30d; 0 for none")

  /// `limits --ttl`.
  static let ttlOption = Option(
    "ttl", Kind<Switch>.choice, value: "on|off", "whether expired entries read as missing")

  /// `trim --to-bytes`.
  static let toBytesOption = Option(
    "to-bytes", .bytes, value: "N", "trim the largest entries to N bytes")

  /// `trim --lru`.
  static let lruOption = Option(
    "lru", .bytes, value: "N", "trim the least recently accessed to N bytes")

  /// `trim --to-date`.
  static let toDateOption = Option(
    "to-date", .date, value: "DATE",
    "remove entries created before DATE, except those with an age limit of their own")

  /// `trim --expired`.
  static let expiredFlag = Flag("expired", "remove entries past their age limit")

  // MARK: - Commands

  static let stores = Command(
    "stores", summary: "list the stores: entries, bytes and limits", examples: ["store stores"],
    result: .rows(["name", "entries", "bytes", "byte_limit", "age_limit", "ttl"])
  ) { invocation in
    let workspace = try invocation.session.factory.workspace
    let summaries = try PersistenceController.stores(in: workspace)
    return .table(
      Table(
        columns: ["name", "entries", "bytes", "byte_limit", "age_limit", "ttl"],
        rows: summaries.map { store in
          [
            .string(store.name), .int(store.entries), .int(store.bytes),
            shownByteLimit(store.limits.byteLimit),
            .string(Quantities.format(duration: store.limits.ageLimit)), .bool(store.limits.ttl),
          ]
        }))
  }

  static let create = Command(
    "create", summary: "create a store with the default limits",
    signature: Signature([createName]),
    examples: ["store create productCache"], result: .record(["store", "created"])
  ) { invocation in
    let name = try invocation[createName]
    try PersistenceController.createStore(
      name.text, in: invocation.session.factory.workspace, tracer: invocation.session.tracer)
    return .sentence(
      "created store '\(name.text)'",
      [Field("store", .string(name.text)), Field("created", .bool(true))])
  }

  /// `drop`'s store.
  static let dropName = Argument(
    "NAME", .name, "a store created with 'store create'", completion: storeNames
  ).concerning(.store)

  static let drop = Command(
    "drop", summary: "drop a store created with 'store create', with its entries",
    discussion: """
      Says how many entries and bytes went with it. The seed's stores (generalCache, bookmarks, \
      issues, issueAssets, articleStyles, articleAssets, user, productCache) cannot be dropped: \
      the controllers persist into them; 'store trim NAME --to-bytes 0' empties one.
      """,
    signature: Signature([dropName]),
    examples: ["store drop productCopies"],
    result: .record(["store", "dropped", "entries", "bytes"])
  ) { invocation in
    let name = try invocation[dropName]
    let dropped = try invocation.session.factory.persistenceController(identifier: name.text)
      .dropStore()
    let entries = dropped.entries == 1 ? "1 entry" : "\(dropped.entries) entries"
    return .sentence(
      "dropped store '\(name.text)' with \(entries), \(plural(dropped.bytes, "byte"))",
      [
        Field("store", .string(name.text)), Field("dropped", .bool(true)),
        Field("entries", .int(dropped.entries)), Field("bytes", .int(dropped.bytes)),
      ])
  }

  static let persist = Command(
    "persist", summary: "persist a value under a key, replacing any previous value",
    discussion: """
      VALUE is text; @PATH reads the value from a file (write @@ for a value that starts with @); \
      a relative PATH starts in the script's folder, or in the current directory at the prompt. \
      With --json the value must be valid JSON (RFC 8259: no trailing commas, comments or single \
      quotes); an error names the line and column inside the value or the file. A value larger \
      than the store's byte limit is rejected; a write that takes the store over its limit trims the least recently accessed \
      entries, and the command says which.
      """,
    signature: Signature([storeArgument, keyArgument, valueArgument, jsonFlag, entryAgeOption]),
    examples: [
      "store persist bookmarks home 'https://example.com'",
      "store persist user profile @profile.json --json",
      "store persist generalCache session abc --age 1h",
    ], result: .oneOf([.nothing, .events(["action", "reason", "keys"])])
  ) { invocation in
    let valueWord = try invocation[valueArgument]
    let input = try ValueInput.value(of: valueWord, paths: invocation.paths)
    let value = input.data
    if invocation[jsonFlag] {
      _ = try ValueInput.check(value, file: input.file, at: valueWord)
    }
    let key = try invocation[keyArgument]
    let trimmed = try controller(invocation).persist(
      value, forKey: key.text, ageLimit: invocation[entryAgeOption])
    guard !trimmed.isEmpty else { return .empty }
    return .events([
      EventLine(
        "PersistenceController: trimmed to stay within the byte limit: \(trimmed.joined(separator: ", "))",
        fields: [
          Field("action", .string("trimmed")), Field("reason", .string("byte limit")),
          Field("keys", .list(trimmed.map(Value.string))),
        ])
    ])
  }

  static let retrieve = Command(
    "retrieve", summary: "print the values of keys, in the order given, skipping missing ones",
    discussion: """
      With one key, prints its value. With several, prints a table in the order given, skipping \
      missing keys; it fails only when every key is missing (the seed returns nil). In TTL mode \
      an expired entry reads as missing. Each read updates the entry's access time and count; \
      storing a key again starts its count over, as it does its creation time.
      """,
    signature: Signature([storeArgument, keysArgument]),
    examples: ["store retrieve bookmarks home", "store retrieve bookmarks home work"],
    result: .oneOf([.record(["store", "key", "value"]), .rows(["key", "value"])])
  ) { invocation in
    let keys = invocation[keysArgument]
    let store = try invocation[storeArgument]
    if keys.count == 1 {
      let value = ValueInput.shown(try controller(invocation).retrieve(forKey: keys[0].text))
      return .view(
        text: value.text,
        data: .object([
          Field("store", .string(store.text)), Field("key", .string(keys[0].text)),
          Field("value", value.whole),
        ]))
    }
    let found = try controller(invocation).retrieveObjects(forKeys: keys.map(\.text))
    return .table(
      Table(
        columns: ["key", "value"],
        rows: found.map {
          let value = ValueInput.shown($0.value)
          return [.string($0.key), .excerpt(shown: value.text, whole: value.whole)]
        }))
  }

  static let remove = Command(
    "remove", summary: "remove keys; every key must exist, or nothing is removed",
    signature: Signature([storeArgument, keysArgument]),
    examples: ["store remove bookmarks home"], result: .nothing
  ) { invocation in
    let keys = invocation[keysArgument]
    do {
      try controller(invocation).remove(forKeys: keys.map(\.text))
    } catch PersistenceController.Error.objectNotFound(let store, let missing) {
      let word = keys.first { $0.text == missing.first }
      throw ShellError(
        PersistenceController.Error.objectNotFound(store: store, keys: missing).description,
        hint: "nothing was removed", at: word?.offset)
    }
    return .empty
  }

  static let keys = Command(
    "keys", summary: "list keys in key order",
    discussion: """
      In TTL mode an entry past its age limit is not listed: PINCache's TTL cache answers it as \
      absent, and so do 'store retrieve' (which says it has expired) and 'store entries'. It stays \
      stored, and 'store bytes' and 'store stores' count it, until a trim removes it ('store \
      trim STORE --expired').
      """,
    signature: Signature([storeArgument, prefixOption, limitOption]),
    examples: ["store keys bookmarks", "store keys generalCache --prefix user. --limit 10"],
    result: .rows(["key"])
  ) { invocation in
    let keys = try controller(invocation).keys(
      prefix: invocation[prefixOption]?.text ?? "", limit: invocation[limitOption])
    return .table(Table(columns: ["key"], rows: keys.map { [.string($0)] }))
  }

  static let entries = Command(
    "entries", summary: "list entries: key, bytes, created, accessed, access count, age limit",
    discussion: """
      In TTL mode an entry past its age limit is not listed, as 'store keys' does not list it; \
      'store bytes' still counts it until a trim removes it.
      """,
    signature: Signature([storeArgument]), examples: ["store entries bookmarks"],
    result: .rows(["key", "bytes", "created", "accessed", "count", "age_limit"])
  ) { invocation in
    let entries = try controller(invocation).entries()
    return .table(
      Table(
        columns: ["key", "bytes", "created", "accessed", "count", "age_limit"],
        rows: entries.map { entry in
          [
            .string(entry.key), .int(entry.bytes), .string(Quantities.format(date: entry.created)),
            .string(Quantities.format(date: entry.accessed)), .int(entry.accessCount),
            entry.ageLimit.map { .string(Quantities.format(duration: $0)) } ?? .null,
          ]
        }))
  }

  static let bytes = Command(
    "bytes", summary: "the byte count of a store, or of one key",
    discussion:
      "A key's byte count is its value's length (PINCache reports the size allocated on disk). In TTL mode an entry past its age limit is counted until a trim removes it, as PINCache's byte count counts it, though 'store keys', 'store entries' and 'store retrieve' treat it as absent.",
    signature: Signature([storeArgument, oneKey]),
    examples: ["store bytes bookmarks", "store bytes bookmarks home"],
    result: .oneOf([.record(["store", "bytes"]), .record(["store", "key", "bytes"])])
  ) { invocation in
    let store = try invocation[storeArgument]
    if let key = invocation[oneKey] {
      let count = try controller(invocation).byteCount(forKey: key.text)
      return .record([
        Field("store", .string(store.text)), Field("key", .string(key.text)),
        Field("bytes", .int(count)),
      ])
    }
    let count = try controller(invocation).byteCount()
    return .record([Field("store", .string(store.text)), Field("bytes", .int(count))])
  }

  /// A byte limit for people: `none` for PINCache's 0, which means no limit; JSON keeps the number.
  static func shownByteLimit(_ bytes: Int) -> Value {
    bytes == 0 ? .excerpt(shown: "none", whole: .int(0)) : .int(bytes)
  }

  static let limits = Command(
    "limits", summary: "show or change a store's byte limit, age limit and TTL mode",
    discussion: """
      Without options, shows the limits. A lower byte limit trims at once, least recently \
      accessed first; a byte limit of 0 means none, as in PINCache. The age limit counts from \
      each entry's creation; 0 means none. In TTL \
      mode an entry past its age limit reads as missing; otherwise it stays readable until \
      'store trim STORE --expired' removes it.
      """,
    signature: Signature([storeArgument, byteLimitOption, ageLimitOption, ttlOption]),
    examples: [
      "store limits bookmarks", "store limits generalCache --bytes 1MB --age 1h --ttl on",
    ],
    result: .oneOf([
      .record(["store", "byte_limit", "age_limit", "ttl"]),
      .sequence([
        .record(["store", "byte_limit", "age_limit", "ttl"]),
        .events(["action", "reason", "entries", "bytes"]),
      ]),
    ])
  ) { invocation in
    let controller = try StoreGroup.controller(invocation)
    let byteLimit = invocation[byteLimitOption]
    let ageLimit = invocation[ageLimitOption]
    let ttl = invocation[ttlOption].map { $0 == .on }
    let change =
      byteLimit == nil && ageLimit == nil && ttl == nil
      ? LimitsChange(limits: try controller.limits(), trimmed: [])
      : try controller.changeLimits(byteLimit: byteLimit, ageLimit: ageLimit, ttl: ttl)
    let limits = change.limits
    let record = Output.record([
      Field("store", .string(controller.identifier)),
      Field("byte_limit", shownByteLimit(limits.byteLimit)),
      Field("age_limit", .string(Quantities.format(duration: limits.ageLimit))),
      Field("ttl", .bool(limits.ttl)),
    ])
    guard !change.trimmed.isEmpty else { return record }
    let bytes = change.trimmed.reduce(0) { $0 + $1.bytes }
    let keys = change.trimmed.map { "\($0.key) (\(plural($0.bytes, "byte")))" }
    return .sequence([
      record,
      .events([
        EventLine(
          "trimmed \(change.trimmed.count == 1 ? "1 entry" : "\(change.trimmed.count) entries"), \(plural(bytes, "byte")), to stay within the byte limit: \(keys.joined(separator: ", "))",
          fields: [
            Field("action", .string("trimmed")), Field("reason", .string("byte limit")),
            Field(
              "entries",
              .list(
                change.trimmed.map {
                  .object([Field("key", .string($0.key)), Field("bytes", .int($0.bytes))])
                })),
            Field("bytes", .int(bytes)),
          ])
      ]),
    ])
  }

  static let trim = Command(
    "trim", summary: "remove entries: by size, by least recent access, by date, or expired ones",
    discussion: """
      Give exactly one of:
        --to-bytes N   largest entries first, until at most N bytes remain (PINCache trimToSize)
        --lru N        least recently accessed first, until at most N bytes (trimToSizeByDate)
        --to-date DATE entries created before DATE, except those with an age limit of their own
        --expired      entries past their age limit
      PINCache's trimToDate, as its code does it (PINDiskCache trimDiskToDate and PINMemoryCache \
      trimMemoryToDate): an entry goes when its creation date is before DATE, and an entry \
      persisted with its own age limit (store persist --age) is skipped, left to that limit. \
      The header, PINCaching.h, says "objects that haven't been accessed since this date"; the \
      code compares creation dates, and archsh follows the code.
      """,
    signature: Signature([storeArgument, toBytesOption, lruOption, toDateOption, expiredFlag]),
    examples: ["store trim generalCache --expired", "store trim generalCache --lru 1MB"],
    result: .events(["action", "keys"])
  ) { invocation in
    var choices: [PersistenceController.Trim] = []
    if let bytes = invocation[toBytesOption] { choices.append(.toBytes(bytes)) }
    if let bytes = invocation[lruOption] { choices.append(.leastRecentlyUsed(toBytes: bytes)) }
    if let date = invocation[toDateOption] { choices.append(.toDate(date)) }
    if invocation[expiredFlag] { choices.append(.expired) }
    guard choices.count == 1, let choice = choices.first else {
      throw ShellError(
        choices.isEmpty
          ? "'store trim' needs one of --to-bytes, --lru, --to-date, --expired"
          : "'store trim' takes only one of --to-bytes, --lru, --to-date, --expired",
        hint: "usage: store trim STORE (--to-bytes N | --lru N | --to-date DATE | --expired)")
    }
    let removed = try controller(invocation).trim(choice)
    return .events([
      EventLine(
        removed.isEmpty
          ? "PersistenceController: nothing to trim"
          : "PersistenceController: removed \(removed.count): \(removed.joined(separator: ", "))",
        fields: [
          Field("action", .string("trimmed")), Field("keys", .list(removed.map(Value.string))),
        ])
    ])
  }

  // MARK: - Helpers

  static func controller(_ invocation: Invocation) throws -> PersistenceController {
    try invocation.session.factory.persistenceController(
      identifier: invocation[storeArgument].text)
  }
}

/// A setting turned on or off, such as `store limits --ttl`.
enum Switch: String, ChoiceWord {
  /// On.
  case on
  /// Off.
  case off
}
