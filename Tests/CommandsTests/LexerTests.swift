import Testing

@testable import Commands

/// The lexed commands as plain arrays of word texts, variables shown as `$name`.
private func words(_ line: String) throws -> [[String]] {
  try Lexer.lex(line).map { command in
    command.words.map { word in
      guard word.hasVariables else { return word.text }
      return word.parts.map { part in
        switch part {
        case .literal(let text): return text
        case .variable(let name, _): return "${\(name)}"
        }
      }.joined()
    }
  }
}

private func lexError(_ line: String) -> ShellError? {
  do {
    _ = try Lexer.lex(line)
    return nil
  } catch {
    return error
  }
}

@Suite("Lexer")
struct LexerTests {
  @Test("blanks separate words; semicolons separate commands; empty commands vanish")
  func wordsAndCommands() throws {
    #expect(try words("store  keys\tbookmarks") == [["store", "keys", "bookmarks"]])
    #expect(
      try words("echo a; echo b;;  ; echo c") == [["echo", "a"], ["echo", "b"], ["echo", "c"]])
    #expect(try words("   ") == [])
    #expect(try words("") == [])
  }

  @Test("single quotes are literal; double quotes take escapes and variables")
  func quotes() throws {
    #expect(
      try words(#"echo 'a b $x \n' "c\td\"e\\ \$y""#) == [["echo", #"a b $x \n"#, "c\td\"e\\ $y"]])
    #expect(try words(#"echo "keep \q""#) == [["echo", #"keep \q"#]])
    #expect(try words("echo ''") == [["echo", ""]])
    #expect(try words(#"echo a'b c'"d e"f"#) == [["echo", "ab cd ef"]])
  }

  @Test("a backslash outside quotes makes the next character literal")
  func escapes() throws {
    #expect(try words(##"echo a\ b \; \# \$x"##) == [["echo", "a b", ";", "#", "$x"]])
  }

  @Test("# starts a comment at the start of a word, and is literal inside one")
  func comments() throws {
    #expect(try words("echo a # a comment; echo b") == [["echo", "a"]])
    #expect(try words("# only a comment") == [])
    #expect(try words("echo #ff0000") == [["echo"]])
    #expect(
      try words("echo colour#ff http://x/#frag '#quoted'") == [
        ["echo", "colour#ff", "http://x/#frag", "#quoted"]
      ])
    #expect(try words("echo a;# comment") == [["echo", "a"]])
  }

  @Test("variables: $NAME, ${NAME}, specials, and a lone $ kept literal")
  func variables() throws {
    #expect(
      try words("echo $name ${name}x $? $# $1 a$b-c") == [
        ["echo", "${name}", "${name}x", "${?}", "${#}", "${1}", "a${b}-c"]
      ])
    #expect(try words("echo $ 5$ $-") == [["echo", "$", "5$", "$-"]])
    #expect(try words("echo '$name'") == [["echo", "$name"]])
  }

  @Test("a trailing backslash continues the line; the joined line lexes as one command")
  func continuation() throws {
    #expect(Lexer.needsContinuation(#"echo a \"#))
    #expect(Lexer.needsContinuation(#"echo "open \"#))
    #expect(!Lexer.needsContinuation(#"echo a \\"#))
    #expect(!Lexer.needsContinuation(#"echo 'a \"#))
    #expect(!Lexer.needsContinuation(#"echo a # comment \"#))
    #expect(!Lexer.needsContinuation("echo a"))
    #expect(try words("echo a \\\n  b") == [["echo", "a", "b"]])
    #expect(try words("echo ab\\\ncd") == [["echo", "abcd"]])
    #expect(try words("echo \"ab\\\ncd\"") == [["echo", "abcd"]])
  }

  @Test("errors point at the byte offset of the offending character")
  func errorOffsets() {
    #expect(
      lexError("echo 'abc")
        == ShellError("unterminated single quote", hint: "close it with '", at: 5))
    #expect(
      lexError(#"echo ok "abc"#)
        == ShellError("unterminated double quote", hint: "close it with \"", at: 8))
    #expect(
      lexError("echo ${abc") == ShellError("unterminated '${'", hint: "close it with '}'", at: 5))
    #expect(lexError("echo ${9x}")?.message == "bad variable name '9x' in '${9x}'")
    #expect(lexError("echo a\\")?.offset == 6)
  }

  @Test("word offsets are byte offsets, also after multi-byte characters")
  func offsets() throws {
    let commands = try Lexer.lex("echo héllo wörld")
    #expect(commands[0].words.map(\.offset) == [0, 5, 12])
  }

  @Test(
    "a word written quoted reads back as the same word, a quote or a line break in a grapheme too")
  func quotedReadsBack() throws {
    let words = [
      "plain", "", "two words", "it's", "'\u{301}x", "a\r\nb", "$HOME", "#tag", "a;b",
      "back\\slash",
      "tab\there", "\"double\"", "ünïcödé ' mixed",
    ]
    for word in words {
      let commands = try Lexer.lex("echo " + Lexer.quoted(word))
      #expect(
        commands.map { $0.words.map(\.text) } == [["echo", word]], "\(word.debugDescription)")
    }
    #expect(Lexer.quoted("--markdown") == "--markdown")
    #expect(Lexer.quoted("it's") == #"'it'\''s'"#)
    #expect(Lexer.quoted("") == "''")
  }

  @Test("quoted words are marked, so they are never taken for options")
  func quotedMarks() throws {
    let commands = try Lexer.lex(#"echo "--help" --help"#)
    #expect(commands[0].words.map(\.isQuoted) == [false, true, false])
  }
}
