#ifndef ARCHSH_CTLS_H
#define ARCHSH_CTLS_H

#include <stddef.h>

// HTTPS for archsh: the system's OpenSSL 3 (libssl.so.3), loaded with dlopen the first time an
// https:// URL is used, so that start-up never pays for it. Blocking calls, run off the event loops.

typedef struct archsh_tls archsh_tls;

#include <netdb.h>

/// A name resolver with getaddrinfo's signature.
typedef int (*archsh_resolver)(const char *, const char *, const struct addrinfo *,
                               struct addrinfo **);

/// Replaces the resolver that connections use; NULL puts getaddrinfo back. For tests: a stand-in
/// that is slow for one name and forwards every other to getaddrinfo.
void archsh_set_resolver(archsh_resolver resolver);

/// Loads libssl and libcrypto once; 0 on success, else -1 with the reason in `error`.
int archsh_tls_load(char *error, size_t error_size);

/// Connects to host:port within `timeout_ms`, completes the TLS handshake with SNI, and verifies
/// the certificate and the host name against the system's trust store, plus `ca_file` when it is
/// not NULL. Returns NULL with the reason in `error`.
archsh_tls *archsh_tls_connect(const char *host, int port, const char *ca_file, int timeout_ms,
                               char *error, size_t error_size);

/// Connects to host:port within `timeout_ms` without TLS: plain HTTP over the same calls. The
/// name is looked up on a thread of its own, so that neither the lookup nor the connection waits
/// past `timeout_ms`. While it waits, `stop(context)` is asked every 20 ms; when it answers
/// nonzero the attempt ends with ECANCELED. Returns NULL with the reason in `error` and the
/// connect(2) errno in `failure_errno`: ETIMEDOUT or ECANCELED when the lookup was waited out,
/// else 0 when the name did not resolve.
archsh_tls *archsh_plain_connect(const char *host, int port, int timeout_ms, char *error,
                                 size_t error_size, int *failure_errno, int (*stop)(void *),
                                 void *context);

/// Waits up to `timeout_ms` for a plain connection to have bytes to read (or to be closed): 1 when
/// it has, 0 when the time ran out or a signal came, -1 on failure. A TLS connection answers 1:
/// its reads block until their record is whole.
int archsh_wait_readable(archsh_tls *tls, int timeout_ms);

/// Whether a kept plain connection has nothing to read: 0 when the server closed it or sent bytes
/// no request asked for, and it must not carry the next request.
int archsh_is_quiet(archsh_tls *tls);

/// Writes all of `buffer`; 0 on success, -1 on failure.
int archsh_tls_write(archsh_tls *tls, const void *buffer, size_t count);

/// Reads up to `count` bytes: the number read, 0 at the end of the stream, -1 on failure.
long archsh_tls_read(archsh_tls *tls, void *buffer, size_t count);

/// Makes a blocked read or write return at once (another thread may call it: cancellation).
void archsh_tls_abort(archsh_tls *tls);

/// Closes the connection and frees it.
void archsh_tls_close(archsh_tls *tls);

#endif
