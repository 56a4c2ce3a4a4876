#define _GNU_SOURCE
#include "CTLS.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

// OpenSSL's types stay opaque: no headers are needed to build archsh, only libssl.so.3 to run it.
typedef void SSL_CTX;
typedef void SSL;
typedef void SSL_METHOD;

static struct {
  const SSL_METHOD *(*TLS_client_method)(void);
  SSL_CTX *(*SSL_CTX_new)(const SSL_METHOD *);
  void (*SSL_CTX_free)(SSL_CTX *);
  int (*SSL_CTX_set_default_verify_paths)(SSL_CTX *);
  int (*SSL_CTX_load_verify_locations)(SSL_CTX *, const char *, const char *);
  void (*SSL_CTX_set_verify)(SSL_CTX *, int, void *);
  SSL *(*SSL_new)(SSL_CTX *);
  void (*SSL_free)(SSL *);
  int (*SSL_set_fd)(SSL *, int);
  long (*SSL_ctrl)(SSL *, int, long, void *);
  int (*SSL_set1_host)(SSL *, const char *);
  int (*SSL_connect)(SSL *);
  long (*SSL_get_verify_result)(const SSL *);
  int (*SSL_write)(SSL *, const void *, int);
  int (*SSL_read)(SSL *, void *, int);
  int (*SSL_shutdown)(SSL *);
  int (*SSL_get_error)(const SSL *, int);
  int (*SSL_pending)(const SSL *);
  int (*SSL_peek)(SSL *, void *, int);
  long (*SSL_CTX_ctrl)(SSL_CTX *, int, long, void *);
  unsigned long (*ERR_get_error)(void);
  void (*ERR_clear_error)(void);
  void (*ERR_error_string_n)(unsigned long, char *, size_t);
  const char *(*X509_verify_cert_error_string)(long);
} ossl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int loaded = 0;

