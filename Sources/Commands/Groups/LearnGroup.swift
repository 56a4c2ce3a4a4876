import Domain
import Foundation

/// `learn`: exercises that the learner solves and archsh checks.
enum LearnGroup {
  static let group = CommandGroup(
    "learn", summary: "exercises: reach a goal, and archsh checks it after every line",
    from: [.archsh],
    discussion: """
      An exercise sets up a state in a fresh in-memory workspace, as step mode does, and states \
      a goal in words. You type commands as usual; after each line archsh runs the exercise's \
      check and says when the goal is met. 'learn hint' gives the hints one at a time, and \
      'learn solution' shows one solution after a few tries (or at once with --now). Your own \
      workspace is left untouched until 'learn stop'; your progress is kept in it. The board, \
      when open, shows the goal and marks it met.

      An exercise is a file in the command language: a '# Title' line, '#: seed', '#: level', \
      '#: goal', '#: hint' (one per hint) and '#: why' lines, then the sections '## setup', \
      '## check' (commands that only read, with 'expect' lines), '## solution' and '## wrong' \
      (a plausible mistake, which must not meet the goal). A rule says how the goal may be \
      reached: '#: forbid store limits, store remove' names commands the learner may not type, \
      '#: only event send, screen select' the only ones that may change the state (commands \
      that only look, help and learn stay allowed); a line that breaks it is said at once, and \
      the attempt no longer meets the goal until 'learn reset'. An exercise with a rule has a \
      '## cheat' section, the shortcut the rule excludes. archsh's own are in \
      share/archsh/exercises beside its installed binary (Sources/Commands/Learn/Exercises in \
      its source tree); 'learn start FILE.ash' runs any other, and \
      'learn verify FILE.ash' checks one before you share it.

      Exercises are archsh's own: no seed has them. Each says whose behaviour it teaches.
      """,
    commands: [list, start, goal, hint, solution, reset, next, stop, verify])

  /// `start NAME`.
  static let exerciseArgument = Argument(
    "NAME", .name, "the exercise, or the path of an exercise file (.ash)",
    completion: { _ in ((try? ExerciseBook.all()) ?? []).map(\.name) })
  /// `solution --now`.
  static let nowFlag = Flag("now", "show it even before a few tries")
  /// `verify NAME...`.
  static let exercisesArgument = Many.arguments(
    "NAME", .name, "the exercises or exercise files (all of archsh's own when none)",
    optional: true, completion: { _ in ((try? ExerciseBook.all()) ?? []).map(\.name) })

  /// Tries after which `learn solution` shows the solution without `--now`.
  static let triesBeforeSolution = 3

  /// The learner's own session: the one an exercise was started from.
  static func home(_ invocation: Invocation) -> Session {
    invocation.context.lesson?.home ?? invocation.session
  }

  /// The exercise a word names, or an error at that word.
  static func find(_ word: Word) throws(ShellError) -> Exercise {
    do {
      return try ExerciseBook.find(word.text)
    } catch {
      throw ShellError(error.message, hint: error.hint, at: word.offset)
    }
  }

  /// The running exercise, or an error saying how to start one.
  static func lesson(_ invocation: Invocation) throws(ShellError) -> Lesson {
    guard let lesson = invocation.context.lesson else {
      throw ShellError(
        "no exercise is running", hint: "'learn list' shows them; 'learn start NAME' starts one")
    }
    return lesson
  }

