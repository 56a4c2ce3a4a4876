// The signal flags and handlers, in one translation unit so that there is exactly one copy of
// each flag: the handler sets it, and the Swift code reads it through the functions below. And
// libedit, linked as the system ships it (Debian's libedit2, macOS's own), through its
// readline-compatible header.
#define _GNU_SOURCE
#include "CEdit.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t interrupt_flag = 0;
static volatile sig_atomic_t terminate_flag = 0;

// SIGTERM and SIGHUP (the terminal window closed) both end archsh the way Ctrl-D does: the
// flag keeps which came, so that the exit status is 128 + its number.
static void on_signal(int signo) {
  if (signo == SIGTERM || signo == SIGHUP) terminate_flag = signo;
  else interrupt_flag = 1;
}

void archsh_install_signal_handlers(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  int signals[] = {SIGINT, SIGTERM, SIGHUP};
  sigset_t unblocked;
  sigemptyset(&unblocked);
  for (size_t index = 0; index < sizeof signals / sizeof signals[0]; index++) {
    // A signal ignored when archsh started stays ignored, as in every shell: a script started
    // in the background by a shell ignores Ctrl-C meant for the foreground.
    struct sigaction current;
    if (sigaction(signals[index], NULL, &current) == 0 && current.sa_handler == SIG_IGN) continue;
    sigaction(signals[index], &action, NULL);
    sigaddset(&unblocked, signals[index]);
  }
  // A parent may have blocked them (a test runner does): archsh must hear them all the same.
  pthread_sigmask(SIG_UNBLOCK, &unblocked, NULL);
}

int archsh_terminate_pending(void) { return terminate_flag; }

int archsh_take_interrupt(void) {
  int pending = interrupt_flag;
  interrupt_flag = 0;
  return pending;
}

int archsh_interrupt_pending(void) { return interrupt_flag; }

/// Reads one byte. On Ctrl-C or SIGTERM it returns EOF, which makes readline() return NULL at
/// once. libedit's own reader retries a read interrupted by a signal once, so without this a
/// signal that lands at the wrong moment leaves readline() blocked.
static int read_byte(int fd) {
  unsigned char c;
  for (;;) {
    if (interrupt_flag || terminate_flag) return EOF;
    ssize_t n = read(fd, &c, 1);
    if (n == 1) return c;
    if (n == 0 || errno != EINTR) return EOF;
  }
}

/// libedit's readline layer takes each value this returns as one whole character, so a UTF-8
/// sequence is decoded here into its code point; an invalid sequence yields U+FFFD.
static int read_character(FILE *stream) {
  int fd = fileno(stream);
  int first = read_byte(fd);
  if (first == EOF || first < 0x80) return first;
  int length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 0;
  if (length == 0) return 0xFFFD;
  int code = first & (0x3F >> (length - 1));
  for (int i = 1; i < length; i++) {
    int next = read_byte(fd);
    if (next == EOF) return EOF;
    if ((next & 0xC0) != 0x80) return 0xFFFD;
    code = (code << 6) | (next & 0x3F);
  }
  return code;
}

// MARK: - libedit

// libedit's own header: never <readline/readline.h>, which is GNU readline's, installed on
// Debian too.
#include <editline/readline.h>

void archsh_install_getc(void) { rl_getc_function = read_character; }

char *archsh_readline(const char *prompt) { return readline(prompt); }

void archsh_set_completion(const char *name, archsh_completion_function *function) {
  rl_readline_name = name;
  rl_attempted_completion_function = function;
}

char **archsh_completion_matches(const char *text, archsh_match_generator *generator) {
  return rl_completion_matches(text, generator);
}

void archsh_set_completion_over(int value) { rl_attempted_completion_over = value; }

void archsh_set_completion_append_character(int character) {
  rl_completion_append_character = character;
}

const char *archsh_rl_line_buffer(void) { return rl_line_buffer; }

void archsh_set_word_breaks(char *breaks) {
  rl_basic_word_break_characters = breaks;
  rl_completer_word_break_characters = breaks;
}

void archsh_stifle_history(int count) { stifle_history(count); }

int archsh_read_history(const char *path) { return read_history(path); }

int archsh_write_history(const char *path) { return write_history(path); }

void archsh_clear_history(void) { clear_history(); }

void archsh_add_history(const char *line) { add_history(line); }

int archsh_history_length(void) { return history_length; }

const char *archsh_history_line(int offset) {
  HIST_ENTRY *entry = history_get(history_base + offset);
  return entry ? entry->line : NULL;
}
