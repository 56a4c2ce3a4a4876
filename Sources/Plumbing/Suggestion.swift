/// "Did you mean" suggestions, shared by every layer that rejects a name.
public enum Suggestion {
  /// The candidate closest to `word` by edit distance, if it is close enough to be a plausible typo.
  ///
  /// Close enough means at most a third of the longer word's length, and at least one edit. A
  /// candidate that starts with `word` wins outright, so `sto` suggests `store`.
  public static func nearest(to word: String, among candidates: [String]) -> String? {
    guard !word.isEmpty else { return nil }
    let lowered = word.lowercased()
    if let prefixed = candidates.filter({ $0.lowercased().hasPrefix(lowered) }).min(by: {
      $0.count < $1.count
    }), prefixed.lowercased() != lowered {
      return prefixed
    }
    var best: (name: String, distance: Int)?
    let scalars = Array(lowered.unicodeScalars)
    for candidate in candidates {
      let other = Array(candidate.lowercased().unicodeScalars)
      let limit = max(1, max(scalars.count, other.count) / 3)
      // The distance is at least the difference in length: a long word is not compared with
      // every short name, which would cost its length times theirs for nothing.
      guard abs(scalars.count - other.count) <= limit else { continue }
      let distance = editDistance(scalars, other)
      guard distance <= limit else { continue }
      if best == nil || distance < (best?.distance ?? Int.max) {
        best = (candidate, distance)
      }
    }
    return best?.name
  }

  /// Damerau-Levenshtein distance (optimal string alignment): a swap of two neighbours is one edit.
  public static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous2 = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          value = min(value, previous2[j - 2] + 1)
        }
        current[j] = value
      }
      (previous2, previous, current) = (previous, current, previous2)
    }
    return previous[b.count]
  }
}