  static let list = Command(
    "list", summary: "the exercises by seed, with your progress",
    discussion: """
      Each line is an exercise: a mark (✓ its goal was met, … it was tried, ▸ it is running), \
      its name, its level from 1 (easy) to 3, and its title. The progress is kept in your \
      workspace; --json gives each exercise's goal and counts too.
      """,
    examples: ["learn list"],
    result: .rows(["seed", "name", "course", "level", "title", "goal", "met", "tries", "hints"])
  ) { invocation in
    let exercises = try ExerciseBook.all()
    let progress = Lesson.progress(in: home(invocation))
    let lesson = invocation.context.lesson
    let nameWidth = exercises.map(\.name.count).max() ?? 0
    let width = invocation.context.terminalWidth()
    var lines: [String] = []
    var data: [Value] = []
    var seed: Origin?
    for exercise in exercises {
      let entry = progress[exercise.name]
      if exercise.seed != seed {
        seed = exercise.seed
        lines.append(exercise.seed.label)
      }
      let mark: String
      if exercise.name == lesson?.exercise.name {
        mark = lesson?.isMet == true ? "✓▸" : " ▸"
      } else if entry?.met == true {
        mark = "✓ "
      } else {
        mark = entry == nil ? "  " : "… "
      }
      var line =
        "  \(mark) \(exercise.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0))"
        + "  \(exercise.level)  \(exercise.title)"
        + (exercise.course == "archsh" ? "" : "  [course \(exercise.course)]")
      if let width, line.count > width { line = String(line.prefix(max(0, width - 1))) + "…" }
      lines.append(line)
      data.append(
        .object([
          Field("seed", .string(exercise.seed.rawValue)), Field("name", .string(exercise.name)),
          Field("course", .string(exercise.course)),
          Field("level", .int(exercise.level)), Field("title", .string(exercise.title)),
          Field("goal", .string(exercise.goal)), Field("met", .bool(entry?.met ?? false)),
          Field("tries", .int(entry?.tries ?? 0)), Field("hints", .int(entry?.hints ?? 0)),
        ]))
    }
    let met = exercises.filter { progress[$0.name]?.met == true }.count
    lines.append(
      "\(met) of \(exercises.count) met · ✓ met, … tried, ▸ running · 'learn start NAME' starts one"
    )
    return .view(text: lines.joined(separator: "\n"), data: .list(data))
  }

  /// The lines that introduce a running exercise.
  static func introduction(_ lesson: Lesson, width: Int?) -> Output {
    let exercise = lesson.exercise
    let hints = exercise.hints.count
    let text = """
      exercise '\(exercise.name)': \(exercise.title) · \(exercise.seed.label) · level \(exercise.level)
      goal: \(exercise.goal)
      archsh checks the goal after every line you type, in a fresh in-memory workspace (yours is \
      untouched). 'learn hint' gives a hint (\(hints)), 'learn goal' shows this again, 'learn stop' leaves.
      """
    return .sentence(
      wrappedForTerminal(text, width: width),
      [
        Field("name", .string(exercise.name)), Field("title", .string(exercise.title)),
        Field("seed", .string(exercise.seed.rawValue)), Field("level", .int(exercise.level)),
        Field("goal", .string(exercise.goal)), Field("hints", .int(hints)),
        Field("met", .bool(lesson.isMet)),
      ])
  }

  static let startFields = ["name", "title", "seed", "level", "goal", "hints", "met"]

  /// Prepares `exercise` and makes it the running one.
  static func begin(
    _ exercise: Exercise, _ invocation: Invocation, keepingCounts: Bool = false
  ) throws(ShellError) -> Output {
    let home = home(invocation)
    if let recorder = home.recorder {
      throw ShellError(
        "a recording to \(recorder.path) is running, and an exercise runs in a workspace of its own",
        hint: "'record stop' writes the recording first")
    }
    let earlier = Lesson.progress(in: home)[exercise.name]
    let current = invocation.context.lesson
    let lesson = try Lesson.prepare(
      exercise, home: home,
      tries: keepingCounts ? current?.tries ?? 0 : earlier?.tries ?? 0,
      hints: keepingCounts ? current?.hintsShown ?? 0 : 0)
    invocation.context.startLesson(lesson)
    lesson.saveProgress()
    return introduction(lesson, width: invocation.context.terminalWidth())
  }

  static let start = Command(
    "start", summary: "set up an exercise in a fresh in-memory workspace and state its goal",
    signature: Signature([exerciseArgument]),
    examples: ["learn start ds-row-add-new-section", "learn start my-exercise.ash"],
    result: .record(startFields)
  ) { invocation in
    return try begin(try find(try invocation[exerciseArgument]), invocation)
  }

