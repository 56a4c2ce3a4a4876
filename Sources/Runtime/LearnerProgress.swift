import Foundation
import GRDB

/// What the learner has done with each exercise (`learn list`), kept in the workspace so that it
/// outlives the in-memory workspace an exercise runs in.
///
/// archsh's own: no seed has exercises.
public struct LearnerProgress: Sendable {
  /// One exercise's progress.
  public struct Entry: Sendable, Equatable {
    /// The exercise's name.
    public var exercise: String
    /// Commands typed while it ran, over every start.
    public var tries: Int
    /// Hints shown, the most over every start.
    public var hints: Int
    /// Whether its goal was met once; it stays met.
    public var met: Bool

    /// Creates an entry.
    public init(exercise: String, tries: Int = 0, hints: Int = 0, met: Bool = false) {
      self.exercise = exercise
      self.tries = tries
      self.hints = hints
      self.met = met
    }
  }

  private let workspace: Workspace

  /// The progress kept in `workspace`.
  public init(workspace: Workspace) {
    self.workspace = workspace
  }

  /// Every exercise with progress, by name.
  public func all() throws -> [String: Entry] {
    try workspace.read { db in
      var entries: [String: Entry] = [:]
      for row in try Row.fetchAll(
        db, sql: "SELECT exercise, tries, hints, met FROM learner_progress")
      {
        let table = "learner_progress"
        let entry = try Entry(
          exercise: row.stored("exercise", of: table), tries: row.storedCount("tries", of: table),
          hints: row.storedCount("hints", of: table), met: row.stored("met", of: table))
        entries[entry.exercise] = entry
      }
      return entries
    }
  }

  /// Records `entry`: a goal once met stays met, and the hints are the most ever shown.
  public func save(_ entry: Entry) throws {
    try workspace.write("recording the exercise's progress") { db in
      try db.execute(
        sql: """
          INSERT INTO learner_progress (exercise, tries, hints, met, updated_at)
          VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (exercise) DO UPDATE SET
            tries = excluded.tries, hints = max(hints, excluded.hints),
            met = max(met, excluded.met), updated_at = excluded.updated_at
          """,
        arguments: [
          entry.exercise, entry.tries, entry.hints, entry.met, Date().timeIntervalSince1970,
        ])
    }
  }

  /// The `learner_progress` table.
  package static let migration = Migration(
    identifier: "v14-learner-progress", foreignKeyChecks: .immediate
  ) { db in
    try db.execute(
      sql: """
        CREATE TABLE learner_progress (
          exercise TEXT PRIMARY KEY,
          tries INTEGER NOT NULL,
          hints INTEGER NOT NULL,
          met INTEGER NOT NULL,
          updated_at REAL NOT NULL
        );
        """)
  }
}
