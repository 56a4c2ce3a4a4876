// What the seeds share: whose part something is (`Origin`), which part an error is about
// (`ErrorSubject`), and the facts the controllers publish as they work (`EventStream`), which the
// shell's views (the board, `trace`, recordings) read.
