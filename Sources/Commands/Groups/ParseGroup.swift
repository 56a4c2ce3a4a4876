import Domain

/// `parse`: Lickability's Parser type: a file or JSON in, models out.
enum ParseGroup {
  static let group = CommandGroup(
    "parse", summary: "turn files and JSON into models (AcknowParser, GameParser)",
    from: [.lickability],
    discussion: """
      Parsers take raw input and produce models, and nothing else: no networking, no \
      persistence. AcknowParser reads a CocoaPods acknowledgements plist; GameParser shows the \
      guide's newer example, which throws invalidInput when the JSON lacks a name.
      """,
    commands: [acknowledgements, game],
    hints: hint(for:))

  /// The shell's hints for ParserError.
  static func hint(for error: Error) -> String? {
    guard let error = error as? ParserError else { return nil }
    if case .invalidInput = error { return #"for example '{"name": "Tetris"}'"# }
    return "give the path to an acknowledgements .plist"
  }
  /// `acknowledgements`'s plist.
  static let plistFile = Argument("FILE", .path, "the .plist file").concerning(.file)

  static let acknowledgements = Command(
    "acknowledgements",
    summary: "parse a CocoaPods acknowledgements plist: header, libraries, footer",
    discussion: """
      The header and footer are the FooterText of the first and last PreferenceSpecifiers; the \
      groups between them are the libraries. Deliberate difference: the seed turns an \
      unreadable plist into an empty dictionary; archsh says what is wrong.
      """,
    signature: Signature([plistFile]),
    examples: ["parse acknowledgements examples/Pods-acknowledgements.plist"],
    result: .sequence([
      .record(["header", "footer", "libraries"]), .rows(["title", "license", "text"]),
    ])
  ) { invocation in
    let file = try invocation[plistFile]
    let parser: AcknowParser
    do {
      parser = try invocation.session.factory.model.acknowParser(
        plistPath: invocation.paths.resolve(file.text))
    } catch let error as ParserError {
      throw error.naming(invocation.paths.shown(file.text))
    }
    let (header, footer) = parser.parseHeaderAndFooter()
    let acknowledgements = parser.parseAcknowledgements()
    return .sequence([
      .record([
        Field("header", header.map(Value.string) ?? .null),
        Field("footer", footer.map(Value.string) ?? .null),
        Field("libraries", .int(acknowledgements.count)),
      ]),
      .table(
        Table(
          columns: ["title", "license", "text"],
          rows: acknowledgements.map { acknow in
            [
              .string(acknow.title), acknow.license.map(Value.string) ?? .null,
              .excerpt(shown: excerpt(acknow.text), whole: .string(acknow.text)),
            ]
          })),
    ])
  }

  /// `game`'s JSON object.
  static let jsonArgument = Argument("JSON", .text, "a JSON object, quoted").concerning(.value)

  static let game = Command(
    "game", summary: "parse a game from JSON with GameParser; invalidInput without a name",
    signature: Signature([jsonArgument]),
    examples: [#"parse game '{"name": "Tetris"}'"#, #"parse game '{"title": "no name"}'"#],
    result: .record(["name"])
  ) { invocation in
    let json = try invocation[jsonArgument]
    let game = try invocation.session.factory.model.gameParser().parse(text: json.text)
    return .record([Field("name", .string(game.name))])
  }

  /// The first line of a license text, cut to 60 characters, for the table; JSON has it whole.
  static func excerpt(_ text: String) -> String {
    let line = text.split(separator: "\n").first.map(String.init) ?? ""
    return line.count > 60 ? String(line.prefix(59)) + "…" : line
  }
}
