import Domain

/// `event`: what a screen's presenter sends its coordinator.
enum EventGroup {
  static let group = CommandGroup(
    "event", summary: "send presenter events to coordinators and watch the navigation change",
    from: [.mvcc],
    discussion: """
      Each screen's presenter sends the events of its own enum, named for what happened \
      (mediaItemSelected(id), headerTapped, backTapped, failed(error)...). The coordinator that \
      built the presenter switches on the event: it pushes, pops, resets its stack, or sends an \
      app event up. Only the screen a coordinator shows can send, and while an alert is \
      presented only the alert can. With 'trace on', each event prints its path: the \
      presenter, the coordinators that handle it, what they do, and the resulting stack.
      """,
    commands: [send, list])

  /// The events of the screen a coordinator shows.
  static let eventNames: CompletionProvider = { context in
    guard context.previousWords.count >= 3, let app = RunningApp.forCompletion(context.session),
      let controller = try? app.controller(forCoordinatorNamed: context.previousWords[2])
    else { return [] }
    return controller.events.map(\.name).filter { $0.hasPrefix(context.prefix) }
  }

  /// The values an event's argument takes: product ids, error kinds or tabs.
  static let eventArguments: CompletionProvider = { context in
    guard context.previousWords.count >= 4, let app = RunningApp.forCompletion(context.session),
      let controller = try? app.controller(forCoordinatorNamed: context.previousWords[2]),
      let descriptor = controller.events.first(where: { $0.name == context.previousWords[3] })
    else { return [] }
    let values: [String]
    switch descriptor.argument {
    case .id?:
      let cached = Completions.productIDs(context).compactMap { Int($0) }
      values = Set(cached + ProductMediaLibrary.discoverIDs).sorted().map(String.init)
    case .error?: values = AppError.allCases.map(\.rawValue)
    case .tab?: values = Tab.allCases.map(\.rawValue)
    case .email?, nil: values = []
    }
    return values.filter { $0.hasPrefix(context.prefix) }
  }

  /// `send COORDINATOR`: the coordinator whose screen's presenter sends.
  static let coordinatorArgument = Argument(
    "COORDINATOR", .text, "the coordinator", completion: RunningApp.coordinatorNames
  ).concerning(.coordinator)
  /// `send EVENT`: the event's name.
  static let eventArgument = Argument(
    "EVENT", .text, "the event's name", completion: eventNames
  ).concerning(.event)
  /// `send [ARG]`: the event's argument.
  static let argOption = Option.argument(
    "ARG", .text, "its argument: a product id, an error kind, a tab, an email",
    completion: eventArguments
  ).concerning(.value)
  /// `list [COORDINATOR]`: the coordinator, the visible screen's by default.
  static let coordinatorOption = Option.argument(
    "COORDINATOR", .text, "the coordinator", completion: RunningApp.coordinatorNames
  ).concerning(.coordinator)

  static let send = Command(
    "send", summary: "have the presenter of a coordinator's screen send an event",
    signature: Signature([coordinatorArgument, eventArgument, argOption]),
    examples: [
      "event send discover mediaItemSelected 42", "event send discover backTapped",
      "event send tabbar tabSelected profile", "event send app dismissTapped",
    ], result: .events(["component", "action", "subject", "text"])
  ) { invocation in
    let session = invocation.session
    let name = try invocation[coordinatorArgument]
    let event = try invocation[eventArgument]
    let argument = invocation[argOption]
    return try RunningApp.navigate(session) { app in
      let controller = try app.controller(forCoordinatorNamed: name.text)
      let descriptor = try controller.descriptor(named: event.text)
      let value = try eventValue(argument, for: descriptor)
      try controller.send(eventNamed: event.text, value: value)
    }
  }

  static let list = Command(
    "list", summary: "the events the presenter of a coordinator's screen can send",
    discussion: "Without COORDINATOR, the visible screen's.",
    signature: Signature([coordinatorOption]),
    examples: ["event list discover", "event list"],
    result: .sequence([.record(["presenter", "screen"]), .rows(["event", "argument"])])
  ) { invocation in
    let name = invocation[coordinatorOption]
    let app = try RunningApp.app(invocation.session)
    let controller = try app.controller(forCoordinatorNamed: name?.text)
    return .sequence([
      .sentence(
        "Presenter(\(controller.presenterName)) of \(controller.screen) can send:",
        [
          Field("presenter", .string(controller.presenterName)),
          Field("screen", .string(controller.screen.description)),
        ]),
      .table(
        Table(
          columns: ["event", "argument"],
          rows: controller.events.map { descriptor in
            [
              .string(descriptor.signature),
              descriptor.argument.map { .string($0.summary) } ?? .null,
            ]
          })),
    ])
  }

  /// An event's argument, parsed in the shell with the signature types every command uses.
  ///
  /// Domain checks the typed value against the event; only the text is the shell's to read.
  static func eventValue(_ word: Word?, for descriptor: EventDescriptor) throws -> EventValue? {
    guard let argument = descriptor.argument else {
      if let word {
        throw NavigationError.unexpectedArgument(event: descriptor.name, value: word.text)
      }
      return nil
    }
    guard let word else {
      throw NavigationError.missingArgument(event: descriptor.name, argument: argument.summary)
    }
    let kind: ValueType
    switch argument {
    case .id: kind = .integer(1...Int.max)
    case .error: kind = .choice(AppError.allCases.map(\.rawValue))
    case .tab: kind = .choice(Tab.allCases.map(\.rawValue))
    case .email: kind = .text
    }
    guard let converted = try? Signature.convert(word, to: kind, label: "ARG") else {
      throw NavigationError.badArgument(
        event: descriptor.name, value: word.text, reason: "is not \(argument.summary)")
    }
    switch (argument, converted) {
    case (.id, .integer(let id)): return .id(id)
    case (.error, _): return AppError(rawValue: word.text).map(EventValue.error)
    case (.tab, _): return Tab(rawValue: word.text).map(EventValue.tab)
    default: return .email(word.text)
    }
  }
}
