import DemoAPI
import Domain
import Foundation

/// Completion providers that more than one group offers.
enum Completions {
  /// Ids of cached products and of the last listing.
  static let productIDs: CompletionProvider = { context in
    var ids = Set(context.session.listedProductIDs)
    if let catalog = try? context.session.factory.api.productCatalog() {
      ids.formUnion(catalog.cachedIDs())
    }
    return ids.sorted().map(String.init).filter { $0.hasPrefix(context.prefix) }
  }

  /// The request paths to offer.
  ///
  /// Those this session has requested with the command's method (from the network log, with
  /// their queries, relative to `--api`'s path), the embedded demo API's routes unless `--api`
  /// names another server, and `/products/ID` for the products completion knows. A request to
  /// another server is offered as its full URL. Completing never starts the API.
  static let requestPaths: CompletionProvider = { context in
    let session = context.session
    // `net get PATH` sends GET; `session request METHOD PATH` the method typed before it.
    let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]
    let method =
      context.previousWords.first == "net"
      ? "GET"
      : context.previousWords.dropFirst(2).map { $0.uppercased() }.first(where: methods.contains)
    let api = session.options.apiURL.flatMap { URLComponents(string: $0) }
    let basePath =
      api.map {
        $0.percentEncodedPath.hasSuffix("/")
          ? String($0.percentEncodedPath.dropLast()) : $0.percentEncodedPath
      } ?? ""
    var paths = Set<String>()
    for entry in session.factory.api.networkLog where entry.method == method {
      guard let url = URLComponents(string: entry.url), !url.percentEncodedPath.isEmpty else {
        continue
      }
      let query = url.percentEncodedQuery.map { "?" + $0 } ?? ""
      let sameServer =
        api.map { $0.host == url.host && $0.port == url.port }
        ?? (url.host == "127.0.0.1" || url.host == "localhost")
      if sameServer, url.percentEncodedPath.hasPrefix(basePath + "/") {
        paths.insert(String(url.percentEncodedPath.dropFirst(basePath.count)) + query)
      } else {
        paths.insert(entry.url)
      }
    }
    if api == nil { paths.formUnion(DemoAPI.examplePaths) }
    if context.prefix.hasPrefix("/products/") {
      paths.formUnion(productIDs(context.withPrefix("")).map { "/products/" + $0 })
    }
    return paths.filter { $0.hasPrefix(context.prefix) }.sorted().prefix(500).map { $0 }
  }

  /// Where the path starts in a word that refers to a file: after a leading `@` (`@FILE`), or
  /// after `=@` (`NAME=@PATH`); nil for any other word, and for `@@`, which is text.
  static func fileReference(in word: String) -> String.Index? {
    if word.hasPrefix("@") {
      return word.hasPrefix("@@") ? nil : word.index(after: word.startIndex)
    }
    return word.range(of: "=@").map(\.upperBound)
  }

  /// The files and directories whose path starts with `prefix`; a directory ends in `/`.
  ///
  /// A relative path starts in the current directory, since completion serves the prompt. Hidden
  /// files come only when the name typed so far starts with `.`; at most 500.
  static func files(matching prefix: String) -> [String] {
    let slash = prefix.lastIndex(of: "/")
    let folder = slash.map { String(prefix[...$0]) } ?? ""
    let start = slash.map { String(prefix[prefix.index(after: $0)...]) } ?? prefix
    let manager = FileManager.default
    guard let names = try? manager.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)
    else { return [] }
    return names.filter { $0.hasPrefix(start) && (start.hasPrefix(".") || !$0.hasPrefix(".")) }
      .sorted().prefix(500).map { name in
        var isDirectory: ObjCBool = false
        _ = manager.fileExists(atPath: folder + name, isDirectory: &isDirectory)
        return folder + name + (isDirectory.boolValue ? "/" : "")
      }
  }
}
