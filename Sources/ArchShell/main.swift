// archsh: read a line, run it, print the result or the error, repeat. Everything else sits behind
// small types: Options (process arguments), LineEditor (libedit), Interpreter (the language).
Launcher.main()
