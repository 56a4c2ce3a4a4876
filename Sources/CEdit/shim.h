#ifndef ARCHSH_CEDIT_SHIM_H
#define ARCHSH_CEDIT_SHIM_H

// libedit's readline-compatible API. Never <readline/readline.h>: GNU readline's headers are
// installed on Debian too, and mixing the two breaks at link time.
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <editline/readline.h>

// Set by the signal handlers, read by the shell. A flag is all a handler may touch.
static volatile sig_atomic_t archsh_interrupt_flag = 0;
static volatile sig_atomic_t archsh_terminate_flag = 0;

static void archsh_on_signal(int signo) {
  if (signo == SIGTERM) archsh_terminate_flag = 1;
  else archsh_interrupt_flag = 1;
}

/// Installs handlers for SIGINT and SIGTERM without SA_RESTART, so a blocked read returns and
/// readline() gives NULL: Ctrl-C then discards the line, and SIGTERM ends the session after the
/// history is saved, instead of killing the process first. libedit chains to these handlers.
static inline void archsh_install_signal_handlers(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = archsh_on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  sigaction(SIGINT, &action, NULL);
  sigaction(SIGTERM, &action, NULL);
}

/// Reads one key for libedit. On Ctrl-C or SIGTERM it returns EOF, which makes readline() return
/// NULL at once. libedit's own reader retries a read interrupted by a signal once, so without
/// this a signal that lands at the wrong moment leaves readline() blocked.
static int archsh_read_byte(int fd) {
  unsigned char c;
  for (;;) {
    if (archsh_interrupt_flag || archsh_terminate_flag) return EOF;
    ssize_t n = read(fd, &c, 1);
    if (n == 1) return c;
    if (n == 0 || errno != EINTR) return EOF;
  }
}

/// libedit's readline layer takes each value this returns as one whole character, so a UTF-8
/// sequence is decoded here into its code point; an invalid sequence yields U+FFFD.
static int archsh_getc(FILE *stream) {
  int fd = fileno(stream);
  int first = archsh_read_byte(fd);
  if (first == EOF || first < 0x80) return first;
  int length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 0;
  if (length == 0) return 0xFFFD;
  int code = first & (0x3F >> (length - 1));
  for (int i = 1; i < length; i++) {
    int next = archsh_read_byte(fd);
    if (next == EOF) return EOF;
    if ((next & 0xC0) != 0x80) return 0xFFFD;
    code = (code << 6) | (next & 0x3F);
  }
  return code;
}

/// Makes libedit read keys through archsh_getc.
static inline void archsh_install_getc(void) { rl_getc_function = archsh_getc; }

/// Returns whether SIGTERM arrived.
static inline int archsh_terminate_pending(void) { return archsh_terminate_flag; }

/// Returns whether Ctrl-C was pressed since the last call, and clears the flag.
static inline int archsh_take_interrupt(void) {
  int pending = archsh_interrupt_flag;
  archsh_interrupt_flag = 0;
  return pending;
}

/// Returns whether Ctrl-C was pressed, without clearing the flag.
static inline int archsh_interrupt_pending(void) { return archsh_interrupt_flag; }

// Non-variadic accessors for libedit's readline globals.
static inline void archsh_set_completion_over(int value) { rl_attempted_completion_over = value; }
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