  static let goal = Command(
    "goal", summary: "the running exercise's goal, whether it is met, and the hints so far",
    examples: ["learn goal"],
    result: .record([
      "name", "goal", "met", "lines", "broken_rule", "tries", "hints_shown", "hints",
    ])
  ) { invocation in
    let lesson = try lesson(invocation)
    let exercise = lesson.exercise
    // The lines of this attempt: up to the one that met the goal, or all of them so far.
    let lines = lesson.metAfter ?? lesson.attemptLines
    let state =
      lesson.isMet
      ? "met on line \(lines) of this attempt"
      : "not met yet, after \(plural(lines, "line")) of this attempt"
    var text = """
      exercise '\(exercise.name)': \(exercise.title) · \(exercise.seed.label)
      goal: \(exercise.goal)
      \(state); \(lesson.hintsShown) of \(exercise.hints.count) hints shown
      """
    if let broken = lesson.broken {
      text += "\nthis attempt broke the rule: \(broken) ('learn reset' starts again)"
    }
    for (index, hint) in exercise.hints.prefix(lesson.hintsShown).enumerated() {
      text += "\nhint \(index + 1): \(hint)"
    }
    return .sentence(
      wrappedForTerminal(text, width: invocation.context.terminalWidth()),
      [
        Field("name", .string(exercise.name)), Field("goal", .string(exercise.goal)),
        Field("met", .bool(lesson.isMet)), Field("lines", .int(lines)),
        Field("broken_rule", lesson.broken.map(Value.string) ?? .null),
        Field("tries", .int(lesson.tries)),
        Field("hints_shown", .int(lesson.hintsShown)), Field("hints", .int(exercise.hints.count)),
      ])
  }

  static let hint = Command(
    "hint", summary: "the next hint, one at a time",
    examples: ["learn hint"], result: .record(["number", "of", "hint"])
  ) { invocation in
    let lesson = try lesson(invocation)
    let hints = lesson.exercise.hints
    guard lesson.hintsShown < hints.count else {
      throw ShellError(
        hints.isEmpty
          ? "this exercise has no hints" : "no more hints: all \(hints.count) were shown",
        hint: "'learn goal' shows them again; 'learn solution' shows one solution")
    }
    lesson.hintsShown += 1
    lesson.saveProgress()
    lesson.session.board?.show(lesson.goalView)
    let number = lesson.hintsShown
    return .sentence(
      wrappedForTerminal(
        "hint \(number) of \(hints.count): \(hints[number - 1])",
        width: invocation.context.terminalWidth()),
      [
        Field("number", .int(number)), Field("of", .int(hints.count)),
        Field("hint", .string(hints[number - 1])),
      ])
  }

  static let solution = Command(
    "solution", summary: "one solution, after a few tries or when every hint was shown",
    signature: Signature([nowFlag]),
    examples: ["learn solution", "learn solution --now"], result: .record(["name", "solution"])
  ) { invocation in
    let lesson = try lesson(invocation)
    let exercise = lesson.exercise
    let ready =
      invocation[nowFlag] || lesson.isMet || lesson.tries >= triesBeforeSolution
      || lesson.hintsShown >= exercise.hints.count
    guard ready else {
      let left = triesBeforeSolution - lesson.tries
      throw ShellError(
        "try \(plural(left, "more line")) first, or take the hints ('learn hint')",
        hint: "'learn solution --now' shows it anyway")
    }
    let lines = exercise.solutionText
    return .sentence(
      "one solution to '\(exercise.name)':\n" + lines.map { "  " + $0 }.joined(separator: "\n"),
      [Field("name", .string(exercise.name)), Field("solution", .list(lines.map(Value.string)))])
  }

  static let reset = Command(
    "reset", summary: "start the running exercise again, from its setup",
    examples: ["learn reset"], result: .record(startFields)
  ) { invocation in
    let lesson = try lesson(invocation)
    return try begin(lesson.exercise, invocation, keepingCounts: true)
  }

  static let next = Command(
    "next", summary: "start the next exercise: after the running one, or the first not met",
    examples: ["learn next"], result: .record(startFields)
  ) { invocation in
    let all = try ExerciseBook.all()
    let following: Exercise?
    if let running = invocation.context.lesson?.exercise {
      let index = all.firstIndex { $0.name == running.name }
      following = index.flatMap { $0 + 1 < all.count ? all[$0 + 1] : nil }
    } else {
      let progress = Lesson.progress(in: home(invocation))
      following = all.first { progress[$0.name]?.met != true }
    }
    guard let following else {
      throw ShellError(
        invocation.context.lesson == nil
          ? "every exercise's goal is met" : "this is the last exercise",
        hint: "'learn list' shows them all; 'learn stop' goes back to your workspace")
    }
    return try begin(following, invocation)
  }

  static let stop = Command(
    "stop", summary: "leave the exercise: commands run in your own workspace again",
    examples: ["learn stop"], result: .record(["name", "met"])
  ) { invocation in
    let lesson = try lesson(invocation)
    invocation.context.endLesson()
    return .sentence(
      "left '\(lesson.exercise.name)' (\(lesson.isMet ? "met" : "not met")); commands run in your workspace again",
      [Field("name", .string(lesson.exercise.name)), Field("met", .bool(lesson.isMet))])
  }

