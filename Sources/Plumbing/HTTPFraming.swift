import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Synchronization

/// The limits every response is held to, whatever server sends it.
public enum HTTPLimits {
  /// The largest response head (status line and header fields), in bytes: 80 KiB, as
  /// NIOHTTP1's own default and nginx's large buffers.
  public static let headBytes = 80 * 1024
  /// The most header fields a response may have.
  public static let headerFields = 100
  /// The body limit until `net limits` changes it: 64 MiB.
  public static let defaultBodyBytes = 64 << 20
  /// How many redirects one request follows, as curl's and requests' defaults are near.
  public static let redirects = 10

  private static let storedBodyBytes = Mutex(defaultBodyBytes)

  /// The largest body read, for every framing (Content-Length, chunked, read to the close).
  public static var bodyBytes: Int {
    get { storedBodyBytes.withLock { $0 } }
    set { storedBodyBytes.withLock { $0 = max(1, newValue) } }
  }

  /// A byte count as its limit is named: `80 KiB`, `64 MiB`, `1500 bytes`.
  public static func describe(_ bytes: Int) -> String {
    if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
    if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
    return "\(bytes) bytes"
  }
}

/// HTTP/1.1 exchanges framed by NIOHTTP1, the decoder (llhttp) that SwiftNIO's servers and
/// clients use, in an `EmbeddedChannel` on the calling thread: the request goes through
/// `HTTPRequestEncoder` (its names and values checked before, by `HTTPTransport.request`), and
/// the bytes read from the connection, plain or decrypted, through `HTTPResponseDecoder`.
///
/// Every limit of `HTTPLimits` is kept here, and an error names the limit. A response that ended
/// with bytes after it (an over-long body, a second answer nobody asked for) is whole, but not
/// `isClean`: its connection must not carry another request. A connection keeps its framer, as a
/// channel keeps its pipeline, while its responses end exactly where their Content-Length says.
public final class HTTPFramer {
  private let channel = EmbeddedChannel()
  private var bodyLimit: Int
  private var head: HTTPResponseHead?
  private var body = ByteBuffer()
  private var response: TransportResponse?
  private var wireBytes = 0
  /// The head's bytes as they arrived (at most its limit and one read).
  private var headText: [UInt8] = []
  private var headArrived = false
  private var leftover = false
  /// Whether the request was a HEAD: its answer has no body, whatever the head says.
  private var askedForHead = false
  /// Whether the request was a CONNECT: NIOHTTP1 reads its answer as having no body, and a
  /// connection that carried one is never used for another request.
  private var askedToConnect = false
  /// The body's length the head gave (0 for a HEAD's answer, 1xx, 204 and 304), when the
  /// response is framed by it; nil for a chunked body, one read to the close, or an interim
  /// answer before the real one.
  private var expectedBody: Int?
  /// The bytes given to the decoder after the head.
  private var bodyFed = 0
  /// Whether an interim answer (100 Continue) came before the real one.
  private var sawInterim = false
  /// Whether the decoder may frame another exchange: the last response ended exactly.
  ///
  /// Only on the thread that made it: an `EmbeddedChannel` belongs to its thread.
  private(set) var isReusable = false
  private let thread = Platform.currentThread()

  /// Whether the calling thread is the one that made this framer, which alone may use it.
  public var isOnItsThread: Bool { Platform.isSameThread(thread, Platform.currentThread()) }

  /// Whether any byte of a response arrived: a request that got none may be sent again.
  private(set) var receivedAny = false

  /// A framer whose responses' bodies may be at most `bodyLimit` bytes.
  public init(bodyLimit: Int = HTTPLimits.bodyBytes) throws {
    self.bodyLimit = bodyLimit
    var limits = NIOHTTPDecoderLimitConfiguration()
    limits.maxHeaderListSize = HTTPLimits.headBytes
    limits.maxHeaderFieldSize = HTTPLimits.headBytes
    // One more than the limit, so that the limit itself is checked here, with its own message.
    limits.maxHeaderFieldCount = HTTPLimits.headerFields + 1
    try channel.pipeline.syncOperations.addHTTPClientHandlers(
      leftOverBytesStrategy: .dropBytes, enableOutboundHeaderValidation: false,
      encoderConfiguration: .init(), decoderLimitConfiguration: limits)
  }

