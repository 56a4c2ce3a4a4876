// archsh's own runtime, which no seed has (`Origin.archsh`): the SQLite workspace (its engine,
// migrations, access-time log, byte bounds and totals), the storage of data sources and
// repositories, the log book that keeps the Logger's lines, the tracer, the learner's progress and
// the embedded API's state. It is here, apart from the seeds' folders, on its way to a target of
// its own (issue 50); the seeds' code calls it through named operations.
