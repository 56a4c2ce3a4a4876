import Foundation
import Testing

/// archsh away from its build tree: `make install`, `make uninstall` and the release archive, each
/// checked with the build tree hidden (a private mount namespace lays an empty folder over it).
///
/// `make install` and `make dist` are `make release`, then `scripts/install` or `scripts/dist` on
/// the binary it built; the tests run those scripts on the binary under test (`make test` points
/// it at that same release binary). They do not build again: `swift test` holds the release build
/// folder's lock while it runs, and a build inside a test would wait for it for ever.
@Suite("archsh installed, away from its build tree", .serialized)
struct InstallTests {
  /// Runs `command` with bash in `directory`, its standard error after its output.
  @discardableResult
  private func shell(_ command: String, directory: String = Binary.root) throws -> (
    status: Int32, output: String
  ) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", command + " 2>&1"]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] =
      "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin:" + (environment["PATH"] ?? "")
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output)
  }

  /// Every file and folder under `prefix`, relative to it, sorted.
  private func tree(_ prefix: String) throws -> [String] {
    try shell("cd '\(prefix)' && find . -mindepth 1 | sed 's|^\\./||' | LC_ALL=C sort").output
      .split(separator: "\n").map(String.init)
  }

  /// Runs the installed `archsh` under `prefix` as a user would, with the build tree hidden: the
  /// walkthroughs, the exercises, `--tour` twice, the man page and the bash completion.
  private func checkInstalled(_ prefix: String) throws {
    let homes = try Binary.makeTemporaryDirectory()
    let script = """
      set -u
      mount -t tmpfs none '\(Binary.root)' || { echo "cannot hide the build tree"; exit 1; }
      [ -e '\(Binary.root)/Package.swift' ] && { echo "the build tree is still visible"; exit 1; }
      archsh='\(prefix)/bin/archsh'
      export HOME='\(homes)/one' PATH='\(prefix)/bin':/usr/bin:/bin LANG=C.UTF-8 NO_COLOR=1
      unset XDG_DATA_HOME XDG_STATE_HOME XDG_CONFIG_HOME ARCHSH_WALKTHROUGHS ARCHSH_DB
      mkdir -p "$HOME"
      echo "== version"; "$archsh" --version
      echo "== check"; "$archsh" --check --tour basics; echo "status $?"
      echo "== walkthroughs"; "$archsh" help walkthroughs | tail -5
      echo "== learn list"; "$archsh" --db :memory: -c 'learn list'
      echo "== learn start"
      "$archsh" --db :memory: -c 'learn start store-keep-cover-through-trim' | head -1
      export HOME='\(homes)/two'
      mkdir -p "$HOME"
      echo "== tour"
      for run in 1 2; do "$archsh" --tour emptystate > /dev/null 2>&1; echo "run $run: $?"; done
      ls -A "$HOME"
      echo "== man"; MANWIDTH=80 man -l '\(prefix)/share/man/man1/archsh.1' 2>&1 | col -b | head -8
      echo "== completion"
      bash -c "source '\(prefix)/share/bash-completion/completions/archsh' && complete -p archsh \\
        && COMP_WORDS=(archsh --tour ba) COMP_CWORD=2 COMP_LINE='archsh --tour ba' COMP_POINT=16 \\
        && _archsh archsh ba --tour && echo \\"offered: \\${COMPREPLY[*]}\\""
      """
    let unshare =
      geteuid() == 0 ? "unshare --mount" : "unshare --mount --map-root-user"
    let scriptFile = homes + "/check.sh"
    try script.write(toFile: scriptFile, atomically: true, encoding: .utf8)
    let run = try shell("\(unshare) bash '\(scriptFile)'", directory: "/")
    let text = run.output
    #expect(run.status == 0, "\(text)")
    #expect(text.contains("== version\narchsh 0.1.0 ("), "\(text)")
    #expect(
      text.contains(
        "\(prefix)/share/archsh/walkthroughs/basics.ash: matches \(prefix)/share/archsh/walkthroughs/basics.out\nstatus 0"
      ), "\(text)")
    #expect(text.contains("archsh's are in \(prefix)/share/archsh/walkthroughs"), "\(text)")
    #expect(text.contains("store-keep-cover-through-trim"), "\(text)")
    #expect(
      text.contains(
        "== learn start\nexercise 'store-keep-cover-through-trim': Keep the oldest entry through a trim"
      ), "\(text)")
    // Watched twice, the walkthrough leaves the user's home as it was: nothing at all.
    #expect(text.contains("== tour\nrun 1: 0\nrun 2: 0\n== man"), "\(text)")
    #expect(
      text.contains("archsh - A shell for exploring a classic iOS app architecture"), "\(text)")
    #expect(text.contains("complete -o filenames -F _archsh archsh\noffered: basics"), "\(text)")
  }

  @Test(
    "make install's installer puts archsh, its walkthroughs, exercises, man page and completions under PREFIX; they work with the build tree hidden; make uninstall removes exactly them"
  )
  func installAndUninstall() throws {
    let prefix = try Binary.makeTemporaryDirectory() + "/prefix"
    // Something of the user's own, in a folder install also uses: it stays.
    try FileManager.default.createDirectory(
      atPath: prefix + "/bin", withIntermediateDirectories: true)
    try "#!/bin/sh\n".write(toFile: prefix + "/bin/mytool", atomically: true, encoding: .utf8)
    let install = try shell("scripts/install '\(Binary.path)' '\(prefix)'")
    #expect(install.status == 0, "\(install.output)")
    let installed = try tree(prefix)
    for path in [
      "bin/archsh", "share/archsh/walkthroughs/basics.ash", "share/archsh/walkthroughs/basics.out",
      "share/archsh/walkthroughs/files/trip.json",
      "share/archsh/exercises/ds-register-exact-type.ash",
      "share/archsh/uninstall", "share/archsh/install-manifest", "share/man/man1/archsh.1",
      "share/bash-completion/completions/archsh", "share/zsh/site-functions/_archsh",
      "share/fish/vendor_completions.d/archsh.fish",
    ] {
      #expect(installed.contains(path), "\(path) is not installed")
    }
    try checkInstalled(prefix)
    let uninstall = try shell("make uninstall PREFIX='\(prefix)'")
    #expect(uninstall.status == 0, "\(uninstall.output)")
    #expect(try tree(prefix) == ["bin", "bin/mytool"])
  }

  @Test(
    "make dist's archive has the same layout with a README and the licence; installed from it, archsh works with the build tree hidden, and its uninstall leaves nothing"
  )
  func archive() throws {
    let made = try shell("scripts/dist '\(Binary.path)'")
    #expect(made.status == 0, "\(made.output)")
    let archive = try #require(
      made.output.split(separator: "\n").last { $0.hasSuffix(".tar.gz") }.map(String.init))
    #expect(archive.hasSuffix("/archsh-0.1.0-linux-x86_64.tar.gz") || !archive.contains("linux"))
    let name = ((archive as NSString).lastPathComponent as NSString).deletingPathExtension
      .replacingOccurrences(of: ".tar", with: "")
    let listing = try shell("tar -tzf '\(archive)'").output.split(separator: "\n").map(String.init)
    for path in [
      "README.md", "LICENSE", "THIRD-PARTY-NOTICES", "install.sh", "bin/archsh",
      "share/archsh/walkthroughs/basics.ash", "share/archsh/exercises/ds-register-exact-type.ash",
      "share/man/man1/archsh.1", "share/bash-completion/completions/archsh",
    ] {
      #expect(listing.contains("\(name)/\(path)"), "\(path) is not in the archive")
    }
    let unpacked = try Binary.makeTemporaryDirectory()
    #expect(try shell("tar -xzf '\(archive)' -C '\(unpacked)'").status == 0)
    let prefix = try Binary.makeTemporaryDirectory() + "/prefix"
    let install = try shell("'\(unpacked)/\(name)/install.sh' '\(prefix)'")
    #expect(install.status == 0, "\(install.output)")
    try checkInstalled(prefix)
    let uninstall = try shell("'\(prefix)/share/archsh/uninstall'")
    #expect(uninstall.status == 0, "\(uninstall.output)")
    #expect(try tree(prefix) == [])
  }

  @Test("a binary with no walkthroughs beside it says where it looked, for help and for --tour")
  func nothingBeside() throws {
    let folder = try Binary.makeTemporaryDirectory() + "/bin"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: Binary.path, toPath: folder + "/archsh")
    let alone = folder + "/archsh"
    let share = (folder as NSString).deletingLastPathComponent + "/share/archsh/walkthroughs"
    let help = try shell("ARCHSH_WALKTHROUGHS=/nowhere '\(alone)' help walkthroughs")
    #expect(
      help.output
        == "no walkthroughs were found; archsh looked in '/nowhere', '\(share)': set ARCHSH_WALKTHROUGHS to the folder that holds basics.ash\n",
      "\(help.output)")
    let tour = try shell("ARCHSH_WALKTHROUGHS=/nowhere '\(alone)' --tour basics")
    #expect(tour.status == 2)
    #expect(
      tour.output.contains(
        "archsh's walkthroughs were not found (looked in '/nowhere', '\(share)')"),
      "\(tour.output)")
  }
}
