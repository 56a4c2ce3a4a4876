import Domain
import Foundation
import Synchronization

/// A command group that is built on first use, known until then by its name.
public struct LazyCommandGroup: Sendable {
  /// The group word, for example `store`; empty for the builtins.
  public let name: String
  /// Builds the group; its name must be `name`.
  public let make: @Sendable () -> CommandGroup

  /// Declares a group by name, with what builds it.
  public init(_ name: String, make: @escaping @Sendable () -> CommandGroup) {
    self.name = name
    self.make = make
  }
}

/// Every command group, indexed for dispatch: a dictionary lookup for the first word, and one for
/// the verb.
///
/// Groups given lazily are built, and their verbs indexed, the first time a line names them: a
/// command line pays only for its own group, and `archsh -c 'echo hi'` for the builtins alone.
public final class CommandRegistry: Sendable {
  private enum Entry {
    case builtin(Command)
    case group(Int)
  }

  /// A group's command with its full name, for example `store keys`.
  private struct Verb {
    let command: Command
    let fullName: String
  }

  /// One group: built on first use, then kept with its verb index.
  private final class Slot: Sendable {
    let name: String
    private let make: @Sendable () -> CommandGroup
    private let built = Mutex<(group: CommandGroup, verbs: [String: Verb])?>(nil)

    init(name: String, make: @escaping @Sendable () -> CommandGroup) {
      self.name = name
      self.make = make
    }

    var value: (group: CommandGroup, verbs: [String: Verb]) {
      built.withLock { built in
        if let built { return built }
        let group = make()
        var verbs: [String: Verb] = [:]
        for command in group.commands {
          // The full name is made once here, not on every line that runs the command.
          let verb = Verb(command: command, fullName: "\(group.name) \(command.name)")
          for name in [command.name] + command.aliases { verbs[name] = verb }
        }
        built = (group, verbs)
        return (group, verbs)
      }
    }
  }

  private let builtins: CommandGroup
  private let slots: [Slot]
  private let top: [String: Entry]
  /// The command words of the last command found, and what they resolved to: a script repeats
  /// one command, and comparing its two short words costs less than the two hash lookups and the
  /// group's lock that find it.
  private let lastFound = Mutex<(words: [String], resolution: Resolution)?>(nil)

  /// A command found for a command line, with where its arguments start.
  public struct Resolution: Sendable {
    /// The command to run.
    public let command: Command
    /// Its full name, for example `store keys`.
    public let name: String
    /// The index of the first argument word.
    public let argumentStart: Int
  }

  /// Indexes `groups`, already built.
  ///
  /// A group's name and a builtin's name must not collide.
  public convenience init(groups: [CommandGroup]) {
    self.init(lazy: groups.map { group in LazyCommandGroup(group.name) { group } })
  }

  /// Indexes groups by name; each is built the first time it is used, except the builtins,
  /// whose command names are needed at once.
  public init(lazy groups: [LazyCommandGroup]) {
    var builtins = CommandGroup("", summary: "", from: [.archsh], commands: [])
    var slots: [Slot] = []
    var top: [String: Entry] = [:]
    for lazy in groups {
      if lazy.name.isEmpty {
        builtins = lazy.make()
        for command in builtins.commands {
          for name in [command.name] + command.aliases { top[name] = .builtin(command) }
        }
      } else {
        top[lazy.name] = .group(slots.count)
        slots.append(Slot(name: lazy.name, make: lazy.make))
      }
    }
    self.builtins = builtins
    self.slots = slots
    self.top = top
  }

  /// The groups in the order the help lists them, the builtins first; every group is built.
  public var groups: [CommandGroup] { [builtins] + slots.map(\.value.group) }

  /// The names that can start a command line: builtins and group words.
  public var topLevelNames: [String] { builtins.commands.map(\.name) + slots.map(\.name) }

  /// The group named `name`.
  public func group(named name: String) -> CommandGroup? {
    slots.first { $0.name == name }?.value.group
  }

  /// The builtin named `name`.
  public func builtin(named name: String) -> Command? {
    if case .builtin(let command) = top[name] { return command }
    return nil
  }

  /// How far a command line's first words go towards naming a command.
  public enum Lookup {
    /// They name a command.
    case found(Resolution)
    /// They stop before naming one; `candidates` are the words that could come next.
    case incomplete(ShellError, candidates: [String])
    /// A word names nothing.
    case unknown(ShellError)
  }

