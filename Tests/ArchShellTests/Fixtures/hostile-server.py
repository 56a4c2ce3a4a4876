"""A hostile, or broken, HTTP/1.1 server for the tests that run archsh against one.

It listens on two raw TCP sockets on 127.0.0.1, "main" and "other", on ephemeral ports, prints
"MAINPORT OTHERPORT" and a newline once both listen, and serves until it is killed. With --tls,
main speaks TLS (the certificate and key are PEM files); other always speaks plain HTTP.

    python3 hostile-server.py LOGFILE [--tls CERT.pem KEY.pem]

It parses requests itself (no http.server), so that it can answer with malformed bytes, and it
appends every request it receives to LOGFILE as one JSON line, written and flushed at once:

    {"server": "main"|"other", "method": ..., "target": the raw target, "version": ...,
     "headers": [[name, value], ...], "body": the body decoded as latin-1}

Header lines are split on CRLF exactly as received (a bare LF stays inside its line), so a header
smuggled into a value through CRLF shows up as a header of its own. A line without a colon is
logged as [line, null].

Connections are kept alive after a clean answer (a correct Content-Length or a complete chunked
body, and no Connection: close); a connection idle for 5 seconds is closed. Routes are chosen by
the path of the target, whatever the method; see MAIN_ROUTES and answer_other below.
"""
import json
import os
import socket
import ssl
import sys
import threading
import time

IDLE_TIMEOUT = 5.0
MAX_HEAD = 1024 * 1024  # a request's line and headers
MAX_BODY = 64 * 1024 * 1024
WRITE = 64 * 1024  # the size of one write when streaming

TOKEN_BODY = (b'{"code":"OK","access_token":"hostile-access-0001",'
              b'"refresh_token":"hostile-refresh-0001","token_type":"bearer","expires_in":3600}')
USER_BODY = (b'{"code":"OK","data":{"type":"User","id":"00000000-0000-4000-8000-000000000bad",'
             b'"first_name":"Mallory","last_name":"Other","email":"mallory@example.com",'
             b'"phone_number":null,"cover_image_url":"https://example.com/users/mallory/cover.png",'
             b'"profile_image_url":"https://example.com/users/mallory/profile.png"}}')
OTHER_BODY = b'{"code":"OK","data":{"server":"other"}}'
NOT_FOUND_BODY = b'{"code":"NotFound","message":"no route"}'
CONTROL_BODY = b"title:\x1b]0;pwned\x07 red:\x1b[31mRED\x1b[0m bell:\x07 nul:\x00 end"
# JSON leaves DEL and C1 controls raw in a string: U+009B starts an escape sequence on a terminal.
CONTROL_JSON = '{"code":"OK","data":{"title":"\u009b31mRED\u007f end"}}'.encode("utf-8")
CONTROL_PRODUCT = json.dumps({"code": "OK", "data": {
    "type": "product", "id": 66, "name": "\x1b[31mRED\x1b]2;pwned\x07",
    "family": "\x1b]52;c;cHduZWQ=\x07clip", "price": 1.0, "price_cents": 100, "currency": "USD",
    "details": "\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\ end"}}).encode()


def product_body(n):
    """A product in the demo API's shape (Envelope.product inside Envelope.ok)."""
    data = {"type": "product", "id": n, "name": f"Hostile product {n}", "family": "Hostile things",
            "price": 9.99, "price_cents": 999, "currency": "USD", "details": "hostile but honest"}
    return json.dumps({"code": "OK", "data": data}, separators=(",", ":")).encode()


class Log:
    def __init__(self, path):
        self.file = open(path, "a", encoding="utf-8")
        self.lock = threading.Lock()

    def write(self, record):
        line = json.dumps(record) + "\n"
        with self.lock:
            self.file.write(line)
            self.file.flush()


class Closed(Exception):
    """The peer closed the connection, or sent what cannot be read as a request."""


class BadRequest(Exception):
    def __init__(self, status, reason, record=None):
        super().__init__(reason)
        self.status, self.reason, self.record = status, reason, record