#define LOAD(handle, name)                                                                     \
  do {                                                                                         \
    *(void **)(&ossl.name) = dlsym(handle, #name);                                             \
    if (!ossl.name) {                                                                          \
      snprintf(load_error, sizeof load_error, "libssl.so.3 has no %s", #name);                 \
      return;                                                                                  \
    }                                                                                          \
  } while (0)

static void load(void) {
  void *crypto = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
  void *ssl = crypto ? dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL) : NULL;
  if (!crypto || !ssl) {
    snprintf(load_error, sizeof load_error,
             "HTTPS needs the system's OpenSSL 3 (libssl.so.3), which could not be loaded: %s",
             dlerror());
    return;
  }
  LOAD(ssl, TLS_client_method);
  LOAD(ssl, SSL_CTX_new);
  LOAD(ssl, SSL_CTX_free);
  LOAD(ssl, SSL_CTX_set_default_verify_paths);
  LOAD(ssl, SSL_CTX_load_verify_locations);
  LOAD(ssl, SSL_CTX_set_verify);
  LOAD(ssl, SSL_new);
  LOAD(ssl, SSL_free);
  LOAD(ssl, SSL_set_fd);
  LOAD(ssl, SSL_ctrl);
  LOAD(ssl, SSL_set1_host);
  LOAD(ssl, SSL_connect);
  LOAD(ssl, SSL_get_verify_result);
  LOAD(ssl, SSL_write);
  LOAD(ssl, SSL_read);
  LOAD(ssl, SSL_shutdown);
  LOAD(ssl, SSL_get_error);
  LOAD(ssl, SSL_pending);
  LOAD(ssl, SSL_peek);
  LOAD(ssl, SSL_CTX_ctrl);
  LOAD(crypto, ERR_get_error);
  LOAD(crypto, ERR_clear_error);
  LOAD(crypto, ERR_error_string_n);
  LOAD(crypto, X509_verify_cert_error_string);
  loaded = 1;
}

int archsh_tls_load(char *error, size_t error_size) {
  pthread_once(&load_once, load);
  if (loaded) return 0;
  snprintf(error, error_size, "%s", load_error);
  return -1;
}

struct archsh_connection {
  int fd;
  SSL *ssl;
  /// The socket's receive timeout (SO_RCVTIMEO) in milliseconds, as last set.
  int receive_timeout_ms;
};

/// Waits up to `timeout_ms` for a connecting socket, in slices of 20 ms when `stop` is given,
/// asking it between them; returns poll's answer, or -1 with errno ECANCELED when stopped.
static int wait_connected(int fd, int timeout_ms, int (*stop)(void *), void *context) {
  struct pollfd descriptor = {fd, POLLOUT, 0};
  int waited = 0;
  for (;;) {
    int slice = stop && timeout_ms - waited > 20 ? 20 : timeout_ms - waited;
    int ready = poll(&descriptor, 1, slice < 0 ? 0 : slice);
    if (ready != 0 && !(ready < 0 && errno == EINTR)) return ready;
    if (stop && stop(context)) {
      errno = ECANCELED;
      return -1;
    }
    if (ready == 0) waited += slice;
    if (waited >= timeout_ms) return 0;
  }
}

// The resolver: getaddrinfo, or a test's stand-in that forwards to it (archsh_set_resolver).
static archsh_resolver resolver = getaddrinfo;

void archsh_set_resolver(archsh_resolver replacement) {
  __atomic_store_n(&resolver, replacement ? replacement : getaddrinfo, __ATOMIC_RELEASE);
}

static long long milliseconds_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

// One name lookup on a thread of its own. getaddrinfo cannot be interrupted, so the caller waits
// for it in slices and may leave: the last of the two to finish with it frees it.
struct lookup {
  pthread_mutex_t lock;
  pthread_cond_t finished;
  int done, abandoned, code, error;
  struct addrinfo *found;
  char *host;
  char service[16];
};

static void free_lookup(struct lookup *lookup) {
  if (lookup->found) freeaddrinfo(lookup->found);
  pthread_cond_destroy(&lookup->finished);
  pthread_mutex_destroy(&lookup->lock);
  free(lookup->host);
  free(lookup);
}

static void *run_lookup(void *argument) {
  struct lookup *lookup = argument;
  struct addrinfo hints = {0}, *found = NULL;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  archsh_resolver resolve = __atomic_load_n(&resolver, __ATOMIC_ACQUIRE);
  int code = resolve(lookup->host, lookup->service, &hints, &found);
  int error = errno;
  pthread_mutex_lock(&lookup->lock);
  lookup->code = code;
  lookup->error = error;
  lookup->found = code == 0 ? found : NULL;
  lookup->done = 1;
  int abandoned = lookup->abandoned;
  pthread_cond_signal(&lookup->finished);
  pthread_mutex_unlock(&lookup->lock);
  if (abandoned) free_lookup(lookup);
  return NULL;
}

// Resolves host:port by `deadline` (CLOCK_MONOTONIC milliseconds), asking `stop` every 20 ms.
// Returns getaddrinfo's code, with the addresses in `found`; EAI_SYSTEM with errno ETIMEDOUT or
// ECANCELED when the wait ended first. An address written as numbers needs no thread.
static int resolve_by(const char *host, const char *service, long long deadline,
                      int (*stop)(void *), void *context, struct addrinfo **found) {
  struct addrinfo hints = {0};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST;
  if (getaddrinfo(host, service, &hints, found) == 0) return 0;
  struct lookup *lookup = calloc(1, sizeof *lookup);
  if (!lookup || !(lookup->host = strdup(host))) {
    free(lookup);
    errno = ENOMEM;
    return EAI_SYSTEM;
  }
  snprintf(lookup->service, sizeof lookup->service, "%s", service);
  pthread_mutex_init(&lookup->lock, NULL);
  // Its waits are timed on the monotonic clock, as the deadline is: a change of the system's time
  // cannot stretch them.
  pthread_condattr_t condition;
  pthread_condattr_init(&condition);
  pthread_condattr_setclock(&condition, CLOCK_MONOTONIC);
  pthread_cond_init(&lookup->finished, &condition);
  pthread_condattr_destroy(&condition);
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  int started = pthread_create(&thread, &attributes, run_lookup, lookup);
  pthread_attr_destroy(&attributes);
  if (started != 0) {
    free_lookup(lookup);
    errno = started;
    return EAI_SYSTEM;
  }
  int waited_out = 0;
  pthread_mutex_lock(&lookup->lock);
  while (!lookup->done) {
    long long now = milliseconds_now();
    if (now >= deadline) {
      waited_out = ETIMEDOUT;
      break;
    }
    if (stop && stop(context)) {
      waited_out = ECANCELED;
      break;
    }
    long long until = deadline - now > 20 ? now + 20 : deadline;
    struct timespec wake = {until / 1000, (until % 1000) * 1000000};
    pthread_cond_timedwait(&lookup->finished, &lookup->lock, &wake);
  }
  if (waited_out) {
    lookup->abandoned = 1;
    pthread_mutex_unlock(&lookup->lock);
    errno = waited_out;
    return EAI_SYSTEM;
  }
  pthread_mutex_unlock(&lookup->lock);
  int code = lookup->code;
  int error = lookup->error;
  *found = lookup->found;
  lookup->found = NULL;
  free_lookup(lookup);
  // EAI_SYSTEM's reason is in errno, which is the lookup thread's own.
  if (code == EAI_SYSTEM) errno = error;
  return code;
}

static int connect_socket(const char *host, int port, int timeout_ms, char *error, size_t size,
                          int *failure_errno, int (*stop)(void *), void *context) {
  struct addrinfo *found = NULL;
  char service[16];
  snprintf(service, sizeof service, "%d", port);
  long long deadline = milliseconds_now() + timeout_ms;
  int code = resolve_by(host, service, deadline, stop, context, &found);
  if (code != 0) {
    int reason = code == EAI_SYSTEM ? errno : 0;
    if (reason == ETIMEDOUT) {
      snprintf(error, size, "cannot resolve %s: no answer within %d ms", host, timeout_ms);
    } else if (reason == ECANCELED) {
      snprintf(error, size, "cannot resolve %s: stopped", host);
    } else {
      snprintf(error, size, "cannot resolve %s: %s", host,
               code == EAI_SYSTEM ? strerror(reason) : gai_strerror(code));
    }
    if (failure_errno) *failure_errno = reason == ETIMEDOUT || reason == ECANCELED ? reason : 0;
    return -1;
  }
  // What the lookup took is taken from the wait for the connection; the socket's own read and
  // write limits, which last as long as the connection is kept, stay `timeout_ms`.
  long long left = deadline - milliseconds_now();
  int connect_ms = left > 1 ? (int)left : 1;
  int fd = -1;
  int last_errno = 0;
  for (struct addrinfo *address = found; address; address = address->ai_next) {
    fd = socket(address->ai_family, address->ai_socktype | SOCK_CLOEXEC, address->ai_protocol);
    if (fd < 0) continue;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    if (connect(fd, address->ai_addr, address->ai_addrlen) == 0 || errno == EINPROGRESS) {
      int ready = wait_connected(fd, connect_ms, stop, context);
      int failure = 0;
      socklen_t length = sizeof failure;
      if (ready < 0 && errno == ECANCELED) {
        close(fd);
        fd = -1;
        last_errno = ECANCELED;
        break;
      }
      if (ready == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 &&
          failure == 0) {
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        break;
      }
      last_errno = ready == 0 ? ETIMEDOUT : ready < 0 ? errno : failure;
    } else {
      last_errno = errno;
    }
    close(fd);
    fd = -1;
  }
  freeaddrinfo(found);
  if (fd < 0) {
    snprintf(error, size, "cannot connect to %s:%d: %s", host, port, strerror(last_errno));
    if (failure_errno) *failure_errno = last_errno;
    return -1;
  }
  struct timeval timeout = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  // Small TLS records leave at once, and the handshake's flights are acknowledged at once, so
  // neither side's Nagle algorithm holds the next flight for a delayed ACK.
  int on = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &on, sizeof on);
  return fd;
}