  /// Finds the command that `words` call.
  ///
  /// Unknown names get a "did you mean".
  public func resolve(_ words: [Word]) throws(ShellError) -> Resolution {
    switch lookup(words) {
    case .found(let resolution): return resolution
    case .incomplete(let error, _), .unknown(let error): throw error
    }
  }

  /// Follows `words` as far as they name a command: the one step behind dispatch and completion.
  public func lookup(_ words: [Word]) -> Lookup {
    let remembered = lastFound.withLock { last -> Resolution? in
      guard let last, words.count >= last.words.count else { return nil }
      for (index, word) in last.words.enumerated() where words[index].text != word { return nil }
      return last.resolution
    }
    if let remembered { return .found(remembered) }
    let found = follow(words)
    if case .found(let resolution) = found {
      let named = words.prefix(resolution.argumentStart).map(\.text)
      lastFound.withLock { $0 = (named, resolution) }
    }
    return found
  }

  private func follow(_ words: [Word]) -> Lookup {
    guard let first = words.first else {
      return .incomplete(ShellError("empty command"), candidates: topLevelNames)
    }
    switch top[first.text] {
    case .builtin(let command):
      return .found(
        Resolution(command: command, name: command.name, argumentStart: 1))
    case .group(let index):
      let (group, verbs) = slots[index].value
      guard words.count > 1 else {
        return .incomplete(
          ShellError(
            "'\(group.name)' needs a verb: \(group.verbs.joined(separator: ", "))",
            hint: "try 'help \(group.name)'", at: first.offset + first.text.utf8.count + 1),
          candidates: group.verbs)
      }
      let verb = words[1]
      if let found = verbs[verb.text] {
        return .found(
          Resolution(command: found.command, name: found.fullName, argumentStart: 2))
      }
      // Two-word verbs, such as `ds section add`.
      let subverbs = group.subverbs(of: verb.text)
      if !subverbs.isEmpty {
        guard words.count > 2 else {
          return .incomplete(
            ShellError(
              "'\(group.name) \(verb.text)' needs a verb: \(subverbs.joined(separator: ", "))",
              hint: "try 'help \(group.name) \(verb.text)'",
              at: verb.offset + verb.text.utf8.count + 1),
            candidates: subverbs)
        }
        let subverb = words[2]
        guard let found = verbs[verb.text + " " + subverb.text] else {
          let hint =
            ShellError.didYouMean(subverb.text, among: subverbs)
            ?? "try 'help \(group.name) \(verb.text)'"
          return .unknown(
            ShellError(
              "unknown verb '\(subverb.text)' for '\(group.name) \(verb.text)'", hint: hint,
              at: subverb.offset))
        }
        return .found(
          Resolution(command: found.command, name: found.fullName, argumentStart: 3))
      }
      let hint =
        ShellError.didYouMean(verb.text, among: group.verbs) ?? "try 'help \(group.name)'"
      return .unknown(
        ShellError("unknown verb '\(verb.text)' for '\(group.name)'", hint: hint, at: verb.offset))
    case nil:
      let hint = ShellError.didYouMean(first.text, among: topLevelNames) ?? "try 'help'"
      return .unknown(
        ShellError("unknown command '\(first.text)'", hint: hint, at: first.offset))
    }
  }
}

extension CommandRegistry {
  /// The words of the `help` command that a line asking for help with `--help` means:
  /// `store persist KEY --help` is `help store persist`, and `factory --help` is `help factory`.
  ///
  /// `--help` counts only where an option could go: not quoted, not an option's value, not after
  /// `--`, and not inside a command line that another command runs (`time store keys --help`
  /// asks for `store keys`' help, which that command's own parse finds). Nil for any other line.
  public func helpRequest(_ words: [Word]) -> [Word]? {
    guard
      let index = words.firstIndex(where: { !$0.isQuoted && $0.text == "--help" }), index > 0
    else { return nil }
    let topic: ArraySlice<Word>
    switch lookup(Array(words[..<index])) {
    case .incomplete:
      // A group, or the first word of a two-word verb: `factory --help`, `ds section --help`.
      topic = words[..<index]
    case .found(let resolution):
      let signature = resolution.command.signature
      let partial = signature.partial(words[resolution.argumentStart..<index])
      guard partial.acceptsOption, partial.passthroughStart == nil,
        signature.slot(named: "help", .flag) == nil
      else { return nil }
      topic = words[..<resolution.argumentStart]
    case .unknown:
      return nil
    }
    return [Word("help", offset: words[0].offset)]
      + topic.map { Word($0.text, offset: $0.offset) }
  }
}
