#!/usr/bin/env bash
# P7: a data source of 1,000,000 rows in a workspace file. One row mutation (insert at the top,
# update, remove), persistence included, and drawing a 20-row window anywhere, each timed by
# archsh's own `time` (median of 50); next to Python's sqlite3 doing the write one mutation
# makes (an UPDATE of one 512-row block), in the same run.
# Usage: Benchmarks/datasource.sh PATH/TO/archsh [ROWS]
set -euo pipefail
ARCHSH=${1:-.build-release/release/archsh}
ROWS=${2:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config NO_COLOR=1
db=$work/p7.sqlite

start=$(date +%s.%N)
"$ARCHSH" --no-rc --db "$db" -c "ds new big --generate $ROWS" -c 'ds register big Text BasicCell' >/dev/null
built=$(echo "$(date +%s.%N) - $start" | bc)

python3 - "$work" "$ROWS" <<'PY'
import sys
work, rows = sys.argv[1], int(sys.argv[2])
with open(f"{work}/p7.ash", "w") as f:
    f.write("ds count big\n")  # loads the data source before anything is timed
    for i in range(50):
        f.write(f"time ds row add big 0 0 'top {i}'\n")
    for i in range(50):
        f.write(f"time ds row update big 0 {rows // 2 + i} 'middle {i}'\n")
    for i in range(50):
        f.write(f"time ds row remove big 0 {rows - 1 - i}\n")
    for i in range(50):
        f.write(f"time ds render big --from {(i * 7919 * 113) % rows} --count 20\n")
PY
start=$(date +%s.%N)
"$ARCHSH" --no-rc --db "$db" -c 'ds count big' >/dev/null
load=$(echo "$(date +%s.%N) - $start" | bc)
"$ARCHSH" --no-rc --db "$db" -f "$work/p7.ash" >"$work/p7.out"

# The peer: Python's sqlite3 rewriting one block-sized blob row (512 rows of this data source take
# about 6 KB) in a table of the same shape and size, in WAL mode with synchronous=NORMAL.
python3 - "$work" >"$work/peer.out" <<'PY'
import os, sqlite3, statistics, sys, time
db = sqlite3.connect(f"{sys.argv[1]}/peer.sqlite", isolation_level=None)
db.execute("PRAGMA journal_mode=WAL"); db.execute("PRAGMA synchronous=NORMAL")
db.execute("CREATE TABLE ds_block (id INTEGER PRIMARY KEY, section INTEGER, ord REAL, count INTEGER, rows BLOB)")
db.execute("BEGIN")
db.executemany("INSERT INTO ds_block VALUES (?, 1, ?, 512, ?)", ((i, float(i), os.urandom(6000)) for i in range(1, 1955)))
db.execute("COMMIT")
times = []
for i in range(50):
    blob = os.urandom(6000)
    start = time.perf_counter()
    db.execute("UPDATE ds_block SET rows = ?, count = 512 WHERE id = ?", (blob, 1 + i))
    times.append((time.perf_counter() - start) * 1000)
print(statistics.median(times))
PY

python3 - "$work" "$ROWS" "$built" "$load" <<'PY'
import re, statistics, sys
work, rows, built, load = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
times = [float(m) for m in re.findall(r"^milliseconds: ([0-9.]+) ms", open(f"{work}/p7.out").read(), re.M)]
assert len(times) == 200, f"expected 200 timings, got {len(times)}"
peer = float(open(f"{work}/peer.out").read())
print(f"== P7: a data source of {rows:,} rows (median of 50 each; goal: 5 ms or less) ==")
for name, chunk in zip(["insert at the top", "update in the middle", "remove at the end", "render 20 rows anywhere"],
                       [times[0:50], times[50:100], times[100:150], times[150:200]]):
    print(f"archsh ds {name:<26} {statistics.median(chunk):6.2f} ms   (max {max(chunk):6.2f} ms)")
print(f"python sqlite3, UPDATE of one block row   {peer:6.2f} ms   (the write a row mutation makes)")
print(f"building it (ds new --generate)  {built:6.2f} s; loading it in a new process {load:6.2f} s")
PY
