import Foundation

/// Byte counts, durations and dates as people type them: `50MB`, `30d`, `2026-11-01`.
public enum Quantities {
  /// Parses `1024`, `64KB`, `50MB`, `1.5GB` (K, M and G are powers of 1024; B is optional).
  public static func bytes(_ text: String) -> Int? {
    let lowered = text.lowercased()
    let digits = lowered.prefix { $0.isNumber || $0 == "." }
    guard let number = Double(digits), number >= 0 else { return nil }
    let unit = lowered.dropFirst(digits.count).trimmingCharacters(in: .whitespaces)
    let scale: Double
    switch unit {
    case "", "b": scale = 1
    case "k", "kb", "kib": scale = 1024
    case "m", "mb", "mib": scale = 1024 * 1024
    case "g", "gb", "gib": scale = 1024 * 1024 * 1024
    default: return nil
    }
    let value = number * scale
    // A terabyte is more than any store here will hold; larger numbers are typos.
    guard value <= 1024 * 1024 * 1024 * 1024 else { return nil }
    return Int(value.rounded())
  }

  /// Parses a duration such as `90s`, `15m`, `12h`, `30d`, `2w`, `1d12h` or `0` into seconds.
  public static func duration(_ text: String) -> Double? {
    if text == "0" { return 0 }
    var total = 0.0
    var number = ""
    var rest = Substring(text.lowercased())
    guard !rest.isEmpty else { return nil }
    while !rest.isEmpty {
      number = String(rest.prefix { $0.isNumber || $0 == "." })
      rest = rest.dropFirst(number.count)
      let unit = rest.prefix { $0.isLetter }
      rest = rest.dropFirst(unit.count)
      guard let value = Double(number) else { return nil }
      switch unit {
      case "ms": total += value / 1000
      case "s": total += value
      case "m": total += value * 60
      case "h": total += value * 3600
      case "d": total += value * 86400
      case "w": total += value * 7 * 86400
      default: return nil
      }
    }
    // A century is longer than any age limit means; larger numbers are typos.
    guard total.isFinite, total <= 100 * 365.25 * 86400 else { return nil }
    return total
  }

  /// A duration for people: `30d`, `12h`, `90s`, or `none` for 0.
  public static func format(duration seconds: Double) -> String {
    if seconds <= 0 { return "none" }
    guard seconds.isFinite, seconds < 1e15 else { return "\(seconds)s" }
    for (unit, size) in [("w", 604_800.0), ("d", 86400.0), ("h", 3600.0), ("m", 60.0), ("s", 1.0)]
    where seconds >= size && seconds.truncatingRemainder(dividingBy: size) == 0 {
      return "\(Int(seconds / size))\(unit)"
    }
    let milliseconds = seconds * 1000
    if seconds < 1, milliseconds == milliseconds.rounded() { return "\(Int(milliseconds))ms" }
    return String(format: "%.3gs", seconds)
  }

  /// Parses `2026-11-01`, `2026-11-01T12:30:00` or `2026-11-01T12:30:00Z`, in UTC.
  public static func date(_ text: String) -> Date? {
    let parts = text.split(whereSeparator: { "-T:Z".contains($0) }).map { Int($0) }
    guard parts.allSatisfy({ $0 != nil }), parts.count == 3 || parts.count == 6 else { return nil }
    let numbers = parts.compactMap { $0 }
    var components = DateComponents()
    components.year = numbers[0]
    components.month = numbers[1]
    components.day = numbers[2]
    if numbers.count == 6 {
      components.hour = numbers[3]
      components.minute = numbers[4]
      components.second = numbers[5]
    }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
    guard (1...12).contains(numbers[1]), (1...31).contains(numbers[2]) else { return nil }
    return calendar.date(from: components)
  }

  /// A time for people and JSON: `2026-11-21T19:45:02Z`.
  public static func format(date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
    let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    func two(_ value: Int?) -> String {
      let value = value ?? 0
      return value < 10 ? "0\(value)" : String(value)
    }
    return
      "\(c.year ?? 0)-\(two(c.month))-\(two(c.day))T\(two(c.hour)):\(two(c.minute)):\(two(c.second))Z"
  }
}
