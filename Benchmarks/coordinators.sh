#!/usr/bin/env bash
# P8: coordinator events in a workspace file. 2,000 `event send` lines alternating a push and a
# back on Discover, each handled by the presenter and the coordinator and followed by saving the
# app state (one UPSERT of the snapshot in its own transaction); and `screen show` of Discover
# (15 cached products through the provider and the drawing), median of 50 by archsh's `time`.
# Next to Python's sqlite3 doing the same 2,000 snapshot UPSERTs, in the same run.
# Usage: Benchmarks/coordinators.sh PATH/TO/archsh [EVENTS]
set -euo pipefail
ARCHSH=${1:-.build-release/release/archsh}
EVENTS=${2:-2000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config NO_COLOR=1
db=$work/p8.sqlite

# Launch, log in, and fill the product cache, so that the timed part is events and drawing only.
"$ARCHSH" --no-rc --db "$db" -c 'app start --session bench' -c 'screen show discover' >/dev/null
python3 - "$work" "$EVENTS" <<'PY'
import sys
work, events = sys.argv[1], int(sys.argv[2])
with open(f"{work}/events.ash", "w") as f:
    f.write("coord tree\n")  # restores the app before the clock starts counting lines
    for i in range(events // 2):
        f.write(f"event send discover mediaItemSelected {1 + i % 15}\n")
        f.write("event send discover backTapped\n")
with open(f"{work}/show.ash", "w") as f:
    for i in range(50):
        f.write("time screen show discover\n")
PY
start=$(date +%s.%N)
"$ARCHSH" --no-rc --db "$db" -c 'coord tree' >/dev/null
base=$(echo "$(date +%s.%N) - $start" | bc)
start=$(date +%s.%N)
"$ARCHSH" --no-rc --db "$db" -f "$work/events.ash" >/dev/null
total=$(echo "$(date +%s.%N) - $start" | bc)
"$ARCHSH" --no-rc --db "$db" -f "$work/show.ash" >"$work/show.out"
snapshot=$(sqlite3 "$db" 'SELECT length(snapshot) FROM app_state' 2>/dev/null || echo 220)

python3 - "$work" "$EVENTS" "$snapshot" >"$work/peer.out" <<'PY'
import sqlite3, sys, time
work, events, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
db = sqlite3.connect(f"{work}/peer.sqlite", isolation_level=None)
db.execute("PRAGMA journal_mode=WAL"); db.execute("PRAGMA synchronous=NORMAL")
db.execute("CREATE TABLE app_state (id INTEGER PRIMARY KEY CHECK (id = 1), snapshot TEXT NOT NULL, saved_at REAL NOT NULL)")
start = time.perf_counter()
for i in range(events):
    db.execute("BEGIN IMMEDIATE")
    db.execute("INSERT INTO app_state VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET snapshot = excluded.snapshot, saved_at = excluded.saved_at",
               (("x" * size)[:-len(str(i))] + str(i), time.time()))
    db.execute("COMMIT")
print(time.perf_counter() - start)
PY

python3 - "$work" "$EVENTS" "$total" "$base" <<'PY'
import re, statistics, sys
work, events, total, base = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
shows = [float(m) for m in re.findall(r"^milliseconds: ([0-9.]+) ms", open(f"{work}/show.out").read(), re.M)]
assert len(shows) == 50, f"expected 50 timings, got {len(shows)}"
peer = float(open(f"{work}/peer.out").read())
spent = total - base
print(f"== P8: {events:,} coordinator events, each saved to the workspace ==")
print(f"archsh event send (push/back + save)  {spent * 1000 / events:6.3f} ms/event  ({events / spent:,.0f} events/s)")
print(f"python sqlite3, the same UPSERTs       {peer * 1000 / events:6.3f} ms/event  ({events / peer:,.0f} writes/s)")
print(f"archsh screen show discover (15 rows) {statistics.median(shows):6.2f} ms median  (max {max(shows):.2f} ms)")
PY