static void ssl_error(const char *what, char *error, size_t size) {
  unsigned long code = ossl.ERR_get_error();
  char detail[200] = "no detail";
  if (code) ossl.ERR_error_string_n(code, detail, sizeof detail);
  snprintf(error, size, "%s: %s", what, detail);
}

// One client context for the process, made again only when the CA file changes: loading the
// system's trust store costs milliseconds, which every new connection paid before. Each SSL made
// from it holds its own reference, so a replaced context lives on until its connections close.
static pthread_mutex_t context_lock = PTHREAD_MUTEX_INITIALIZER;
static SSL_CTX *shared_context = NULL;
static char *shared_ca_file = NULL;

static SSL *new_ssl(const char *ca_file, char *error, size_t error_size) {
  pthread_mutex_lock(&context_lock);
  int same = shared_context &&
             ((!ca_file && !shared_ca_file) ||
              (ca_file && shared_ca_file && strcmp(ca_file, shared_ca_file) == 0));
  if (!same) {
    SSL_CTX *made = ossl.SSL_CTX_new(ossl.TLS_client_method());
    if (!made) {
      ssl_error("cannot start TLS", error, error_size);
      pthread_mutex_unlock(&context_lock);
      return NULL;
    }
    // TLS 1.2 at least, whatever the system's configuration allows (SSL_CTX_set_min_proto_version
    // is a macro over SSL_CTX_ctrl: SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION).
    if (ossl.SSL_CTX_ctrl(made, 123, 0x0303, NULL) != 1) {
      ssl_error("cannot require TLS 1.2", error, error_size);
      ossl.SSL_CTX_free(made);
      pthread_mutex_unlock(&context_lock);
      return NULL;
    }
    ossl.SSL_CTX_set_default_verify_paths(made);
    if (ca_file && ossl.SSL_CTX_load_verify_locations(made, ca_file, NULL) != 1) {
      ssl_error("cannot read the CA certificate", error, error_size);
      ossl.SSL_CTX_free(made);
      pthread_mutex_unlock(&context_lock);
      return NULL;
    }
    ossl.SSL_CTX_set_verify(made, 1 /* SSL_VERIFY_PEER */, NULL);
    if (shared_context) ossl.SSL_CTX_free(shared_context);
    free(shared_ca_file);
    shared_context = made;
    shared_ca_file = ca_file ? strdup(ca_file) : NULL;
  }
  SSL *ssl = ossl.SSL_new(shared_context);
  pthread_mutex_unlock(&context_lock);
  if (!ssl) ssl_error("cannot start TLS", error, error_size);
  return ssl;
}

