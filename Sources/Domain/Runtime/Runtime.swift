// archsh's own runtime, which no seed has (`Origin.archsh`), as far as it still lives in Domain:
// the storage of data sources and repositories, the log book that keeps the Logger's lines, the
// tracer, and the workspace's schema (every feature's migrations, `WorkspaceSchema.archsh`). The
// workspace's engine (WAL, sidecar repair, atomic runs, kept statements), the access-time log,
// the byte bounds and totals, the learner's progress and the embedded API's state are in the
// Runtime target, which Domain calls through named operations (issue 50).