class Connection:
    """A socket with a read buffer; every write goes straight out."""

    def __init__(self, sock, server):
        self.sock, self.server = sock, server
        self.buffer = bytearray()

    def fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise Closed()
        self.buffer += data

    def read_line(self, limit):
        """A line up to CRLF, without the CRLF."""
        start = 0
        while True:
            index = self.buffer.find(b"\r\n", start)
            if index >= 0:
                line = bytes(self.buffer[:index])
                del self.buffer[:index + 2]
                return line
            if len(self.buffer) > limit:
                raise BadRequest(431, "Request Header Fields Too Large")
            start = max(0, len(self.buffer) - 1)
            self.fill()

    def read_exact(self, count):
        while len(self.buffer) < count:
            self.fill()
        data = bytes(self.buffer[:count])
        del self.buffer[:count]
        return data

    def send(self, data):
        self.sock.sendall(data)

    def stream(self, byte, total):
        """Sends total bytes of byte in WRITE-sized writes; False when the peer went away."""
        block = byte * WRITE
        sent = 0
        try:
            while total is None or sent < total:
                piece = block if total is None or total - sent >= WRITE else block[:total - sent]
                self.sock.sendall(piece)
                sent += len(piece)
        except OSError:  # BrokenPipeError, ConnectionResetError, a timeout, an SSL error
            return False
        return True

    def close(self, graceful=True):
        """Closes; gracefully means after a TLS close_notify or a half-close and a short drain,
        so that what was sent is not lost to a reset."""
        sock = self.sock
        try:
            if graceful:
                sock.settimeout(1.0)
                if isinstance(sock, ssl.SSLSocket):
                    try:
                        sock = sock.unwrap()
                    except (OSError, ValueError):
                        pass
                sock.shutdown(socket.SHUT_WR)
                deadline = time.monotonic() + 1.0
                drained = 0
                while time.monotonic() < deadline and drained < MAX_HEAD:
                    data = sock.recv(65536)
                    if not data:
                        break
                    drained += len(data)
        except OSError:
            pass
        for s in {id(self.sock): self.sock, id(sock): sock}.values():
            try:
                s.close()
            except OSError:
                pass


def read_request(conn):
    """The next request, or Closed at a clean EOF before one starts."""
    line = conn.read_line(MAX_HEAD)
    while line == b"":  # tolerate stray CRLFs between requests
        line = conn.read_line(MAX_HEAD)
    text = line.decode("latin-1")
    parts = text.split(" ")
    record = {"server": conn.server, "method": parts[0], "target": "", "version": "",
              "headers": [], "body": ""}
    if len(parts) == 3:
        record["target"], record["version"] = parts[1], parts[2]
    else:
        record["target"] = " ".join(parts[1:2])
        record["version"] = " ".join(parts[2:])
    size = len(line)
    while True:
        header = conn.read_line(MAX_HEAD - size)
        size += len(header) + 2
        if header == b"":
            break
        text = header.decode("latin-1")
        if ":" in text:
            name, value = text.split(":", 1)
            record["headers"].append([name, value.strip(" \t")])
        else:
            record["headers"].append([text, None])
    if len(parts) != 3:
        raise BadRequest(400, "Bad Request", record)

    def values(name):
        return [v for n, v in record["headers"] if n.lower() == name and v is not None]

    if any("100-continue" in v.lower() for v in values("expect")):
        conn.send(b"HTTP/1.1 100 Continue\r\n\r\n")
    encodings = ",".join(values("transfer-encoding")).lower()
    lengths = values("content-length")
    if "chunked" in encodings:
        body = bytearray()
        while True:
            size_line = conn.read_line(1024).split(b";")[0].strip()
            try:
                chunk = int(size_line, 16)
            except ValueError:
                raise BadRequest(400, "Bad Request", record)
            if chunk == 0:
                while conn.read_line(MAX_HEAD) != b"":  # trailers
                    pass
                break
            if len(body) + chunk > MAX_BODY:
                raise BadRequest(413, "Content Too Large", record)
            body += conn.read_exact(chunk)
            conn.read_exact(2)
        record["body"] = bytes(body).decode("latin-1")
    elif lengths:
        if len(set(lengths)) != 1 or not lengths[0].isdigit():
            raise BadRequest(400, "Bad Request", record)
        length = int(lengths[0])
        if length > MAX_BODY:
            raise BadRequest(413, "Content Too Large", record)
        record["body"] = conn.read_exact(length).decode("latin-1")
    client_close = any(t.strip().lower() == "close"
                       for v in values("connection") for t in v.split(","))
    if record["version"] == "HTTP/1.0" and not any(
            "keep-alive" in v.lower() for v in values("connection")):
        client_close = True
    return record, client_close


def response(status, reason, body, content_type="application/json", extra=()):
    head = [f"HTTP/1.1 {status} {reason}"]
    if content_type:
        head.append(f"Content-Type: {content_type}")
    head += list(extra)
    head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


