import Foundation
import Plumbing

extension DemoAPI {
  /// The largest body `/echo` takes, and the largest the server reads.
  ///
  /// A larger one is answered 413. What one request may make the server hold is the body, and
  /// the echo made of it, a few times its size.
  static let echoBodyLimit = 1 << 20

  /// The methods `/echo` answers: every method the seed's session manager sends.
  static let echoMethods: Set<String> = ["HEAD", "GET", "PUT", "POST", "PATCH", "DELETE"]
}

/// What one request carried, as `/echo` answers it.
struct Echo {
  /// One multipart part.
  struct Part {
    var name: String
    var filename: String?
    var contentType: String?
    var bytes: Int
  }

  var method: String
  var path: String
  var headers: [(String, String)]
  var query: [(String, String)]
  var parameters: [(String, String)] = []
  var parts: [Part] = []

  init(request: ServerRequest) {
    let body = request.body
    method = request.method
    let basePath = request.header(DemoAPI.basePathHeader)
    path = (basePath ?? "") + request.path
    headers = request.headers.compactMap { field in
      let name = field.name
      guard name != DemoAPI.basePathHeader else { return nil }
      // Credentials and session cookies come back redacted, as archsh's own logs show them.
      let secret = ["authorization", "proxy-authorization", "cookie"].contains(name)
      return (name, secret ? Self.redacted(field.value) : field.value)
    }
    query = request.query
    let contentType = request.header("content-type") ?? ""
    if let boundary = Self.boundary(contentType) {
      parts = Self.multipart(body, boundary: boundary)
    } else if !body.isEmpty {
      let text = String(decoding: body, as: UTF8.self)
      parameters = DemoAPI.formFields(text, contentType: contentType).sorted { $0.key < $1.key }
    }
  }

  /// A credential with only its scheme and last four characters.
  static func redacted(_ value: String) -> String {
    let parts = value.split(separator: " ", maxSplits: 1)
    let secret = parts.count == 2 ? String(parts[1]) : value
    let scheme = parts.count == 2 ? String(parts[0]) + " " : ""
    return scheme + "…" + String(secret.suffix(4))
  }

  /// The boundary of a `multipart/form-data` content type.
  static func boundary(_ contentType: String) -> String? {
    guard contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
    for parameter in contentType.split(separator: ";").dropFirst() {
      let pair = parameter.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
      if pair.count == 2, pair[0].lowercased() == "boundary" {
        return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
      }
    }
    return nil
  }

  /// The parts of a multipart body: each one's name, filename, type and size.
  static func multipart(_ body: [UInt8], boundary: String) -> [Part] {
    let delimiter = Array("--\(boundary)".utf8)
    var starts: [Int] = []
    var index = 0
    while index + delimiter.count <= body.count {
      if body[index] == delimiter[0], Array(body[index..<(index + delimiter.count)]) == delimiter {
        starts.append(index)
        index += delimiter.count
      } else {
        index += 1
      }
    }
    var parts: [Part] = []
    for (start, end) in zip(starts, starts.dropFirst()) {
      var content = Array(body[(start + delimiter.count)..<end])
      if content.starts(with: [13, 10]) { content.removeFirst(2) }
      if content.suffix(2) == [13, 10] { content.removeLast(2) }
      guard let split = headerEnd(content) else { continue }
      let head = String(decoding: content[..<split], as: UTF8.self)
      var part = Part(name: "", filename: nil, contentType: nil, bytes: content.count - split - 4)
      for line in head.components(separatedBy: "\r\n") {
        let lower = line.lowercased()
        if lower.hasPrefix("content-type:") {
          part.contentType = line.dropFirst(13).trimmingCharacters(in: .whitespaces)
        } else if lower.hasPrefix("content-disposition:") {
          part.name = attribute("name", in: line) ?? ""
          part.filename = attribute("filename", in: line)
        }
      }
      parts.append(part)
    }
    return parts
  }

  private static func headerEnd(_ bytes: [UInt8]) -> Int? {
    guard bytes.count >= 4 else { return nil }
    for index in 0...(bytes.count - 4)
    where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13
      && bytes[index + 3] == 10
    {
      return index
    }
    return nil
  }

  private static func attribute(_ name: String, in line: String) -> String? {
    for item in line.split(separator: ";").dropFirst() {
      let pair = item.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
      if pair.count == 2, pair[0] == name {
        return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
      }
    }
    return nil
  }

  /// The echo as the convention's object.
  var json: String {
    func object(_ pairs: [(String, String)]) -> String {
      "{" + pairs.map { "\(Envelope.quote($0.0)):\(Envelope.quote($0.1))" }.joined(separator: ",")
        + "}"
    }
    let partList = parts.map { part in
      """
      {"type":"part","name":\(Envelope.quote(part.name)),\
      "filename":\(part.filename.map(Envelope.quote) ?? "null"),\
      "content_type":\(part.contentType.map(Envelope.quote) ?? "null"),"bytes":\(part.bytes)}
      """
    }
    return """
      {"type":"echo","method":\(Envelope.quote(method)),"path":\(Envelope.quote(path)),\
      "headers":\(object(headers)),"query":\(object(query)),"parameters":\(object(parameters)),\
      "parts":[\(partList.joined(separator: ","))]}
      """
  }
}
