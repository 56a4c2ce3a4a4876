// archsh's own runtime, which no seed has (`Origin.archsh`), as far as it still lives in Domain:
// the data sources' storage and the workspace's schema (every feature's migrations,
// `WorkspaceSchema.archsh`). The workspace's engine (WAL, sidecar repair, atomic runs, kept
// statements), the access-time log, the byte bounds and totals, the log's store, the learner's
// progress and the embedded API's state are in the Runtime target, which Domain calls through
// named operations (issue 50); the spans are Plumbing's (`SpanStacks`), and the tracer that
// publishes them to the architecture's stream is in Shared.