// A connection the server has closed makes write() raise SIGPIPE, which would end archsh: a kept
// connection reused after the server closed it, or the close_notify that SSL_shutdown sends. Every
// call that may write blocks SIGPIPE on its thread, and takes back a SIGPIPE it raised, so the
// failure is only a return value (and a request goes again on a new connection).
typedef struct {
  sigset_t saved;
  int was_pending;
} pipe_guard;

static void guard_pipe(pipe_guard *guard) {
  sigset_t pipe_set, pending;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  sigpending(&pending);
  guard->was_pending = sigismember(&pending, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &guard->saved);
}

static void release_pipe(pipe_guard *guard) {
  sigset_t pipe_set, pending;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  sigpending(&pending);
  if (!guard->was_pending && sigismember(&pending, SIGPIPE)) {
    struct timespec now = {0, 0};
    sigtimedwait(&pipe_set, NULL, &now);
  }
  pthread_sigmask(SIG_SETMASK, &guard->saved, NULL);
}

int archsh_tls_handshake(archsh_connection *connection, const char *host, int port,
                         const char *ca_file, char *error, size_t error_size) {
  if (archsh_tls_load(error, error_size) != 0) return -1;
  if (connection->ssl) {
    snprintf(error, error_size, "the connection is already over TLS");
    return -1;
  }
  ossl.ERR_clear_error();
  SSL *ssl = new_ssl(ca_file, error, error_size);
  if (!ssl) return -1;
  connection->ssl = ssl;
  ossl.ERR_clear_error();
  if (ossl.SSL_set_fd(ssl, connection->fd) != 1) {
    ssl_error("cannot start TLS on the socket", error, error_size);
    return -1;
  }
  // SNI (SSL_set_tlsext_host_name is a macro over SSL_ctrl), unless the host is an address.
  struct in6_addr ignored;
  if (inet_pton(AF_INET, host, &ignored) != 1 && inet_pton(AF_INET6, host, &ignored) != 1) {
    ossl.ERR_clear_error();
    if (ossl.SSL_ctrl(ssl, 55 /* SSL_CTRL_SET_TLSEXT_HOSTNAME */, 0, (void *)host) != 1) {
      ssl_error("cannot name the server for TLS", error, error_size);
      return -1;
    }
  }
  // Without the name to check, the certificate of any host would be accepted: a failure here
  // ends the connection.
  ossl.ERR_clear_error();
  if (ossl.SSL_set1_host(ssl, host) != 1) {
    ssl_error("cannot set the host name to verify", error, error_size);
    return -1;
  }
  pipe_guard guard;
  guard_pipe(&guard);
  ossl.ERR_clear_error();
  int connected = ossl.SSL_connect(ssl);
  release_pipe(&guard);
  if (connected != 1) {
    long verify = ossl.SSL_get_verify_result(ssl);
    if (verify != 0) {
      snprintf(error, error_size, "the certificate of %s:%d was not accepted: %s", host, port,
               ossl.X509_verify_cert_error_string(verify));
    } else {
      ssl_error("the TLS handshake failed", error, error_size);
    }
    return -1;
  }
  return 0;
}

