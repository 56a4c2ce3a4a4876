#ifndef ARCHSH_CEDIT_H
#define ARCHSH_CEDIT_H

// libedit's readline-compatible API, linked as the system ships it (Debian's libedit-dev and
// libedit2, macOS's own) and called through <editline/readline.h>, wrapped here so that Swift
// sees plain functions instead of libedit's variables. Never <readline/readline.h>: GNU readline
// is installed on Debian too, and its symbols are not libedit's.
#include <stddef.h>

// The signal state lives in CEdit.c, once. A `static` flag in this header would exist once per
// translation unit that includes it, and the release build's Swift code then read a copy that
// the handler never set: Ctrl-C ended the shell instead of discarding the line.

/// Installs handlers for SIGINT and SIGTERM without SA_RESTART, so a blocked read returns and
/// readline() gives NULL: Ctrl-C then discards the line, and SIGTERM ends the session after the
/// history is saved, instead of killing the process first. SIGHUP does what SIGTERM does. A
/// script installs them too, so that a signal ends it between commands, with its output written
/// and its workspace closed.
void archsh_install_signal_handlers(void);

/// Returns the signal that asked archsh to end, SIGTERM or SIGHUP (the terminal closed), or 0.
int archsh_terminate_pending(void);

/// Returns whether Ctrl-C was pressed since the last call, and clears the flag.
int archsh_take_interrupt(void);

/// Returns whether Ctrl-C was pressed, without clearing the flag.
int archsh_interrupt_pending(void);

/// Makes libedit read keys through archsh's reader, which returns EOF once a signal arrived.
void archsh_install_getc(void);

/// readline(): the line typed, malloc'd, without its newline; NULL at the end of input or once a
/// signal arrived.
char *archsh_readline(const char *prompt);

/// The completion callback: the candidates for the text between `start` and `end` (characters).
typedef char **archsh_completion_function(const char *text, int start, int end);
/// The generator that rl_completion_matches calls until it returns NULL.
typedef char *archsh_match_generator(const char *text, int state);

/// Sets rl_readline_name and rl_attempted_completion_function.
void archsh_set_completion(const char *name, archsh_completion_function *function);
/// rl_completion_matches().
char **archsh_completion_matches(const char *text, archsh_match_generator *generator);
/// Sets rl_attempted_completion_over.
void archsh_set_completion_over(int value);
/// Sets rl_completion_append_character.
void archsh_set_completion_append_character(int character);
/// rl_line_buffer: the line being edited.
const char *archsh_rl_line_buffer(void);
/// Sets the characters that end a word for completion.
void archsh_set_word_breaks(char *breaks);

/// stifle_history(), read_history(), write_history(), add_history().
void archsh_stifle_history(int count);
int archsh_read_history(const char *path);
int archsh_write_history(const char *path);
void archsh_add_history(const char *line);
/// Empties the history in memory (clear_history()), before it is read again from its file.
void archsh_clear_history(void);
/// The number of lines in the history, and the line at `offset` from the oldest.
int archsh_history_length(void);
const char *archsh_history_line(int offset);

#endif
