import Domain

/// The help as fields, for `help --json` and `--json` mode: what a program needs to call a command
/// and to read its result.
extension Help {
  /// Every builtin and group, each with its summary.
  public static func overviewValue(_ registry: CommandRegistry) -> Value {
    let builtins = registry.groups.filter(\.isBuiltins).flatMap(\.commands)
    return .object([
      Field(
        "builtins",
        .list(
          builtins.map {
            .object([Field("name", .string($0.name)), Field("summary", .string($0.summary))])
          })),
      Field(
        "groups",
        .list(
          registry.groups.filter { !$0.isBuiltins }.map {
            .object([Field("name", .string($0.name)), Field("summary", .string($0.summary))])
          })),
    ])
  }

  /// One group: its purpose, and each command with its summary.
  public static func groupValue(_ group: CommandGroup) -> Value {
    .object([
      Field("group", .string(group.name)), Field("summary", .string(group.summary)),
      Field("origins", .list(group.origins.map { .string($0.label) })),
      Field("discussion", .string(group.discussion)),
      Field(
        "commands",
        .list(
          group.commands.map {
            .object([
              Field("name", .string("\(group.name) \($0.name)")),
              Field("summary", .string($0.summary)),
            ])
          })),
    ])
  }

  /// The fields of one command's help in JSON.
  public static let commandFields = [
    "command", "usage", "summary", "discussion", "aliases", "arguments", "options", "examples",
    "result",
  ]

  /// One command: its usage, parameters, examples and the shape of its result.
  public static func commandValue(_ command: Command, group: CommandGroup?) -> Value {
    let parameters = command.signature.parameters
    return .object([
      Field("command", .string(fullName(command, group: group))),
      Field("usage", .string(usage(command, group: group))),
      Field("summary", .string(command.summary)),
      Field("discussion", .string(command.discussion)),
      Field("aliases", .list(command.aliases.map(Value.string))),
      Field(
        "arguments", .list(parameters.filter { $0.kind == .positional }.map(parameterValue))),
      Field("options", .list(parameters.filter { $0.kind != .positional }.map(parameterValue))),
      Field("examples", .list(command.examples.map(Value.string))),
      Field("result", command.result?.value ?? .null),
    ])
  }

  private static func parameterValue(_ parameter: Parameter) -> Value {
    var fields = [
      Field("name", .string(parameter.kind == .positional ? parameter.name : "--" + parameter.name))
    ]
    switch parameter.kind {
    case .positional: fields.append(Field("kind", .string("argument")))
    case .option: fields.append(Field("kind", .string("option")))
    case .flag: fields.append(Field("kind", .string("flag")))
    }
    if parameter.kind != .flag { fields.append(Field("type", typeValue(parameter.type))) }
    fields += [
      Field("summary", .string(parameter.summary)),
      Field("optional", .bool(parameter.isOptional || parameter.kind != .positional)),
      Field("repeatable", .bool(parameter.isVariadic)),
      Field("default", parameter.defaultValue.map(Value.string) ?? .null),
      Field("secret", .bool(parameter.isSecret)),
    ]
    return .object(fields)
  }

  private static func typeValue(_ type: ValueType) -> Value {
    switch type {
    case .text: return .string("text")
    case .integer(let range):
      return .object([
        Field(
          "integer",
          .object([
            Field("min", range.lowerBound == Int.min ? .null : .int(range.lowerBound)),
            Field("max", range.upperBound == Int.max ? .null : .int(range.upperBound)),
          ]))
      ])
    case .choice(let words): return .object([Field("choice", .list(words.map(Value.string)))])
    case .path: return .string("path")
    case .name: return .string("name")
    case .bytes: return .string("bytes")
    case .duration(let maximum):
      return .object([
        Field("duration", .object([Field("max_seconds", maximum.map(Value.double) ?? .null)]))
      ])
    case .date: return .string("date")
    }
  }
}
