#ifndef CREGISTRY_H
#define CREGISTRY_H

// The linker gathers every value placed in a named section into one array and defines symbols
// at its start and its end (ELF's __start_NAME and __stop_NAME). Swift places a value there with
// `@used @section("NAME")` (SE-0492); these functions give Swift the array's bounds. The symbols
// are weak: a section nothing was placed in has none, and its bounds are both null.

// The command groups: each entry is a function that registers one group (Commands).
extern const void *const __start_archsh_groups[] __attribute__((weak));
extern const void *const __stop_archsh_groups[] __attribute__((weak));

// The workspace migrations: each entry is a function that registers one feature's (Domain).
extern const void *const __start_archsh_migrations[] __attribute__((weak));
extern const void *const __stop_archsh_migrations[] __attribute__((weak));

/// The first entry of the command groups' section; null when it is empty.
static inline const void *const *archsh_groups_start(void) { return __start_archsh_groups; }
/// Past the last entry of the command groups' section.
static inline const void *const *archsh_groups_stop(void) { return __stop_archsh_groups; }
/// The first entry of the migrations' section; null when it is empty.
static inline const void *const *archsh_migrations_start(void) { return __start_archsh_migrations; }
/// Past the last entry of the migrations' section.
static inline const void *const *archsh_migrations_stop(void) { return __stop_archsh_migrations; }

#endif
