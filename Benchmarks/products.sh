#!/usr/bin/env bash
# P5: 1,000 `product update` lines (fetch, decode, persist) against the demo API run on its own
# (`archsh serve`, reached with --api), next to Python's http.client doing the same 1,000 GETs
# against that same server, in the same run; and, as a second peer, Python doing the whole update
# (GET, json, INSERT into SQLite in WAL mode). Both sides talk to one server, in another process.
# The same script against archsh's embedded API (in its own process) is shown beside.
# Usage: Benchmarks/products.sh PATH/TO/archsh [UPDATES]
set -euo pipefail
ARCHSH=${1:-.build-release/release/archsh}
N=${2:-1000}
work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
export HOME=$work XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config NO_COLOR=1

python3 - "$work" "$N" <<'PY'
import sys
work, n = sys.argv[1], int(sys.argv[2])
with open(f"{work}/p5.ash", "w") as f:
    f.write("net api\n")
    for i in range(n): f.write(f"product update {i % 100 + 1}\n")
with open(f"{work}/start.ash", "w") as f:
    f.write("net api\n")
PY

# The server both sides talk to: the demo API, run on its own with `archsh serve`.
"$ARCHSH" --no-rc -c 'serve --port 0' >"$work/serve.out" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q 'http://' "$work/serve.out" && break; sleep 0.05; done
url=$(grep -o 'http://[0-9.:]*' "$work/serve.out" | head -1)

# archsh: the script's time minus the time of a script that only starts.
source "$(dirname "$0")/common.sh"
rm -f "$work"/p5.sqlite*
full=$(best "$ARCHSH" --no-rc --api "$url" --db "$work/p5.sqlite" -f "$work/p5.ash")
base=$(best "$ARCHSH" --no-rc --api "$url" --db "$work/base.sqlite" -f "$work/start.ash")
entries=$("$ARCHSH" --no-rc --db "$work/p5.sqlite" -c 'store stores' | awk '$1 == "productCache" {print $2}')
# The same against the embedded API (started by the script: its start is subtracted), with the
# board open, and (ARCHSH_BASELINE) with the binary before a change, against the same server.
rm -f "$work"/p5e.sqlite*
embedded_full=$(best "$ARCHSH" --no-rc --db "$work/p5e.sqlite" -f "$work/p5.ash")
embedded_base=$(best "$ARCHSH" --no-rc --db "$work/basee.sqlite" -f "$work/start.ash")
rm -f "$work"/p5b.sqlite*
board_full=$(best "$ARCHSH" --no-rc --board --api "$url" --db "$work/p5b.sqlite" -f "$work/p5.ash")
board_base=$(best "$ARCHSH" --no-rc --board --api "$url" --db "$work/baseb.sqlite" -f "$work/start.ash")
baseline_full=0
baseline_base=0
if [ -n "${ARCHSH_BASELINE:-}" ]; then
  baseline_full=$(best "$ARCHSH_BASELINE" --no-rc --api "$url" --db "$work/p5c.sqlite" -f "$work/p5.ash")
  baseline_base=$(best "$ARCHSH_BASELINE" --no-rc --api "$url" --db "$work/basec.sqlite" -f "$work/start.ash")
fi

python3 - "$url" "$N" "$full" "$base" "$entries" "$work" "$board_full" "$board_base" "$baseline_full" "$baseline_base" "$embedded_full" "$embedded_base" <<'PY'
import http.client, json, sqlite3, sys, time, urllib.parse
url, n, full, base, entries, work = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
board_full, board_base, baseline_full, baseline_base, embedded_full, embedded_base = (float(x) for x in sys.argv[7:13])
host = urllib.parse.urlparse(url)

def run(persist):
    best = None
    for _ in range(5):
        db = sqlite3.connect(f"{work}/peer.sqlite", isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL"); db.execute("PRAGMA synchronous=NORMAL")
        db.execute("CREATE TABLE IF NOT EXISTS cache (key TEXT PRIMARY KEY, value BLOB)")
        connection = http.client.HTTPConnection(host.hostname, host.port)
        start = time.perf_counter()
        for i in range(n):
            path = f"/products/{i % 100 + 1}"
            connection.request("GET", path)
            response = connection.getresponse()
            body = response.read()
            assert response.status == 200
            if persist:
                product = json.loads(body)["data"]
                db.execute("INSERT OR REPLACE INTO cache VALUES (?, ?)",
                           (url + path, json.dumps(product, sort_keys=True).encode()))
        elapsed = time.perf_counter() - start
        connection.close(); db.close()
        best = elapsed if best is None else min(best, elapsed)
    return best

plain = run(False)
whole = run(True)
archsh = full - base
print(f"== P5: {n:,} product updates against one demo API server, archsh serve (best of 5) ==")
print(f"archsh product update (GET, decode, persist)   {archsh * 1000:8.1f} ms  {n / archsh:8.0f} updates/s  (goal: at or above Python's whole update; start-up subtracted)")
embedded = embedded_full - embedded_base
print(f"  the same against its embedded API           {embedded * 1000:8.1f} ms  {n / embedded:8.0f} updates/s  (the server in archsh's own process)")
board = board_full - board_base
print(f"  the same with the board open                 {board * 1000:8.1f} ms  {n / board:8.0f} updates/s")
if baseline_full > 0:
    old = baseline_full - baseline_base
    print(f"  baseline binary                              {old * 1000:8.1f} ms  {n / old:8.0f} updates/s")
print(f"python http.client, the same GETs only         {plain * 1000:8.1f} ms  {n / plain:8.0f} requests/s")
print(f"python http.client + json + sqlite3 INSERT     {whole * 1000:8.1f} ms  {n / whole:8.0f} updates/s")
print(f"archsh / python whole update                   {whole / archsh:8.2f}x  (above 1 is faster)")
print(f"archsh whole script, start-up included         {full * 1000:8.1f} ms")
print(f"productCache after 5 runs: {entries} entries (100 products a run; the key is the URL)")
PY
