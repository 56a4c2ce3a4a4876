import Domain
import Foundation
import TestSupport
import Testing

@testable import Commands

@Suite("Completer")
struct CompleterTests {
  private let session = Session()
  private var completer: Completer { Completer(session: session) }

  @Test("the first word completes builtins and groups")
  func firstWord() {
    #expect(completer.complete("he") == ["help"])
    #expect(completer.complete("t") == ["time", "trace"])
    #expect(completer.complete("echo a; fa") == ["factory"])
  }

  @Test("the second word completes a group's verbs")
  func verbs() {
    #expect(completer.complete("trace ") == ["export", "off", "on", "show"])
    #expect(completer.complete("trace o") == ["off", "on"])
  }

  @Test("options, choice values and live values complete from the declarations")
  func arguments() {
    #expect(
      completer.complete("trace export --") == [
        "--force", "--format", "--help", "--last", "--no-timings",
      ])
    #expect(completer.complete("trace export --format ") == ["mermaid", "svg"])
    #expect(completer.complete("output ") == ["json", "table"])
    #expect(
      completer.complete("factory get ") == ApplicationFactory.components.map(\.name).sorted())
    #expect(
      completer.complete("factory get app") == [
        "appConfigurator", "appDelegate", "appDependencies", "appStateStore",
      ])
    #expect(completer.complete("help ").contains("factory"))
    #expect(completer.complete("help trace e") == ["export"])
    #expect(completer.complete("help ds sec") == ["section"])
    #expect(
      completer.complete("help ds section ") == ["add", "clear", "data", "remove", "set", "update"])
    #expect(completer.complete("help ds section s") == ["set"])
    #expect(completer.complete("help trace export ") == [])
    #expect(completer.complete("time factory g") == ["get", "graph"])
    #expect(completer.complete("set x y --") == ["--help", "--secret"])
    #expect(completer.complete("set x y --secret --") == ["--help"])
  }

  @Test("store names and keys complete live from the workspace, by prefix")
  func storeValues() throws {
    let harness = Harness()
    harness.script([
      "store persist bookmarks home a", "store persist bookmarks help b",
      "store persist bookmarks work c",
    ])
    let completer = Completer(session: harness.session)
    #expect(completer.complete("store retrieve bo") == ["bookmarks"])
    #expect(completer.complete("store retrieve bookmarks h") == ["help", "home"])
    #expect(completer.complete("store retrieve bookmarks home w") == ["work"])
    #expect(completer.complete("store limits bookmarks --ttl ") == ["off", "on"])
    #expect(completer.complete("store keys nosuchstore ") == [])
  }

  @Test("request paths complete from the demo API's routes, the network log and known products")
  func requestPaths() {
    #expect(completer.complete("net get /pro") == ["/products", "/products/1"])
    #expect(
      completer.complete("session request GET /users/me/") == [
        "/users/me/locations", "/users/me/trips",
      ])
    session.listedProductIDs = [7, 42]
    #expect(completer.complete("net get /products/4") == ["/products/42"])
    let harness = Harness()
    harness.script(["net get '/products?offset=0&limit=2'"])
    #expect(
      Completer(session: harness.session).complete("net get '/products?") == [
        "/products?offset=0&limit=2"
      ])
    // Another server's routes are not the demo API's: only what was requested is offered.
    let other = Session(options: SessionOptions(apiURL: "http://127.0.0.1:9"))
    #expect(Completer(session: other).complete("net get /") == [])
  }

  @Test("$ completes variable names")
  func variables() {
    session.variables["product"] = Variable("42")
    #expect(completer.complete("echo $pr") == ["$product"])
    #expect(completer.complete("unset p") == ["product"])
  }

  @Test("completion reads the line with the interpreter's lexer: quotes, separators, time")
  func lexedLikeExecution() {
    #expect(completer.complete("echo 'a;b' ; tr") == ["trace"])
    #expect(completer.complete("echo a;") == completer.complete(""))
    #expect(completer.complete("output 'js") == ["json"])
    #expect(completer.complete("output \"ta") == ["table"])
    #expect(completer.complete("time time factory g") == ["get", "graph"])
    #expect(completer.complete("time ") == completer.complete(""))
    #expect(completer.complete("trace export -- --") == [])
    #expect(
      completer.complete("trace export --format=mermaid --") == [
        "--force", "--help", "--last", "--no-timings",
      ])
  }

  @Test("Tab quotes a candidate that needs quoting, in the quotes the word was started with")
  func quoting() {
    // Given the tag 'Application Lifecycle', which has a space
    // Then a bare word is single-quoted as a whole, from where it starts
    #expect(
      completer.completion("log level App")
        == Completion(start: 10, replacements: ["'Application Lifecycle'"]))
    #expect(
      completer.completion("log level 'Application L")
        == Completion(start: 10, replacements: ["'Application Lifecycle'"]))
    #expect(completer.completion("log level \"App").replacements == ["\"Application Lifecycle\""])
    #expect(
      completer.completion("log level Application\\ L").replacements == [
        "Application\\ Lifecycle"
      ])
    // When one candidate needs quotes, all get them, so that they keep a common prefix
    #expect(
      completer.completion("log level A").replacements == ["'API'", "'Application Lifecycle'"])
    // And a word that needs none stays bare
    #expect(completer.completion("log level AP") == Completion(start: 10, replacements: ["API"]))
    #expect(completer.completion("log level ").start == 10)
    #expect(completer.completion("echo $pr").replacements == [])
  }

  @Test("every quoting style reads back, through the lexer, as the value it quoted")
  func quotingRoundTrip() throws {
    let values = [
      "plain", "two words", "it's", #"say "hi""#, "a$b", "semi;colon", #"back\slash"#, "#hash",
    ]
    for style in [Quoting.single, .double, .backslash] {
      for value in values {
        let words = try Lexer.lex("echo " + style.quote(value)).first?.words ?? []
        #expect(words.count == 2, "\(style) \(value)")
        #expect(words.last?.text == value, "\(style) \(value)")
      }
    }
    // A directory keeps its quote open, so that the next Tab goes on inside it.
    #expect(Quoting.single.quote("my dir/") == "'my dir/")
  }

  @Test("a path, and a value after @ or NAME=@, complete file names; directories end in /")
  func fileNames() throws {
    let folder = try Scratch.directory("complete")
    try FileManager.default.createDirectory(
      atPath: folder + "/sub dir", withIntermediateDirectories: true)
    try Data("{}".utf8).write(to: URL(fileURLWithPath: folder + "/my notes.json"))
    try Data().write(to: URL(fileURLWithPath: folder + "/.hidden"))
    #expect(
      completer.complete("source \(folder)/") == [
        "\(folder)/my notes.json", "\(folder)/sub dir/",
      ])
    #expect(completer.complete("source \(folder)/.") == ["\(folder)/.hidden"])
    #expect(
      completer.completion("source \(folder)/my").replacements == ["'\(folder)/my notes.json'"])
    #expect(
      completer.completion("store persist bookmarks k @\(folder)/my").replacements == [
        "'@\(folder)/my notes.json'"
      ])
    #expect(
      completer.completion("session request POST /echo --file a=@\(folder)/s").replacements == [
        "'a=@\(folder)/sub dir/"
      ])
    #expect(completer.complete("store persist bookmarks k @@\(folder)/") == [])
    #expect(completer.complete("parse acknowledgements \(folder)/sub") == ["\(folder)/sub dir/"])
  }

  @Test(
    "the app's verbs follow its flow, and a saved app's events and tabs complete in a new shell")
  func appStateCompletion() throws {
    // Not running: only what can start or inspect it.
    let database = Scratch.file("app", suffix: ".sqlite")
    let first = Harness(session: Session(options: SessionOptions(databasePath: database)))
    #expect(Completer(session: first.session).complete("app ") == ["reset", "start", "state"])
    // The login flow offers login, never logout.
    first.script(["app start"])
    #expect(
      Completer(session: first.session).complete("app ") == [
        "error", "login", "relaunch", "reset", "state",
      ])
    // The main flow offers logout, never login.
    first.script(["app login ada@example.com"])
    #expect(
      Completer(session: first.session).complete("app ") == [
        "error", "logout", "relaunch", "reset", "state",
      ])
    // Another shell on the same workspace, whose app is only saved, completes what it would run.
    let second = Harness(session: Session(options: SessionOptions(databasePath: database)))
    let completer = Completer(session: second.session)
    #expect(
      completer.complete("event send discover ") == [
        "failed", "headerTapped", "mediaItemSelected",
      ])
    #expect(
      completer.complete("event send tabbar tabSelected ") == ["discover", "favourites", "profile"])
    #expect(completer.complete("app lo") == ["logout"])
  }
}
