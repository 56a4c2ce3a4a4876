/// What a failed command does to the run: the prompt shrugs it off; a script holds it until the
/// next command, which may be an `expect` that examines it, and otherwise stops.
///
/// `--keep-going` lets a script run on (the exit status is still 1). `--atomic` follows the same
/// rules: a failure that an `expect` examines is not a failure of the script, and the run rolls
/// back only when the script stops.
struct FailurePolicy {
  /// A failed script command that no `expect` has examined yet.
  private(set) var isPending = false
  /// Whether any command failed in a way that makes the exit status 1.
  private(set) var hadFailure = false

  /// A command failed; returns whether the run goes on.
  mutating func failed(interactive: Bool, isExpectation: Bool, settings: InterpreterSettings)
    -> Bool
  {
    guard !interactive else { return true }
    if isExpectation {
      isPending = false
      hadFailure = true
      return settings.keepGoing
    }
    isPending = true
    return true
  }

  /// An `expect` ran and passed: the failure it examined is excused.
  mutating func examined() { isPending = false }

  /// Settles a failure that no `expect` examined; returns true when the run must stop.
  ///
  /// Inside a sourced file that stops, the failure is left to the including file, which may still
  /// examine it with `expect`; so only the outermost frame, or keep-going, records it.
  mutating func settle(outermost: Bool, keepGoing: Bool) -> Bool {
    guard isPending else { return false }
    if keepGoing || outermost {
      isPending = false
      hadFailure = true
    }
    return !keepGoing
  }

  /// A new line at the prompt: an earlier failure there is forgotten.
  mutating func forgetPending() { isPending = false }

  /// Forgets every failure, so that an rc file's error does not decide the interactive session's
  /// exit status.
  mutating func reset() {
    isPending = false
    hadFailure = false
  }

  /// The end of the outermost run: a failure still pending counts, and stops a script that would
  /// otherwise have finished.
  mutating func finish(_ outcome: RunOutcome, keepGoing: Bool) -> RunOutcome {
    guard isPending else { return outcome }
    isPending = false
    hadFailure = true
    if case .finished = outcome, !keepGoing { return .stopped }
    return outcome
  }

  /// The status `exit` without a number gives: 1 after a script failure.
  func exitStatus(interactive: Bool) -> Int32 {
    !interactive && (hadFailure || isPending) ? 1 : 0
  }
}