def redirect(status, reason, location):
    return response(status, reason, b"", content_type=None, extra=[f"Location: {location}"])


# A route answers a request on a connection and says what then becomes of it:
# "keep" (a clean answer: read the next request), "close" (close gracefully) or "gone" (the peer
# went away, or the answer ended abruptly: close without ceremony).

def simple(data):
    def route(conn, record, ports):
        conn.send(data(ports) if callable(data) else data)
        return "keep"
    return route


def raw_then_close(data):
    def route(conn, record, ports):
        conn.send(data)
        return "close"
    return route


def huge_header(conn, record, ports):
    conn.send(b"HTTP/1.1 200 OK\r\nX-Big: ")
    if not conn.stream(b"a", 100 * 1024 * 1024):
        return "gone"
    conn.send(b"\r\n\r\n")
    return "close"


def many_fields(conn, record, ports):
    head = b"HTTP/1.1 200 OK\r\n" + b"".join(
        b"X-Field-%d: v%d\r\n" % (n, n) for n in range(1, 1001))
    conn.send(head + b"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
    return "keep"


def endless_chunks(conn, record, ports):
    conn.send(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"%x\r\n" % WRITE + b"x" * WRITE + b"\r\n"
    try:
        while True:
            conn.send(chunk)
    except OSError:
        return "gone"


def big_length(conn, record, ports):
    total = 300 * 1024 * 1024
    conn.send(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
              b"Content-Length: %d\r\n\r\n" % total)
    return "keep" if conn.stream(b"b", total) else "gone"


def big_close(conn, record, ports):
    conn.send(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
    return "close" if conn.stream(b"c", 300 * 1024 * 1024) else "gone"


def overlong_body(conn, record, ports):
    first = b'{"code":"OK","data":{"n":"first!"}}'
    second = b'{"code":"OK","data":{"n":"SMUGGLED!!"}}'
    conn.send(response(200, "OK", first) + response(200, "OK", second))
    return "keep"


def late_408(conn, record, ports):
    conn.send(response(200, "OK", b'{"code":"OK","data":{"n":"before 408"}}'))
    time.sleep(0.2)
    conn.send(b"HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    return "close"


def two_lengths(conn, record, ports):
    conn.send(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello!!")
    time.sleep(1.0)
    return "close"


def te_and_cl(conn, record, ports):
    body = b'{"code":"OK","data":{"n":"te"}}'
    conn.send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 100\r\n\r\n"
              + b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n")
    return "keep"


def echo_post(conn, record, ports):
    data = {"code": "OK", "data": {"method": record["method"], "body": record["body"]}}
    conn.send(response(200, "OK", json.dumps(data, separators=(",", ":")).encode()))
    return "keep"


def slow_redirect(location):
    """Waits 0.8 s, then redirects: three of them outlast a 2 s deadline, each within it."""
    def route(conn, record, ports):
        time.sleep(0.8)
        conn.send(redirect(302, "Found", location))
        return "keep"
    return route


MAIN_ROUTES = {
    "/oauth/token": simple(response(200, "OK", TOKEN_BODY)),
    "/users/me": simple(lambda ports: redirect(
        302, "Found", f"http://127.0.0.1:{ports[1]}/users/me")),
    "/same/users/me": simple(redirect(302, "Found", "/users/me-same")),
    "/users/me-same": simple(response(200, "OK", USER_BODY)),
    "/redirect-token/oauth/token": simple(lambda ports: redirect(
        307, "Temporary Redirect", f"http://127.0.0.1:{ports[1]}/oauth/token")),
    "/post-303": simple(redirect(303, "See Other", "/products/1")),
    "/post-302": simple(redirect(302, "Found", "/products/1")),
    "/post-307": simple(redirect(307, "Temporary Redirect", "/echo-post")),
    "/echo-post": echo_post,
    "/loop": simple(redirect(302, "Found", "/loop")),
    "/status/negative": raw_then_close(b"HTTP/1.1 -1 Bad\r\nContent-Length: 0\r\n\r\n"),
    "/status/signed": raw_then_close(b"HTTP/1.1 +20 OK\r\nContent-Length: 0\r\n\r\n"),
    "/status/four": raw_then_close(b"HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n"),
    "/status/999": raw_then_close(b"HTTP/1.1 999 Odd\r\nContent-Length: 0\r\n\r\n"),
    "/huge-header": huge_header,
    "/many-fields": many_fields,
    "/endless-chunks": endless_chunks,
    "/big-length": big_length,
    "/big-close": big_close,
    "/overlong-body": overlong_body,
    "/late-408": late_408,
    "/two-lengths": two_lengths,
    "/te-and-cl": te_and_cl,
    "/not-http": raw_then_close(b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n"),
    "/short-body": raw_then_close(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n12345678"),
    "/control-bytes": simple(response(200, "OK", CONTROL_BODY, content_type="text/plain")),
    "/control-json": simple(response(200, "OK", CONTROL_JSON)),
    # A product whose fields set the terminal's title, its colour, the clipboard and a link.
    "/products/66": simple(response(200, "OK", CONTROL_PRODUCT)),
    # Leaves for the other origin, which then redirects within itself: the base URL must stay.
    "/hop-away": simple(lambda ports: redirect(
        307, "Temporary Redirect", f"http://127.0.0.1:{ports[1]}/hop1")),
    # A host that decodes to CR LF and a header of its own.
    "/encoded-host": simple(lambda ports: redirect(
        302, "Found", f"http://127.0.0.1%00%0D%0AX-Injected%3A%20yes:{ports[0]}/x")),
    "/slow-hop": slow_redirect("/slow-hop2"),
    "/slow-hop2": slow_redirect("/slow-hop3"),
    "/slow-hop3": slow_redirect("/products/3"),
}

OTHER_ROUTES = {
    "/hop1": redirect(307, "Temporary Redirect", "/hop2"),
}


def path_of(target):
    return target.split("?", 1)[0].split("#", 1)[0]


def answer_main(conn, record, ports):
    path = path_of(record["target"])
    route = MAIN_ROUTES.get(path)
    if route:
        return route(conn, record, ports)
    if path.startswith("/products/") and path[len("/products/"):].isdigit():
        n = int(path[len("/products/"):])
        if n >= 1:
            conn.send(response(200, "OK", product_body(n)))
            return "keep"
    conn.send(response(404, "Not Found", NOT_FOUND_BODY))
    return "keep"


def answer_other(conn, record, ports):
    path = path_of(record["target"])
    if path in OTHER_ROUTES:
        conn.send(OTHER_ROUTES[path])
        return "keep"
    body = {"/users/me": USER_BODY, "/oauth/token": TOKEN_BODY}.get(path, OTHER_BODY)
    conn.send(response(200, "OK", body))
    return "keep"


def serve_connection(raw, name, context, log, ports):
    raw.settimeout(IDLE_TIMEOUT)
    try:
        sock = context.wrap_socket(raw, server_side=True) if context else raw
    except (OSError, ValueError):
        try:
            raw.close()
        except OSError:
            pass
        return
    conn = Connection(sock, name)
    answer = answer_main if name == "main" else answer_other
    outcome = "gone"
    try:
        while True:
            try:
                record, client_close = read_request(conn)
            except BadRequest as error:
                if error.record is not None:
                    log.write(error.record)
                conn.send(response(error.status, error.reason,
                                   b'{"code":"BadRequest","message":"unreadable request"}',
                                   extra=["Connection: close"]))
                outcome = "close"
                break
            log.write(record)
            outcome = answer(conn, record, ports)
            if outcome != "keep" or client_close:
                break
        if outcome == "keep":
            outcome = "close"
    except (Closed, OSError):
        outcome = "gone"
    except Exception as error:  # a bug here must not take the server down
        print(f"hostile-server: {name}: {error!r}", file=sys.stderr, flush=True)
        outcome = "gone"
    conn.close(graceful=outcome == "close")


def listen():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    return sock


def accept_forever(listener, name, context, log, ports):
    while True:
        try:
            raw, _ = listener.accept()
        except OSError:
            continue
        threading.Thread(target=serve_connection, args=(raw, name, context, log, ports),
                         daemon=True).start()


def main(argv):
    if len(argv) not in (2, 5) or (len(argv) == 5 and argv[2] != "--tls"):
        print("usage: hostile-server.py LOGFILE [--tls CERT.pem KEY.pem]", file=sys.stderr)
        return 2
    log = Log(argv[1])
    context = None
    if len(argv) == 5:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(argv[3], argv[4])
    main_listener, other_listener = listen(), listen()
    ports = (main_listener.getsockname()[1], other_listener.getsockname()[1])
    for listener, name, ctx in ((main_listener, "main", context), (other_listener, "other", None)):
        threading.Thread(target=accept_forever, args=(listener, name, ctx, log, ports),
                         daemon=True).start()
    sys.stdout.write(f"{ports[0]} {ports[1]}\n")
    sys.stdout.flush()
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
