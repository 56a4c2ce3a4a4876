// The signal flags and handlers, in one translation unit so that there is exactly one copy of
// each flag: the handler sets it, and the Swift code reads it through the functions below.
#include "CEdit.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t interrupt_flag = 0;
static volatile sig_atomic_t terminate_flag = 0;

static void on_signal(int signo) {
  if (signo == SIGTERM) terminate_flag = 1;
  else interrupt_flag = 1;
}

void archsh_install_signal_handlers(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  sigaction(SIGINT, &action, NULL);
  sigaction(SIGTERM, &action, NULL);
}

/// Reads one byte for libedit. On Ctrl-C or SIGTERM it returns EOF, which makes readline() return
/// NULL at once. libedit's own reader retries a read interrupted by a signal once, so without
/// this a signal that lands at the wrong moment leaves readline() blocked.
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

void archsh_install_getc(void) { rl_getc_function = read_character; }

int archsh_terminate_pending(void) { return terminate_flag; }

int archsh_take_interrupt(void) {
  int pending = interrupt_flag;
  interrupt_flag = 0;
  return pending;
}

int archsh_interrupt_pending(void) { return interrupt_flag; }