  /// Closes the framer's channel, on the thread that made it: a channel and its pipeline hold
  /// each other until it is closed, so a framer that is not kept must be finished.
  public func finish() {
    _ = try? channel.finish(acceptAlreadyClosed: true)
  }

  /// Prepares a reusable framer for the next exchange on its connection.
  public func reset(bodyLimit: Int) {
    self.bodyLimit = bodyLimit
    head = nil
    body = ByteBuffer()
    response = nil
    wireBytes = 0
    headText = []
    headArrived = false
    leftover = false
    askedForHead = false
    askedToConnect = false
    expectedBody = nil
    bodyFed = 0
    sawInterim = false
    isReusable = false
    receivedAny = false
    framedTwoWays = false
  }

  /// The request's bytes, as NIOHTTP1 encodes them; it also tells the decoder that a HEAD
  /// request's answer has no body.
  public func encode(_ requestHead: HTTPRequestHead, body: Data?) throws -> [UInt8] {
    askedForHead = requestHead.method == .HEAD
    askedToConnect = requestHead.method == .CONNECT
    do {
      // The parts go down the pipeline with one flush, and no promise or copy of the channel's
      // buffer per part, which `writeOutbound` makes.
      let pipeline = channel.pipeline.syncOperations
      pipeline.write(NIOAny(HTTPClientRequestPart.head(requestHead)), promise: nil)
      if let body, !body.isEmpty {
        pipeline.write(
          NIOAny(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
      }
      pipeline.write(NIOAny(HTTPClientRequestPart.end(nil)), promise: nil)
      pipeline.flush()
      try channel.throwIfErrorCaught()
    } catch {
      throw TransportError.invalidRequest("a header name or value holds a byte a head cannot carry")
    }
    var bytes: [UInt8] = []
    while let part = try channel.readOutbound(as: IOData.self) {
      guard case .byteBuffer(let buffer) = part else { continue }
      buffer.withUnsafeReadableBytes { bytes.append(contentsOf: $0) }
    }
    return bytes
  }

  /// Takes bytes read from the connection; the response once it is whole.
  public func feed(_ bytes: UnsafeRawBufferPointer) throws -> TransportResponse? {
    guard response == nil else {
      if !bytes.isEmpty { leftover = true }
      return response
    }
    if !bytes.isEmpty { receivedAny = true }
    guard headArrived else {
      // The head is gathered whole (within its limit) before the decoder sees it: a reply that
      // is not HTTP is then named by its first line, and a head framed two ways is mended first.
      let searchFrom = max(0, headText.count - 3)
      headText += bytes
      if let end = Self.endOfHead(in: headText, from: searchFrom) {
        guard end <= HTTPLimits.headBytes else {
          throw TransportError.headTooLarge(limit: HTTPLimits.headBytes)
        }
        headArrived = true
        let held = headText
        headText = Array(held[..<end])
        try release(held, headEnd: end)
      } else if headText.count > HTTPLimits.headBytes {
        throw TransportError.headTooLarge(limit: HTTPLimits.headBytes)
      }
      return response
    }
    try process(bytes[...])
    return response
  }

  /// Whether the response was framed both by Transfer-Encoding and by Content-Length: it was
  /// read by the first, as HTTP/1.1 says, but something between may have read it by the second,
  /// so its connection is not trusted again.
  private(set) var framedTwoWays = false

  /// Gives the decoder a whole head (the first `headEnd` bytes of `held`) and the bytes after it.
  private func release(_ held: [UInt8], headEnd: Int) throws {
    let rest = held[headEnd...]
    var head = Array(held[..<headEnd])
    let framedBoth =
      Self.hasField("transfer-encoding", in: head) && Self.hasField("content-length", in: head)
    if !framedBoth, !rest.isEmpty, !askedForHead, !askedToConnect,
      held.count <= Self.wireLimit(bodyLimit), Self.isFinalStatusLine(head)
    {
      // The usual answer: a final head that may have a body, framed one way, with body bytes in
      // the same read, within the wire's limit. The decoder takes it in one pass down the
      // pipeline; what came after the head is counted as the two passes below count it.
      try held.withUnsafeBytes { try process($0[...]) }
      bodyFed = rest.count
      return
    }
    if framedBoth {
      // NIOHTTP1 refuses such a head; curl and requests read it by Transfer-Encoding, which is
      // what HTTP/1.1 asks (RFC 9112, 6.3), and so does archsh, once.
      framedTwoWays = true
      let lines = head.split(separator: 10, omittingEmptySubsequences: false)
      head = Array(
        lines.filter { !Self.names("content-length", $0) }.joined(separator: [10]))
    }
    try head.withUnsafeBytes { try process($0[...]) }
    // From here on, what the decoder is given is the body (or what follows the response).
    bodyFed = 0
    if self.head == nil {
      // An interim answer (100 Continue) came first, and the decoder dropped it: the real head
      // follows unheld, and its framing is not counted.
      sawInterim = true
      expectedBody = nil
    }
    guard response == nil, !rest.isEmpty else {
      if !rest.isEmpty { leftover = true }
      return
    }
    try Array(rest).withUnsafeBytes { try process($0[...]) }
  }

  /// Whether `head` starts with the status line of a final answer that may have a body
  /// (`HTTP/1.1 2`…`9`, but not 204 or 304): not an interim one (1xx), which the decoder drops,
  /// and whose framing is not counted.
  private static func isFinalStatusLine(_ head: [UInt8]) -> Bool {
    guard head.count > 12, head.starts(with: "HTTP/".utf8), head[8] == UInt8(ascii: " "),
      (UInt8(ascii: "2")...UInt8(ascii: "9")).contains(head[9])
    else { return false }
    let code = head[9...11]
    return !code.elementsEqual("204".utf8) && !code.elementsEqual("304".utf8)
  }

  /// The most bytes an exchange may bring: chunk framing is small beside its data, so anything
  /// much past the body limit is not a body.
  private static func wireLimit(_ bodyLimit: Int) -> Int {
    HTTPLimits.headBytes + 2 * bodyLimit + 65_536
  }

  /// Whether a line of `head` starts with `name` (lower-case) and a colon, in any case.
  private static func hasField(_ name: StaticString, in head: [UInt8]) -> Bool {
    var start = 0
    while start < head.count {
      let end = head[start...].firstIndex(of: 10) ?? head.count
      if names(name, head[start..<end]) { return true }
      start = end + 1
    }
    return false
  }

  /// Whether `line` starts with `name` (lower-case) and a colon, in any case.
  private static func names(_ name: StaticString, _ line: ArraySlice<UInt8>) -> Bool {
    let count = name.utf8CodeUnitCount
    guard line.count > count, line[line.startIndex + count] == UInt8(ascii: ":") else {
      return false
    }
    return name.withUTF8Buffer { expected in
      for offset in 0..<count {
        var byte = line[line.startIndex + offset]
        if (65...90).contains(byte) { byte += 32 }
        if byte != expected[offset] { return false }
      }
      return true
    }
  }

  /// Where the head in `bytes` ends (after its empty line), looking from `start`.
  private static func endOfHead(in bytes: [UInt8], from start: Int) -> Int? {
    var index = start
    while index < bytes.count {
      if bytes[index] == 10 {
        if index + 1 < bytes.count, bytes[index + 1] == 10 { return index + 2 }
        if index + 2 < bytes.count, bytes[index + 1] == 13, bytes[index + 2] == 10 {
          return index + 3
        }
      }
      index += 1
    }
    return nil
  }

  private func process(_ bytes: Slice<UnsafeRawBufferPointer>) throws {
    wireBytes += bytes.count
    bodyFed += bytes.count
    if wireBytes > Self.wireLimit(bodyLimit) {
      throw TransportError.bodyTooLarge(limit: bodyLimit)
    }
    try write(ByteBuffer(bytes: UnsafeRawBufferPointer(rebasing: bytes)))
  }

  /// The server closed the connection: a body read to the close ends here; anything else
  /// unfinished was dropped.
  public func endOfStream() throws -> TransportResponse {
    if let response { return response }
    if !headArrived, !headText.isEmpty {
      headArrived = true
      try headText.withUnsafeBytes { try process($0[...]) }
      if let response { return response }
    }
    channel.pipeline.fireChannelInactive()
    try collect()
    guard let response else {
      // The head said how long the body is, and the server closed before it was all sent.
      if head != nil, let expectedBody, bodyFed < expectedBody {
        throw TransportError.shortBody(received: bodyFed, expected: expectedBody)
      }
      throw TransportError.dropped
    }
    return response
  }

  /// Whether the response ended exactly where the bytes read did.
  ///
  /// Only then is the connection in step for the next request. Asked once the response is whole.
  public var isClean: Bool {
    guard response != nil, !leftover, !askedToConnect else { return false }
    if let expectedBody {
      // The head said where the response ends: exactly there, the decoder is at the start of
      // the next message, and can frame the next exchange.
      isReusable = bodyFed == expectedBody
      return isReusable
    }
    // A decoder in the middle of another message fails at the end of the stream.
    channel.pipeline.fireChannelInactive()
    do {
      try channel.throwIfErrorCaught()
      return try channel.readInbound(as: HTTPClientResponsePart.self) == nil
    } catch {
      return false
    }
  }

  private func write(_ buffer: ByteBuffer) throws {
    do {
      // What `writeInbound` does, without the copy of the channel's buffer it returns.
      channel.pipeline.syncOperations.fireChannelRead(NIOAny(buffer))
      channel.pipeline.syncOperations.fireChannelReadComplete()
      try channel.throwIfErrorCaught()
    } catch {
      // Parts decoded before the error still count: a whole response followed by bytes that
      // are not one is whole, and not clean. A head refused by its check came before the bytes
      // that failed, and is what the error is about, as when the head goes down alone.
      do {
        try collect()
      } catch let refused as TransportError where head == nil {
        throw refused
      } catch {}
      if response != nil {
        leftover = true
        return
      }
      throw classify(error)
    }
    try collect()
  }

  private func collect() throws {
    while let part = try channel.readInbound(as: HTTPClientResponsePart.self) {
      guard response == nil else {
        leftover = true
        continue
      }
      switch part {
      case .head(let received):
        try check(received)
        head = received
        expectedBody = expectedBodyLength(received)
      case .body(var bytes):
        guard body.readableBytes + bytes.readableBytes <= bodyLimit else {
          throw TransportError.bodyTooLarge(limit: bodyLimit)
        }
        body.writeBuffer(&bytes)
      case .end:
        guard let head else { throw TransportError.dropped }
        response = TransportResponse(head: head, body: body)
      }
    }
  }

  /// The body's length `received` gives, when the response is framed by it.
  private func expectedBodyLength(_ received: HTTPResponseHead) -> Int? {
    guard !sawInterim else { return nil }
    let code = received.status.code
    if askedForHead || code / 100 == 1 || code == 204 || code == 304 { return 0 }
    guard !received.headers.contains(name: "Transfer-Encoding") else { return nil }
    guard let text = received.headers.first(name: "Content-Length") else { return nil }
    return Int(Self.trimmed(text))
  }

  /// `text` without the spaces and tabs around it (a field value's optional whitespace).
  private static func trimmed<Text: StringProtocol>(_ text: Text) -> Substring {
    let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    let start = text.firstIndex { !isBlank($0) } ?? text.endIndex
    let end = text[start...].lastIndex { !isBlank($0) }.map { text.index(after: $0) } ?? start
    return Substring(text[start..<end])
  }

  /// What a head must be to be used: a status of three digits from 100 to 599, one
  /// Content-Length, one that fits the body limit, and no more fields than the limit.
  private func check(_ received: HTTPResponseHead) throws {
    let code = Int(received.status.code)
    guard (100...599).contains(code) else {
      throw TransportError.badStatusLine(firstLine)
    }
    guard received.headers.count <= HTTPLimits.headerFields else {
      throw TransportError.tooManyFields(limit: HTTPLimits.headerFields)
    }
    let values = received.headers["Content-Length"]
    if values.count > 1 || values.first?.utf8.contains(UInt8(ascii: ",")) == true {
      let lengths = Set(
        values.flatMap { $0.split(separator: ",") }.map { String(Self.trimmed($0)) })
      if lengths.count > 1 { throw TransportError.conflictingLengths(lengths.sorted()) }
    }
    if let text = values.first, let length = Int(Self.trimmed(text)),
      length > bodyLimit, !received.headers.contains(name: "Transfer-Encoding")
    {
      throw TransportError.bodyTooLarge(limit: bodyLimit)
    }
  }

  /// A parser's error as what it means for the user.
  private func classify(_ error: Error) -> TransportError {
    if let known = error as? TransportError { return known }
    let parserError = error as? HTTPParserError
    if head == nil {
      if parserError == .headerOverflow {
        // NIOHTTP1 counts fields and bytes; the bytes are bounded before it sees them.
        return headText.count > HTTPLimits.headBytes
          ? .headTooLarge(limit: HTTPLimits.headBytes)
          : .tooManyFields(limit: HTTPLimits.headerFields)
      }
      if parserError == .unexpectedContentLength || parserError == .invalidContentLength {
        return .conflictingLengths(contentLengths)
      }
      return headText.starts(with: Array("HTTP/".utf8))
        ? .badStatusLine(firstLine) : .notHTTP(firstLine)
    }
    return .malformed(parserError.map { "\($0)" } ?? String(describing: error))
  }

  /// The reply's first line (at most 80 bytes), with every control byte escaped, for a message:
  /// `HTTP/1.1 -1 Bad`, `SSH-2.0-OpenSSH_9.2p1`.
  private var firstLine: String {
    var line = headText.prefix { $0 != 10 }.prefix(80)
    if line.last == 13 { line = line.dropLast() }
    return TerminalText.escaped(String(decoding: line, as: UTF8.self))
  }

  /// The Content-Length values of the head as it arrived, for the error that they disagree.
  private var contentLengths: [String] {
    String(decoding: headText, as: UTF8.self).split(separator: "\r\n").compactMap { line in
      let parts = line.split(separator: ":", maxSplits: 1)
      guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
      return String(Self.trimmed(parts[1]))
    }
  }
}

/// Text from a server made safe for a terminal: control bytes become escapes, so that a body can
/// set no title, colour or cursor.
public enum TerminalText {
  /// `text` with C0 controls (but newline and tab), DEL and C1 controls written as `\e`, `\a`,
  /// `\r`, `\0` or `\u{9b}`.
  public static func escaped(_ text: String, keepingLines: Bool = false) -> String {
    // A byte scan first: a C1 control's UTF-8 begins with 0xC2, and text with no control byte
    // and no 0xC2 (nearly all of it) is returned as it is, without decoding its scalars.
    let scanned = text.utf8.withContiguousStorageIfAvailable { bytes in
      bytes.contains(where: mayStartEscape)
    }
    guard scanned ?? true, text.unicodeScalars.contains(where: needsEscape) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      if keepingLines, scalar == "\n" || scalar == "\t" {
        result.unicodeScalars.append(scalar)
        continue
      }
      guard needsEscape(scalar) else {
        result.unicodeScalars.append(scalar)
        continue
      }
      switch scalar {
      case "\u{1B}": result += "\\e"
      case "\u{07}": result += "\\a"
      case "\r": result += "\\r"
      case "\n": result += "\\n"
      case "\t": result += "\\t"
      case "\0": result += "\\0"
      default: result += "\\u{" + String(scalar.value, radix: 16) + "}"
      }
    }
    return result
  }

  /// Whether a UTF-8 byte is a control byte, or may begin a C1 control (0xC2).
  private static func mayStartEscape(_ byte: UInt8) -> Bool {
    byte < 0x20 || byte == 0x7F || byte == 0xC2
  }

  private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
  }
}

