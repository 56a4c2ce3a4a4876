import Foundation

/// A walkthrough's transcript: the whole output of running it with `--echo`, results and errors in
/// the order a terminal shows them, compared with the checked-in `NAME.out`.
///
/// One piece of code serves `archsh --check` and `--accept`, `record stop`, and the test suite's
/// transcript tests (which run `archsh --check`, or `--accept` under `ARCHSH_RECORD=1`).
public enum Transcript {
  /// `text` with its volatile values made constant, so two runs compare equal.
  ///
  /// Durations become `#.## ms` (and `"milliseconds":#` in JSON), clock times `<time>`, `<clock>` and `<http-date>`, the embedded
  /// API's or the board's port `127.0.0.1:PORT` (a Linux ephemeral port has five digits, so column
  /// widths stay the same), a token redacted to its last four hex digits `…XXXX`, and the rule
  /// under a table's last column (as wide as its longest value, which may hold a duration) `---`.
  public static func normalize(_ text: String) -> String {
    var text = text
    for (pattern, replacement) in rules {
      text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
    }
    return text
  }

  private static let rules: [(String, String)] = [
    (#"\d+\.\d+ (ms|s)\b"#, "#.## $1"),
    (#""milliseconds":[0-9.e+-]+"#, #""milliseconds":#"#),
    (#"127\.0\.0\.1:\d{5}\b"#, "127.0.0.1:PORT"),
    (#"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"#, "<time>"),
    (#"\b\d\d:\d\d:\d\d\.\d{3}\b"#, "<clock>"),
    (#"[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT"#, "<http-date>"),
    (#"…[0-9a-f]{4}\b"#, "…XXXX"),
    (#"token=[0-9a-f]{32}\b"#, "token=<token>"),
    (#"(?m)-{3,}$"#, "---"),
  ]

  /// The first line where two normalised transcripts differ: its 1-based number, and each side's
  /// line there (nil past that side's end); nil when they are equal.
  public static func firstDifference(expected: String, actual: String)
    -> (line: Int, expected: String?, actual: String?)?
  {
    let old = lines(normalize(expected))
    let new = lines(normalize(actual))
    for index in 0..<max(old.count, new.count) {
      let left = index < old.count ? old[index] : nil
      let right = index < new.count ? new[index] : nil
      if left != right { return (index + 1, left, right) }
    }
    return nil
  }

  /// A unified diff (`diff -u` with three lines of context) from `expected` to `actual`, both
  /// normalised; nil when they are equal.
  public static func unifiedDiff(
    expected: String, actual: String, expectedName: String, actualName: String
  ) -> String? {
    let old = lines(normalize(expected))
    let new = lines(normalize(actual))
    guard old != new else { return nil }
    let edits = LineDiff.edits(old, new)
    var text = "--- \(expectedName)\n+++ \(actualName)\n"
    for hunk in LineDiff.hunks(edits, context: 3) {
      let oldStart = hunk.first { $0.old != nil }?.old ?? 0
      let newStart = hunk.first { $0.new != nil }?.new ?? 0
      let oldCount = hunk.filter { $0.kind != .insert }.count
      let newCount = hunk.filter { $0.kind != .delete }.count
      text +=
        "@@ -\(oldCount == 0 ? oldStart : oldStart + 1),\(oldCount) "
        + "+\(newCount == 0 ? newStart : newStart + 1),\(newCount) @@\n"
      for edit in hunk {
        switch edit.kind {
        case .same: text += " " + old[edit.old ?? 0] + "\n"
        case .delete: text += "-" + old[edit.old ?? 0] + "\n"
        case .insert: text += "+" + new[edit.new ?? 0] + "\n"
        }
      }
    }
    return text
  }

  /// The lines of a transcript; a final newline ends the last line rather than starting another.
  static func lines(_ text: String) -> [String] {
    var result = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if result.last == "" { result.removeLast() }
    return result
  }
}

/// The shortest edit script between two lists of lines, by the longest common subsequence.
enum LineDiff {
  enum Kind { case same, delete, insert }

  /// One line of the edit script, with its index on each side it belongs to.
  struct Edit {
    var kind: Kind
    var old: Int?
    var new: Int?
  }

  /// The edits that turn `old` into `new`: deletions before insertions within a change.
  static func edits(_ old: [String], _ new: [String]) -> [Edit] {
    // The common head and tail are matched directly; the table covers only the middle.
    var head = 0
    while head < old.count, head < new.count, old[head] == new[head] { head += 1 }
    var tail = 0
    while tail < old.count - head, tail < new.count - head,
      old[old.count - 1 - tail] == new[new.count - 1 - tail]
    {
      tail += 1
    }
    let oldMiddle = Array(old[head..<(old.count - tail)])
    let newMiddle = Array(new[head..<(new.count - tail)])
    let rows = oldMiddle.count
    let columns = newMiddle.count
    // lengths[i][j]: the longest common subsequence of oldMiddle[i...] and newMiddle[j...].
    var lengths = [Int32](repeating: 0, count: (rows + 1) * (columns + 1))
    if rows > 0, columns > 0 {
      for i in stride(from: rows - 1, through: 0, by: -1) {
        for j in stride(from: columns - 1, through: 0, by: -1) {
          lengths[i * (columns + 1) + j] =
            oldMiddle[i] == newMiddle[j]
            ? lengths[(i + 1) * (columns + 1) + j + 1] + 1
            : max(lengths[(i + 1) * (columns + 1) + j], lengths[i * (columns + 1) + j + 1])
        }
      }
    }
    var result = (0..<head).map { Edit(kind: .same, old: $0, new: $0) }
    var i = 0
    var j = 0
    while i < rows || j < columns {
      if i < rows, j < columns, oldMiddle[i] == newMiddle[j] {
        result.append(Edit(kind: .same, old: head + i, new: head + j))
        i += 1
        j += 1
      } else if j == columns
        || (i < rows && lengths[(i + 1) * (columns + 1) + j] >= lengths[i * (columns + 1) + j + 1])
      {
        result.append(Edit(kind: .delete, old: head + i, new: nil))
        i += 1
      } else {
        result.append(Edit(kind: .insert, old: nil, new: head + j))
        j += 1
      }
    }
    for offset in 0..<tail {
      result.append(
        Edit(kind: .same, old: old.count - tail + offset, new: new.count - tail + offset))
    }
    return result
  }

  /// The changes with `context` unchanged lines around each; changes closer than twice the
  /// context share a hunk.
  static func hunks(_ edits: [Edit], context: Int) -> [[Edit]] {
    let changed = edits.indices.filter { edits[$0].kind != .same }
    guard !changed.isEmpty else { return [] }
    var ranges: [ClosedRange<Int>] = []
    for index in changed {
      let range = max(0, index - context)...min(edits.count - 1, index + context)
      if let last = ranges.last, range.lowerBound <= last.upperBound + 1 {
        ranges[ranges.count - 1] = last.lowerBound...range.upperBound
      } else {
        ranges.append(range)
      }
    }
    return ranges.map { Array(edits[$0]) }
  }
}