archsh_connection *archsh_connect(const char *host, int port, int timeout_ms, char *error,
                                 size_t error_size, int *failure_errno, int (*stop)(void *),
                                 void *context) {
  *failure_errno = 0;
  int fd = connect_socket(host, port, timeout_ms, error, error_size, failure_errno, stop, context);
  if (fd < 0) return NULL;
  archsh_connection *connection = calloc(1, sizeof *connection);
  if (!connection) {
    close(fd);
    return NULL;
  }
  connection->fd = fd;
  connection->receive_timeout_ms = timeout_ms;
  return connection;
}

/// Waits up to `timeout_ms` for bytes to read (or for the server to close): 1 when there are, 0
/// when the time ran out or a signal came, -1 on failure. Bytes OpenSSL holds already count.
static int wait_readable(archsh_connection *tls, int timeout_ms) {
  // Bytes OpenSSL already decrypted are not on the socket any more.
  if (tls->ssl && ossl.SSL_pending(tls->ssl) > 0) return 1;
  struct pollfd descriptor = {tls->fd, POLLIN, 0};
  int ready = poll(&descriptor, 1, timeout_ms);
  if (ready < 0) return errno == EINTR ? 0 : -1;
  return ready;
}

int archsh_is_quiet(archsh_connection *tls) {
  if (tls->ssl && ossl.SSL_pending(tls->ssl) > 0) return 0;
  struct pollfd descriptor = {tls->fd, POLLIN, 0};
  if (poll(&descriptor, 1, 0) == 0) return 1;
  if (!tls->ssl) return 0;
  // Over TLS, a readable socket may hold only records that carry no data (a TLS 1.3 session
  // ticket): a peek that would block says there is no byte of a response waiting.
  int flags = fcntl(tls->fd, F_GETFL);
  fcntl(tls->fd, F_SETFL, flags | O_NONBLOCK);
  pipe_guard guard;
  guard_pipe(&guard);
  ossl.ERR_clear_error();
  char byte;
  int peeked = ossl.SSL_peek(tls->ssl, &byte, 1);
  int reason = peeked > 0 ? 0 : ossl.SSL_get_error(tls->ssl, peeked);
  release_pipe(&guard);
  fcntl(tls->fd, F_SETFL, flags);
  return peeked <= 0 && reason == 2 /* SSL_ERROR_WANT_READ */;
}

