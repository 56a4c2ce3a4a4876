// archsh: read a line, run it, print the result or the error, repeat. Everything else sits behind
// small types in ArchShell: Options (process arguments), LineEditor (libedit), and Commands'
// Interpreter (the language).
import ArchShell

Launcher.main()
