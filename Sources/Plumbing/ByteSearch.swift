import Foundation

/// Finding bytes in bytes, as the Logger's redaction does for every line it keeps: `memchr` for
/// each candidate first byte, then `memcmp` (memmem, a GNU extension, is not in Glibc's module).
public enum ByteSearch {
  /// Whether `needle` occurs in `text`, comparing UTF-8 bytes.
  public static func occurs(_ needle: String, in text: String) -> Bool {
    var text = text
    var needle = needle
    return text.withUTF8 { haystack in
      needle.withUTF8 { wanted in
        guard let base = haystack.baseAddress, let start = wanted.baseAddress else { return false }
        return firstOccurrence(start, wanted.count, in: base, count: haystack.count, from: 0) != nil
      }
    }
  }

  /// Whether any of `needles` occurs in `text`: the text's bytes are reached once for them all.
  public static func occursAny(_ needles: [StaticString], in text: String) -> Bool {
    var text = text
    return text.withUTF8 { haystack in
      guard let base = haystack.baseAddress else { return false }
      for needle in needles
      where firstOccurrence(
        needle.utf8Start, needle.utf8CodeUnitCount, in: base, count: haystack.count, from: 0)
        != nil
      {
        return true
      }
      return false
    }
  }

  /// Where `needle` first occurs in `bytes` at or after `start`.
  public static func firstOccurrence(of needle: [UInt8], in bytes: [UInt8], from start: Int)
    -> Int?
  {
    needle.withUnsafeBufferPointer { wanted in
      bytes.withUnsafeBufferPointer { haystack in
        guard let base = haystack.baseAddress, let first = wanted.baseAddress else { return nil }
        return firstOccurrence(first, wanted.count, in: base, count: haystack.count, from: start)
      }
    }
  }

  /// Where the `length` bytes at `needle` first occur in the `count` bytes at `base`, at or after
  /// `start`.
  private static func firstOccurrence(
    _ needle: UnsafePointer<UInt8>, _ length: Int, in base: UnsafePointer<UInt8>, count: Int,
    from start: Int
  ) -> Int? {
    guard length > 0, start >= 0, count - start >= length else { return nil }
    let first = Int32(needle.pointee)
    let last = base + (count - length)
    var cursor = base + start
    while cursor <= last, let found = memchr(cursor, first, last - cursor + 1) {
      let candidate = UnsafePointer(found.assumingMemoryBound(to: UInt8.self))
      if memcmp(candidate, needle, length) == 0 { return candidate - base }
      cursor = candidate + 1
    }
    return nil
  }
}