int archsh_connection_write(archsh_connection *tls, const void *buffer, size_t count) {
  if (!tls->ssl) {
    // MSG_NOSIGNAL: a kept connection the server closed fails the write instead of raising
    // SIGPIPE.
    const char *bytes = buffer;
    while (count > 0) {
      ssize_t written = send(tls->fd, bytes, count, MSG_NOSIGNAL);
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) return -1;
      bytes += written;
      count -= (size_t)written;
    }
    return 0;
  }
  pipe_guard guard;
  guard_pipe(&guard);
  const char *bytes = buffer;
  int status = 0;
  while (count > 0) {
    int chunk = count > 1 << 30 ? 1 << 30 : (int)count;
    ossl.ERR_clear_error();
    int written = ossl.SSL_write(tls->ssl, bytes, chunk);
    if (written <= 0) {
      status = -1;
      break;
    }
    bytes += written;
    count -= (size_t)written;
  }
  release_pipe(&guard);
  return status;
}

/// Acknowledges at once rather than up to 40 ms later: a server that writes a response's head and
/// body separately, with Nagle's algorithm on, waits for that ACK before sending the body. Linux
/// turns quick ACKs off again by itself, so it is asked before every read.
static void ask_quick_ack(int fd) {
  int quick = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &quick, sizeof quick);
}

/// Reads decrypted bytes: the number read, 0 at the end of the stream, -1 on failure.
static long tls_read(archsh_connection *tls, void *buffer, size_t count) {
  int chunk = count > 1 << 30 ? 1 << 30 : (int)count;
  pipe_guard guard;
  guard_pipe(&guard);   // TLS 1.3 may answer a key update while reading
  ossl.ERR_clear_error();
  errno = 0;
  int read = ossl.SSL_read(tls->ssl, buffer, chunk);
  int saved_errno = errno;
  release_pipe(&guard);
  errno = saved_errno;
  if (read > 0) return read;
  int reason = ossl.SSL_get_error(tls->ssl, read);
  // SSL_ERROR_ZERO_RETURN: the server closed the TLS session; SSL_ERROR_SYSCALL with no error:
  // the connection ended without one, which HTTP/1.0-style bodies do.
  if (reason == 6 || (reason == 5 && errno == 0)) return 0;
  return -1;
}

long archsh_connection_read_within(archsh_connection *tls, void *buffer, size_t count,
                                   int timeout_ms) {
  if (timeout_ms < 1) timeout_ms = 1;
  if (tls->ssl) {
    int ready = wait_readable(tls, timeout_ms);
    if (ready <= 0) return ready == 0 ? -2 : -1;
    ask_quick_ack(tls->fd);
    return tls_read(tls, buffer, count);
  }
  // A plain socket waits in recv itself, its receive timeout set to the wait: one system call
  // where poll and recv were two.
  if (tls->receive_timeout_ms != timeout_ms) {
    struct timeval timeout = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    if (setsockopt(tls->fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) != 0) return -1;
    tls->receive_timeout_ms = timeout_ms;
  }
  ask_quick_ack(tls->fd);
  ssize_t got = recv(tls->fd, buffer, count, 0);
  if (got >= 0) return (long)got;
  return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? -2 : -1;
}

void archsh_connection_abort(archsh_connection *tls) {
  if (tls && tls->fd >= 0) shutdown(tls->fd, SHUT_RDWR);
}

void archsh_connection_close(archsh_connection *tls) {
  if (!tls) return;
  if (tls->ssl) {
    pipe_guard guard;
    guard_pipe(&guard);
    ossl.ERR_clear_error();
    ossl.SSL_shutdown(tls->ssl);
    release_pipe(&guard);
    ossl.SSL_free(tls->ssl);
  }
  if (tls->fd >= 0) close(tls->fd);
  free(tls);
}

/// The process's main thread, as the loader runs constructors on it before `main`.
static pthread_t main_thread;

__attribute__((constructor)) static void remember_main_thread(void) {
  main_thread = pthread_self();
}

int archsh_is_main_thread(void) { return pthread_equal(pthread_self(), main_thread) != 0; }
