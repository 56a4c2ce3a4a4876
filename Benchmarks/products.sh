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

# Every figure is the best of 5 rounds, and the rounds alternate: each round runs every archsh
# script once, then Python's two loops once, so that a change of the machine's load from one
# second to the next falls on both sides alike.
ROUNDS=5
[ "$N" -le 50 ] && ROUNDS=2
rm -f "$work"/p5*.sqlite* "$work"/base*.sqlite*
python3 - "$ARCHSH" "${ARCHSH_BASELINE:-}" "$url" "$N" "$work" "$ROUNDS" <<'PY'
import http.client, json, sqlite3, subprocess, sys, time, urllib.parse
archsh, baseline, url, n, work, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
host = urllib.parse.urlparse(url)
p5, start = f"{work}/p5.ash", f"{work}/start.ash"

# archsh: a script's time minus the time of a script that only starts. The embedded API's run
# starts the server in the script (its start is subtracted); the board's run keeps the board open;
# the baseline (ARCHSH_BASELINE) is the binary before a change, against the same server.
scripts = {
    "full": [archsh, "--no-rc", "--api", url, "--db", f"{work}/p5.sqlite", "-f", p5],
    "base": [archsh, "--no-rc", "--api", url, "--db", f"{work}/base.sqlite", "-f", start],
    "embedded_full": [archsh, "--no-rc", "--db", f"{work}/p5e.sqlite", "-f", p5],
    "embedded_base": [archsh, "--no-rc", "--db", f"{work}/basee.sqlite", "-f", start],
    "board_full": [archsh, "--no-rc", "--board", "--api", url, "--db", f"{work}/p5b.sqlite", "-f", p5],
    "board_base": [archsh, "--no-rc", "--board", "--api", url, "--db", f"{work}/baseb.sqlite", "-f", start],
}
if baseline:
    scripts["baseline_full"] = [baseline, "--no-rc", "--api", url, "--db", f"{work}/p5c.sqlite", "-f", p5]
    scripts["baseline_base"] = [baseline, "--no-rc", "--api", url, "--db", f"{work}/basec.sqlite", "-f", start]

def timed(command):
    began = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - began

def python_loop(persist):
    db = sqlite3.connect(f"{work}/peer.sqlite", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL"); db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE TABLE IF NOT EXISTS cache (key TEXT PRIMARY KEY, value BLOB)")
    connection = http.client.HTTPConnection(host.hostname, host.port)
    began = time.perf_counter()
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
    elapsed = time.perf_counter() - began
    connection.close(); db.close()
    return elapsed

best = {}
def keep(name, seconds):
    best[name] = min(best.get(name, seconds), seconds)
for _ in range(rounds):
    for name, command in scripts.items():
        keep(name, timed(command))
    keep("plain", python_loop(False))
    keep("whole", python_loop(True))

entries = subprocess.run([archsh, "--no-rc", "--db", f"{work}/p5.sqlite", "-c", "store stores"],
                         check=True, capture_output=True, text=True).stdout
entries = next((line.split()[1] for line in entries.splitlines() if line.split()[:1] == ["productCache"]), "?")
archsh_time = best["full"] - best["base"]
print(f"== P5: {n:,} product updates against one demo API server, archsh serve (best of {rounds} alternating rounds) ==")
print(f"archsh product update (GET, decode, persist)   {archsh_time * 1000:8.1f} ms  {n / archsh_time:8.0f} updates/s  (goal: at or above Python's whole update; start-up subtracted)")
embedded = best["embedded_full"] - best["embedded_base"]
print(f"  the same against its embedded API           {embedded * 1000:8.1f} ms  {n / embedded:8.0f} updates/s  (the server in archsh's own process)")
board = best["board_full"] - best["board_base"]
print(f"  the same with the board open                 {board * 1000:8.1f} ms  {n / board:8.0f} updates/s")
if baseline:
    old = best["baseline_full"] - best["baseline_base"]
    print(f"  baseline binary                              {old * 1000:8.1f} ms  {n / old:8.0f} updates/s")
plain, whole = best["plain"], best["whole"]
print(f"python http.client, the same GETs only         {plain * 1000:8.1f} ms  {n / plain:8.0f} requests/s")
print(f"python http.client + json + sqlite3 INSERT     {whole * 1000:8.1f} ms  {n / whole:8.0f} updates/s")
print(f"archsh / python whole update                   {whole / archsh_time:8.2f}x  (above 1 is faster)")
print(f"archsh whole script, start-up included         {best['full'] * 1000:8.1f} ms")
print(f"productCache after {rounds} runs: {entries} entries (100 products a run; the key is the URL)")
PY