/// What archsh makes of a response's bytes, as they would arrive from a connection: for the
/// response fuzzer (`make fuzz`) and tests, which reach the framing without a socket.
public enum HTTPResponseBytes {
  /// Frames `bytes`, handed over `readSize` bytes at a time and then the end of the stream, as
  /// the answer to a GET; a line that says what came out: the status, the body's size and whether
  /// the connection stayed in step, or the error's description.
  public static func describe(_ bytes: [UInt8], readSize: Int, bodyLimit: Int = 1 << 20) -> String {
    do {
      let framer = try HTTPFramer(bodyLimit: bodyLimit)
      defer { framer.finish() }
      _ = try framer.encode(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/"), body: nil)
      var offset = 0
      while offset < bytes.count {
        let end = min(bytes.count, offset + max(1, readSize))
        if let response = try bytes[offset..<end].withUnsafeBytes({ try framer.feed($0) }) {
          let rest = Array(bytes[end...])
          _ = try rest.withUnsafeBytes { try framer.feed($0) }
          return Self.line(response, clean: framer.isClean)
        }
        offset = end
      }
      return Self.line(try framer.endOfStream(), clean: false)
    } catch {
      return "error: \(error)"
    }
  }

  private static func line(_ response: TransportResponse, clean: Bool) -> String {
    "status \(response.head.status.code), \(response.body.readableBytes) body bytes"
      + (clean ? "" : ", not kept")
  }
}