  /// What `verify` found for one exercise.
  struct Verdict {
    var untouched: Bool
    var solution: Bool
    var wrong: Bool
    /// Whether the cheat misses the goal; nil for an exercise without a rule.
    var cheat: Bool?
    var problem: String?
    var passed: Bool { untouched && solution && wrong && cheat != false && problem == nil }
  }

  /// `learn verify --course DIR`.
  static let courseOption = Option(
    "course", .path, value: "DIR",
    "verify the course in DIR: its exercises, its walkthroughs' transcripts and its commands")

  /// A course's walkthroughs, replayed against their transcripts, and its command files, loaded:
  /// one row each, and how many failed.
  static func verifyParts(of course: Course, invocation: Invocation) -> (
    output: Output, failed: Int
  ) {
    var rows: [[Value]] = []
    var failed = 0
    for (name, path) in course.files(in: course.walkthroughs) {
      invocation.context.progress("replaying the walkthrough \(name)")
      let check = WalkthroughReplay.check(
        path: path, accept: false, apiURL: invocation.session.options.apiURL)
      var problem: String?
      if let error = check.scriptError {
        problem = error
      } else if let unreadable = check.unreadable {
        problem = unreadable
      } else if check.diff != nil {
        problem = "differs from its transcript: 'archsh --check \(path)' shows the diff"
      } else if check.status != 0 {
        problem = "a command failed that no 'expect fails' examined"
      }
      if problem != nil { failed += 1 }
      rows.append([
        .string("walkthrough"), .string(name), .string(problem == nil ? "ok" : "FAIL"),
        problem.map(Value.string) ?? .null,
      ])
    }
    invocation.context.progress(nil)
    let loaded = CourseCommands.load([course], taken: AllGroups.ownNames)
    for command in loaded.commands {
      rows.append([.string("command"), .string(command.name), .string("ok"), .null])
    }
    for problem in loaded.problems {
      failed += 1
      rows.append([.string("command"), .string("-"), .string("FAIL"), .string(problem)])
    }
    let table = Table(columns: ["kind", "name", "verdict", "problem"], rows: rows)
    return (.table(table), failed)
  }

  /// Plays an exercise three ways, each in a fresh session: the setup alone must not meet the
  /// goal, the solution must, and the wrong attempt must not.
  static func verdict(_ exercise: Exercise, home: Session) -> Verdict {
    func attempt(_ lines: [SourceLine]) -> (met: Bool, problem: String?) {
      let session = Lesson.fresh(like: home)
      defer { session.factory.shutdown() }
      let setup = Lesson.play(exercise.setup, of: exercise, in: session)
      guard setup.succeeded else { return (false, "setup: \(setup.error ?? "failed")") }
      // With a '## never' state, line by line, checking the state after each, as for the learner.
      var played = Lesson.Played(succeeded: true)
      var passedNever = false
      let steps = exercise.never.isEmpty ? [lines] : lines.map { [$0] }
      for step in steps where played.succeeded {
        played = Lesson.play(step, of: exercise, in: session)
        if !exercise.never.isEmpty, !Exercise.isBlank(step[0].text),
          Lesson.play(exercise.never, of: exercise, in: session).succeeded
        {
          passedNever = true
        }
      }
      // A line that breaks the exercise's rule makes the attempt miss the goal, as it does for
      // the learner.
      let met =
        exercise.brokenRule(in: lines) == nil && !passedNever
        && Lesson.play(exercise.check, of: exercise, in: session).succeeded
      return (met, played.succeeded ? nil : played.error)
    }
    let untouched = attempt([])
    let solution = attempt(exercise.solution)
    let wrong = attempt(exercise.wrong)
    let cheat = exercise.cheat.isEmpty ? nil : attempt(exercise.cheat)
    let selfBroken = exercise.brokenRule(in: exercise.solution).map {
      "solution: it breaks the exercise's own rule: \($0)"
    }
    // A wrong attempt that fails misses the goal for nothing: it must run, and miss it.
    return Verdict(
      untouched: untouched.problem == nil && !untouched.met,
      solution: solution.met, wrong: !wrong.met, cheat: cheat.map { !$0.met },
      problem: untouched.problem ?? selfBroken ?? solution.problem.map { "solution: \($0)" }
        ?? wrong.problem.map { "wrong attempt: \($0)" }
        ?? cheat?.problem.map { "cheat: \($0)" })
  }

