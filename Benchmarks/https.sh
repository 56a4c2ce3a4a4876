#!/usr/bin/env bash
# HTTPS: GETs through APISessionManager over TLS (swift-nio-ssl over NIOPosix, with kept
# connections) next to Python's http.client doing the same GETs, in the same run, against the same
# local TLS server with a certificate made here. The server writes each response in one piece and
# turns Nagle's algorithm off, as production servers do, so that no client is measured waiting on
# a delayed ACK.
# Usage: Benchmarks/https.sh PATH/TO/archsh [GETS]
set -euo pipefail
ARCHSH=${1:-.build-release/release/archsh}
N=${2:-1000}
work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
export HOME=$work XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config NO_COLOR=1

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" -days 2 \
  -subj /CN=localhost -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" 2>/dev/null
cat >"$work/server.py" <<'PY'
import http.server, json, socket, ssl, sys
body = json.dumps({"code": "OK", "data": {"type": "product", "id": 1, "name": "iPhone 15 Pro",
    "family": "iPhones", "price": 999.0, "price_cents": 99900, "currency": "USD"}}).encode()
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = -1   # head and body leave in one write, flushed once per response
    def setup(self):
        # As production servers do: no Nagle delay, here for the handshake's flights too.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.request.do_handshake()
        super().setup()
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1], sys.argv[2])
server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
python3 "$work/server.py" "$work/cert.pem" "$work/key.pem" >"$work/port" &
server=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
url="https://127.0.0.1:$(cat "$work/port")"

python3 - "$work" "$N" <<'PY'
import sys
work, n = sys.argv[1], int(sys.argv[2])
with open(f"{work}/gets.ash", "w") as f:
    for _ in range(n): f.write("session request GET /products/1\n")
with open(f"{work}/one.ash", "w") as f:
    f.write("session request GET /products/1\n")
PY

source "$(dirname "$0")/common.sh"
full=$(best "$ARCHSH" --no-rc --db :memory: --api "$url" --cacert "$work/cert.pem" -f "$work/gets.ash")
one=$(best "$ARCHSH" --no-rc --db :memory: --api "$url" --cacert "$work/cert.pem" -f "$work/one.ash")
reused=$("$ARCHSH" --no-rc --db :memory: --api "$url" --cacert "$work/cert.pem" \
  -c 'net get /products/1' -c 'net get /products/1' -c 'net log' | grep -c ' reused$' || true)

python3 - "$url" "$N" "$full" "$one" "$work" "$reused" <<'PY'
import http.client, json, ssl, sys, time, urllib.parse
url, n, full, one, work, reused = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
host = urllib.parse.urlparse(url)
context = ssl.create_default_context(cafile=f"{work}/cert.pem")
def peer(keep, n):
    best = None
    for _ in range(5):
        start = time.perf_counter()
        c = http.client.HTTPSConnection(host.hostname, host.port, context=context)
        for _ in range(n):
            if not keep:
                c = http.client.HTTPSConnection(host.hostname, host.port, context=context)
            c.request("GET", "/products/1")
            r = c.getresponse(); json.loads(r.read())
            assert r.status == 200
            if not keep:
                c.close()
        c.close()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best
# A handshake each is slower; a fifth of the GETs (at least 10) gives its rate.
fresh_n = max(10, n // 5)
fresh, kept = peer(False, fresh_n), peer(True, n)
a = max(full - one, 1e-9)
print(f"== HTTPS: {n:,} GETs over TLS to a local server (best of 5; archsh's start-up and first handshake subtracted) ==")
print(f"archsh session request GET (kept TLS connection)   {a * 1000:8.1f} ms  {n / a:8.0f} GETs/s")
print(f"python http.client, a new connection each          {fresh * n / fresh_n * 1000:8.1f} ms  {fresh_n / fresh:8.0f} GETs/s  (from {fresh_n} GETs)")
print(f"python http.client, one kept connection            {kept * 1000:8.1f} ms  {n / kept:8.0f} GETs/s")
print(f"archsh / python kept connection                    {kept / a:8.2f}x  (goal: at least 0.80x, issue 47)")
print(f"archsh start-up and one GET with its TLS handshake  {one * 1000:8.1f} ms")
if reused != "1":
    sys.exit(f"the second GET of a session did not reuse its TLS connection (net log said {reused} reused)")
PY
