// What the seeds share: whose part something is (`Origin`), which part an error is about
// (`ErrorSubject`), the facts the controllers publish as they work (`EventStream`), which the
// shell's views (the board, `trace`, recordings) read, the tracer that publishes spans to it, and
// the workspace's schema: every feature's migrations, in order (`WorkspaceSchema.archsh`).
//
// archsh's own runtime, which no seed has, is the Runtime target: the workspace's engine (WAL,
// sidecar repair, atomic runs, kept statements), the stores' entries, the data sources' blocks,
// the log's store, the access-time log, the byte bounds and totals, the learner's progress and
// the embedded API's state. Domain calls it through named operations; the spans themselves are
// Plumbing's (`SpanStacks`).