  static let verify = Command(
    "verify",
    summary:
      "check exercises: the setup alone, the wrong attempt and the cheat miss the goal, the solution meets it",
    discussion: """
      With --course DIR, a teacher's course is checked as its class will meet it: each of its \
      exercises as above, each walkthrough with a .out transcript replayed in a fresh in-memory \
      workspace and compared with it (as 'archsh --check' does), and each command file loaded \
      (a name archsh or an earlier course has is refused). The status is 1 when anything \
      fails, so that 'archsh learn verify --course DIR' can run in the course's own CI.
      """,
    signature: Signature([exercisesArgument, courseOption]),
    examples: [
      "learn verify", "learn verify ds-row-add-new-section", "learn verify my-exercise.ash",
      "learn verify --course docs/example-course",
    ],
    result: .oneOf([
      .rows(["name", "seed", "untouched", "solution", "wrong", "cheat", "verdict", "problem"]),
      .sequence([
        .rows(["name", "seed", "untouched", "solution", "wrong", "cheat", "verdict", "problem"]),
        .rows(["kind", "name", "verdict", "problem"]),
      ]),
    ])
  ) { invocation in
    let words = invocation[exercisesArgument]
    var exercises: [Exercise] = []
    var course: Course?
    if let folder = invocation[courseOption] {
      guard words.isEmpty else {
        throw ShellError(
          "give exercise names or --course, not both",
          hint: "'learn verify --course DIR' verifies every exercise of the course")
      }
      do throws(ShellError) {
        course = try Courses.add(folder.text)
      } catch {
        throw ShellError(error.message, hint: error.hint, at: folder.offset)
      }
      // Its commands are added, so that its walkthroughs and exercises can use them.
      _ = AllGroups.addCourseCommands()
      exercises = try course.map(ExerciseBook.of) ?? []
    } else if words.isEmpty {
      exercises = try ExerciseBook.all()
    } else {
      for word in words { exercises.append(try find(word)) }
    }
    let home = home(invocation)
    var rows: [[Value]] = []
    var data: [Value] = []
    var failed = 0
    for (index, exercise) in exercises.enumerated() {
      invocation.context.progress(
        "verifying \(index + 1) of \(exercises.count): \(exercise.name)")
      let verdict = verdict(exercise, home: home)
      if !verdict.passed { failed += 1 }
      let fields = [
        Field("name", .string(exercise.name)), Field("seed", .string(exercise.seed.rawValue)),
        Field("untouched", .string(verdict.untouched ? "not met" : "MET")),
        Field("solution", .string(verdict.solution ? "met" : "NOT MET")),
        Field("wrong", .string(verdict.wrong ? "not met" : "MET")),
        Field("cheat", .string(verdict.cheat.map { $0 ? "not met" : "MET" } ?? "-")),
        Field("verdict", .string(verdict.passed ? "ok" : "FAIL")),
        Field("problem", verdict.problem.map(Value.string) ?? .null),
      ]
      data.append(.object(fields))
      rows.append(fields.map(\.value))
    }
    invocation.context.progress(nil)
    // The problem column is shown only when an exercise has one.
    var columns = ["name", "seed", "untouched", "solution", "wrong", "cheat", "verdict", "problem"]
    if !rows.contains(where: { $0.last != .null }) {
      columns.removeLast()
      rows = rows.map { Array($0.dropLast()) }
    }
    var output = Output.view(
      text: TextRenderer(useColor: false, maxWidth: invocation.context.terminalWidth()).render(
        .table(Table(columns: columns, rows: rows))),
      data: .list(data))
    if let course {
      let parts = verifyParts(of: course, invocation: invocation)
      failed += parts.failed
      output = .sequence([output, parts.output])
    }
    guard failed == 0 else {
      throw FailureWithOutput(
        output: output,
        error: ShellError(
          course == nil
            ? "\(plural(failed, "exercise")) of \(exercises.count) failed verification"
            : "\(plural(failed, "part")) of the course '\(course?.name ?? "")' failed verification",
          hint:
            "the setup alone, the wrong attempt and the cheat must not meet the goal, and the solution must"
        ))
    }
    return output
  }
}
