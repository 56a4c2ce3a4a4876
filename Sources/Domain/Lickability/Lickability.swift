// Seeds 000 and 001: Lickability's controllers (`Origin.lickability`).
//
// PersistenceController, the thin wrapper over PINCache that persists, retrieves, removes and
// trims (Persistence/); NetworkController, with its NetworkRequest and NetworkResponse
// (Networking/); ProductUpdater, MagazineIssueUpdater and the product translator (Products/);
// EmptyStateViewController; and AcknowParser, which reads a Settings bundle's acknowledgements.
// Names follow the seeds. Where archsh keeps these in SQLite, the storage is in Runtime/.
