#ifndef ARCHSH_CTLS_H
#define ARCHSH_CTLS_H

#include <stddef.h>

// archsh's blocking connections: a socket made within a deadline, and TLS over it through the
// system's OpenSSL 3 (libssl.so.3), loaded with dlopen the first time an https:// URL is used, so
// that start-up never pays for it. HTTP itself (the bytes of requests and responses) is framed in
// Swift by NIOHTTP1.

typedef struct archsh_connection archsh_connection;

#include <netdb.h>

/// A name resolver with getaddrinfo's signature.
typedef int (*archsh_resolver)(const char *, const char *, const struct addrinfo *,
                               struct addrinfo **);

/// Replaces the resolver that connections use; NULL puts getaddrinfo back. For tests: a stand-in
/// that is slow for one name and forwards every other to getaddrinfo.
void archsh_set_resolver(archsh_resolver resolver);

/// Loads libssl and libcrypto once; 0 on success, else -1 with the reason in `error`.
int archsh_tls_load(char *error, size_t error_size);

/// Connects to host:port within `timeout_ms`. The name is looked up on a thread of its own, so
/// that neither the lookup nor the connection waits past `timeout_ms`. While it waits,
/// `stop(context)` is asked every 20 ms; when it answers nonzero the attempt ends with ECANCELED.
/// Returns NULL with the reason in `error` and the connect(2) errno in `failure_errno`: ETIMEDOUT
/// or ECANCELED when the lookup was waited out, else 0 when the name did not resolve.
archsh_connection *archsh_connect(const char *host, int port, int timeout_ms, char *error,
                                  size_t error_size, int *failure_errno, int (*stop)(void *),
                                  void *context);

/// Starts TLS on a connection made by `archsh_connect`: TLS 1.2 at least, SNI, and the certificate
/// and the host name verified against the system's trust store, plus `ca_file` when it is not NULL.
/// Every setting is checked; the handshake cannot raise SIGPIPE. 0 on success, else -1 with the
/// reason in `error` (the connection must then be closed).
int archsh_tls_handshake(archsh_connection *connection, const char *host, int port,
                         const char *ca_file, char *error, size_t error_size);

/// Whether a kept connection has nothing to read: 0 when the server closed it or sent bytes no
/// request asked for (decrypted or not), and it must not carry the next request.
int archsh_is_quiet(archsh_connection *connection);

/// Writes all of `buffer`; 0 on success, -1 on failure.
int archsh_connection_write(archsh_connection *connection, const void *buffer, size_t count);

/// Reads up to `count` bytes, waiting at most `timeout_ms` for the first: the number read, 0 at
/// the end of the stream, -1 on failure, -2 when the time ran out or a signal came. Bytes OpenSSL
/// holds already count.
long archsh_connection_read_within(archsh_connection *connection, void *buffer, size_t count,
                                   int timeout_ms);

/// Whether the calling thread is the process's main thread, without a system call (Foundation's
/// `Thread.isMainThread` asks the kernel for the process and thread ids on Linux).
int archsh_is_main_thread(void);

/// Makes a blocked read or write return at once (another thread may call it: cancellation).
void archsh_connection_abort(archsh_connection *connection);

/// Closes the connection and frees it.
void archsh_connection_close(archsh_connection *connection);

#endif
