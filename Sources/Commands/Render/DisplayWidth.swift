/// How many terminal columns text takes: what every drawing measures, pads, cuts and wraps by.
///
/// A character is as wide as a terminal shows it, not one per scalar or per character: East Asian
/// wide and fullwidth characters (CJK, kana, Hangul, fullwidth forms) and emoji shown as emoji
/// take 2 columns; combining marks, format characters such as the zero-width joiner, and controls
/// take none. The table is fixed, not the C library's `wcwidth`, so the width of a drawing never
/// depends on the locale archsh runs in.
enum DisplayWidth {
  /// The columns `text` takes.
  static func of(_ text: some StringProtocol) -> Int {
    // Most text is ASCII, where each printable byte is one column.
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
    return text.reduce(0) { $0 + of($1) }
  }

  /// The columns one character (a grapheme: a base with its marks, or an emoji sequence) takes.
  static func of(_ character: Character) -> Int {
    let scalars = character.unicodeScalars
    if scalars.contains("\u{FE0F}"), scalars.first?.properties.isEmoji == true { return 2 }
    return scalars.reduce(0) { max($0, of($1)) }
  }

  /// The columns one scalar takes on its own.
  static func of(_ scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    if value >= 0x20 && value < 0x7F { return 1 }
    if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    // Hangul vowels and final consonants join the syllable their initial consonant starts.
    if (0x1160...0x11FF).contains(value) { return 0 }
    if scalar.properties.isEmojiPresentation { return 2 }
    return wideRanges.contains { $0.contains(value) } ? 2 : 1
  }

  /// Unicode's East Asian Wide and Fullwidth characters, apart from emoji, which are found by
  /// their presentation.
  private static let wideRanges: [ClosedRange<UInt32>] = [
    0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x3247, 0x3250...0x4DBF,
    0x4E00...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
    0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x1B2FF, 0x1F200...0x1F2FF,
    0x20000...0x3FFFD,
  ]
}

extension StringProtocol {
  /// The columns the text takes on a terminal (see `DisplayWidth`).
  var displayWidth: Int { DisplayWidth.of(self) }

  /// The text followed by spaces up to `width` columns.
  func padded(toWidth width: Int) -> String {
    String(self) + String(repeating: " ", count: Swift.max(0, width - displayWidth))
  }

  /// The text cut to at most `width` columns, ending with `…` when it was longer.
  func cut(toWidth width: Int) -> String {
    guard displayWidth > width else { return String(self) }
    guard width > 0 else { return "" }
    return String(prefix(columns: width - 1)) + "…"
  }

  /// The longest start of the text that fits in `columns`; a wide character that would straddle
  /// the edge is left out.
  func prefix(columns: Int) -> SubSequence {
    var used = 0
    var end = startIndex
    for index in indices {
      let width = DisplayWidth.of(self[index])
      if used + width > columns { break }
      used += width
      end = self.index(after: index)
    }
    return self[startIndex..<end]
  }

  /// The text as lines of at most `width` columns, broken between words where it can be and
  /// inside a word longer than a line; each line break in the text starts a new line too.
  func wrapped(toWidth width: Int) -> [String] {
    let width = Swift.max(1, width)
    var lines: [String] = []
    for paragraph in split(separator: "\n", omittingEmptySubsequences: false) {
      var line = ""
      for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
        var word = Substring(word)
        let gap = line.isEmpty ? 0 : 1
        if line.displayWidth + gap + word.displayWidth <= width {
          line += (line.isEmpty ? "" : " ") + word
          continue
        }
        if !line.isEmpty { lines.append(line) }
        line = ""
        while word.displayWidth > width {
          var piece = word.prefix(columns: width)
          // A character wider than the whole line still has to go somewhere.
          if piece.isEmpty { piece = word.prefix(1) }
          lines.append(String(piece))
          word = word[piece.endIndex...]
        }
        line = String(word)
      }
      lines.append(line)
    }
    return lines
  }
}
