#ifndef ARCHSH_BUILD_INFO_H
#define ARCHSH_BUILD_INFO_H

/// The commit archsh was built from, with `-dirty` when the tree had changes, or "unknown" for a
/// build that did not go through `make` (which writes it: scripts/build-info).
const char *archsh_build_commit(void);

#endif
