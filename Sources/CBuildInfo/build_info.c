#include "CBuildInfo.h"

// commit.h is written by scripts/build-info before each build that `make` runs, and only when
// the commit changed: then this file alone is compiled again, and archsh linked. It is not in
// git; a plain `swift build` has none.
#if __has_include("commit.h")
#include "commit.h"
#endif

#ifndef ARCHSH_COMMIT
#define ARCHSH_COMMIT "unknown"
#endif

const char *archsh_build_commit(void) { return ARCHSH_COMMIT; }
