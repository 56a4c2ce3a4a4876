// The signal flags and handlers, in one translation unit so that there is exactly one copy of
// each flag: the handler sets it, and the Swift code reads it through the functions below. And
// libedit, reached through pointers that archsh_edit_load fills in with dlopen and dlsym.
#define _GNU_SOURCE
#include "CEdit.h"

#include <dlfcn.h>
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

// MARK: - libedit, loaded on demand

// The libedit the system ships: macOS's own (in /usr/lib, and in the dyld shared cache), or
// Debian's libedit2 package.
#ifdef __APPLE__
#define SYSTEM_LIBEDIT "libedit.3.dylib"
#else
#define SYSTEM_LIBEDIT "libedit.so.2"
#endif

/// libedit's HIST_ENTRY: the line comes first.
struct history_entry {
  const char *line;
  void *data;
};

static struct {
  char *(*readline)(const char *);
  void (*add_history)(const char *);
  int (*read_history)(const char *);
  int (*write_history)(const char *);
  void (*stifle_history)(int);
  void (*clear_history)(void);
  struct history_entry *(*history_get)(int);
  char **(*rl_completion_matches)(const char *, archsh_match_generator *);
  int (**rl_getc_function)(FILE *);
  const char **rl_readline_name;
  archsh_completion_function **rl_attempted_completion_function;
  int *rl_attempted_completion_over;
  int *rl_completion_append_character;
  char **rl_line_buffer;
  int *history_length;
  int *history_base;
  const char **rl_basic_word_break_characters;
  char **rl_completer_word_break_characters;
} edit;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int loaded = 0;

#define LOAD(handle, name)                                                                     \
  do {                                                                                         \
    *(void **)(&edit.name) = dlsym(handle, #name);                                             \
    if (!edit.name) {                                                                          \
      snprintf(load_error, sizeof load_error, "%s has no %s", library, #name);               \
      return;                                                                                  \
    }                                                                                          \
  } while (0)

static void load(void) {
  const char *library = getenv("ARCHSH_LIBEDIT");
  if (!library || !*library) library = SYSTEM_LIBEDIT;
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    snprintf(load_error, sizeof load_error, "%s", dlerror());
    return;
  }
  LOAD(handle, readline);
  LOAD(handle, add_history);
  LOAD(handle, read_history);
  LOAD(handle, write_history);
  LOAD(handle, stifle_history);
  LOAD(handle, clear_history);
  LOAD(handle, history_get);
  LOAD(handle, rl_completion_matches);
  LOAD(handle, rl_getc_function);
  LOAD(handle, rl_readline_name);
  LOAD(handle, rl_attempted_completion_function);
  LOAD(handle, rl_attempted_completion_over);
  LOAD(handle, rl_completion_append_character);
  LOAD(handle, rl_line_buffer);
  LOAD(handle, history_length);
  LOAD(handle, history_base);
  LOAD(handle, rl_basic_word_break_characters);
  LOAD(handle, rl_completer_word_break_characters);
  loaded = 1;
}

int archsh_edit_load(char *error, size_t error_size) {
  pthread_once(&load_once, load);
  if (loaded) return 0;
  snprintf(error, error_size, "%s", load_error);
  return -1;
}

void archsh_install_getc(void) {
  if (loaded) *edit.rl_getc_function = read_character;
}

/// Without libedit: writes the prompt and reads bytes up to a newline, stopping like libedit's
/// reader on Ctrl-C or SIGTERM.
static char *read_plain_line(const char *prompt) {
  fputs(prompt, stdout);
  fflush(stdout);
  size_t size = 128, length = 0;
  char *line = malloc(size);
  if (!line) return NULL;
  for (;;) {
    int c = read_byte(STDIN_FILENO);
    if (c == EOF) {
      if (length > 0 && !interrupt_flag && !terminate_flag) break;
      free(line);
      return NULL;
    }
    if (c == '\n') break;
    if (length + 1 >= size) {
      char *grown = realloc(line, size *= 2);
      if (!grown) {
        free(line);
        return NULL;
      }
      line = grown;
    }
    line[length++] = (char)c;
  }
  line[length] = 0;
  return line;
}

char *archsh_readline(const char *prompt) {
  return loaded ? edit.readline(prompt) : read_plain_line(prompt);
}

void archsh_set_completion(const char *name, archsh_completion_function *function) {
  if (!loaded) return;
  *edit.rl_readline_name = name;
  *edit.rl_attempted_completion_function = function;
}

char **archsh_completion_matches(const char *text, archsh_match_generator *generator) {
  return loaded ? edit.rl_completion_matches(text, generator) : NULL;
}

void archsh_set_completion_over(int value) {
  if (loaded) *edit.rl_attempted_completion_over = value;
}

void archsh_set_completion_append_character(int character) {
  if (loaded) *edit.rl_completion_append_character = character;
}

const char *archsh_rl_line_buffer(void) { return loaded ? *edit.rl_line_buffer : NULL; }

void archsh_set_word_breaks(char *breaks) {
  if (!loaded) return;
  *edit.rl_basic_word_break_characters = breaks;
  *edit.rl_completer_word_break_characters = breaks;
}

void archsh_stifle_history(int count) {
  if (loaded) edit.stifle_history(count);
}

int archsh_read_history(const char *path) { return loaded ? edit.read_history(path) : -1; }

int archsh_write_history(const char *path) { return loaded ? edit.write_history(path) : -1; }
void archsh_clear_history(void) {
  if (loaded) edit.clear_history();
}

void archsh_add_history(const char *line) {
  if (loaded) edit.add_history(line);
}

int archsh_history_length(void) { return loaded ? *edit.history_length : 0; }

const char *archsh_history_line(int offset) {
  if (!loaded) return NULL;
  struct history_entry *entry = edit.history_get(*edit.history_base + offset);
  return entry ? entry->line : NULL;
}
