#ifndef ARCHSH_CEDIT_H
#define ARCHSH_CEDIT_H

// libedit's readline-compatible API. Never <readline/readline.h>: GNU readline's headers are
// installed on Debian too, and mixing the two breaks at link time.
#include <stdio.h>
#include <stdlib.h>
#include <editline/readline.h>

// The signal state lives in CEdit.c, once. A `static` flag in this header would exist once per
// translation unit that includes it, and the release build's Swift code then read a copy that
// the handler never set: Ctrl-C ended the shell instead of discarding the line.

/// Installs handlers for SIGINT and SIGTERM without SA_RESTART, so a blocked read returns and
/// readline() gives NULL: Ctrl-C then discards the line, and SIGTERM ends the session after the
/// history is saved, instead of killing the process first.
void archsh_install_signal_handlers(void);

/// Makes libedit read keys through archsh's reader, which returns EOF once a signal arrived.
void archsh_install_getc(void);

/// Returns whether SIGTERM arrived.
int archsh_terminate_pending(void);

/// Returns whether Ctrl-C was pressed since the last call, and clears the flag.
int archsh_take_interrupt(void);

/// Returns whether Ctrl-C was pressed, without clearing the flag.
int archsh_interrupt_pending(void);

// Non-variadic accessors for libedit's readline globals. They hold no state of their own, so
// they can stay inline.
static inline void archsh_set_completion_over(int value) { rl_attempted_completion_over = value; }
static inline void archsh_set_completion_append_character(int character) {
  rl_completion_append_character = character;
}
static inline int archsh_rl_point(void) { return rl_point; }
static inline const char *archsh_rl_line_buffer(void) { return rl_line_buffer; }
static inline int archsh_history_length(void) { return history_length; }
static inline const char *archsh_history_line(int offset) {
  HIST_ENTRY *entry = history_get(history_base + offset);
  return entry ? entry->line : NULL;
}
static inline void archsh_set_word_breaks(const char *breaks) {
  rl_basic_word_break_characters = breaks;
  rl_completer_word_break_characters = (char *)breaks;
}

#endif
