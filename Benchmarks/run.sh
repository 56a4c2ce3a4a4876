#!/usr/bin/env bash
# make bench: start-up, idle memory and per-line cost of the release build, each next to a peer
# measured in the same run. Usage: Benchmarks/run.sh PATH/TO/archsh
# ARCHSH_BASELINE=PATH/TO/older/archsh adds an older binary to the start-up and memory runs, so that
# a figure that misses its goal can be compared with the binary before the change, in one run.
set -euo pipefail
ARCHSH=${1:-.build-release/release/archsh}
BASELINE=${ARCHSH_BASELINE:-}
# BENCH_QUICK=1 (make bench BENCH_QUICK=1, which CI runs): tiny sizes, to check that every
# benchmark still runs to its end; its figures mean nothing.
RUNS=300 WARMUP=30 LINES=100000 LINE_RUNS=10
if [ "${BENCH_QUICK:-}" = 1 ]; then RUNS=3 WARMUP=1 LINES=1000 LINE_RUNS=2; fi
here=$(cd "$(dirname "$0")" && pwd)
"$here/../scripts/apt-install" hyperfine sqlite3 python3 bc binutils
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config NO_COLOR=1

echo "== start-up: median of $RUNS runs (hyperfine -N, $WARMUP warm-up runs) =="
commands=("$ARCHSH -c 'echo hi'" "$ARCHSH --version" "sqlite3 :memory: 'select 1'")
[ -n "$BASELINE" ] && commands+=("$BASELINE -c 'echo hi'" "$BASELINE --version")
hyperfine -N --warmup "$WARMUP" --runs "$RUNS" --style none --export-json "$work/startup.json" \
  "${commands[@]}" >/dev/null
python3 - "$work/startup.json" <<'PY'
import json, sys
results = [r["median"] * 1000 for r in json.load(open(sys.argv[1]))["results"]]
archsh, version, sqlite = results[:3]
rows = [("archsh -c 'echo hi'", archsh), ("archsh --version", version)]
if len(results) > 3:
    rows += [("baseline -c 'echo hi'", results[3]), ("baseline --version", results[4])]
for name, ms in rows:
    print(f"{name:28} {ms:7.2f} ms  {ms / sqlite:5.2f}x sqlite3")
print(f"{'sqlite3 :memory: select 1':28} {sqlite:7.2f} ms")
ratio = archsh / sqlite
verdict = "meets the goal" if ratio <= 2 else "within the floor" if ratio <= 3 else "MISSES the floor"
print(f"ratio {ratio:.2f}x (goal 2x, floor 3x): {verdict}")
PY

echo
echo "== idle interactive memory: RSS at the prompt on a pseudo-terminal (goal 15 MB, floor 20 MB) =="
mb() { echo "scale=1; $1 / 1024" | bc; }
rss_row() {  # NAME BINARY LINES
  printf '%-44s %6s MB\n' "$1" "$(mb "$("$here/rss.py" 'archsh> ' "$3" -- "$2" --db :memory: --no-rc)")"
}
rss_row "archsh at the prompt" "$ARCHSH" ""
rss_row "archsh after 'net get /products/1'" "$ARCHSH" "net get /products/1"
if [ -n "$BASELINE" ]; then
  rss_row "baseline at the prompt" "$BASELINE" ""
  rss_row "baseline after 'net get /products/1'" "$BASELINE" "net get /products/1"
fi
printf '%-44s %6s MB\n' "sqlite3 at its prompt" "$(mb "$("$here/rss.py" 'sqlite> ' "" -- sqlite3 -interactive :memory:)")"
# The code a session runs is laid out first, by Linker/order.txt (scripts/order-file); names the
# binary no longer defines are laid out nowhere, so a falling share says `make order` is due.
python3 - "$ARCHSH" "$here/../Linker/order.txt" <<'PY'
import subprocess, sys
symbols = subprocess.run(["nm", "--defined-only", sys.argv[1]], capture_output=True, text=True).stdout
defined = {line.split()[-1] for line in symbols.splitlines() if line.strip()}
names = [line.strip() for line in open(sys.argv[2]) if line.strip()]
found = sum(name in defined for name in names)
print(f"Linker/order.txt: {found:,} of its {len(names):,} functions are in the binary ({found / len(names):.0%}; 'make order' when it falls)")
PY

echo
echo "== per-line cost: a $LINES-line script of 'set k v' lines =="
python3 - "$work" "$LINES" <<'PY'
import sys
work, lines = sys.argv[1], int(sys.argv[2])
with open(f"{work}/set.ash", "w") as f:
    for i in range(lines):
        f.write(f"set k{i % 100} v{i}\n")
with open(f"{work}/empty.ash", "w") as f:
    f.write("# nothing\n")
with open(f"{work}/insert.sql", "w") as f:
    f.write("create table kv(k text primary key, v text);\n")
    for i in range(lines):
        f.write(f"insert or replace into kv values('k{i % 100}', 'v{i}');\n")
PY
# The same script with the board open (every event made and sent to a page that nobody reads),
# and, with ARCHSH_BASELINE, the older binary: the event stream must cost nothing when the board
# is closed.
line_commands=("$ARCHSH --no-rc -f $work/set.ash" "$ARCHSH --no-rc -f $work/empty.ash"
  "sqlite3 :memory: -init $work/insert.sql .quit"
  "$ARCHSH --no-rc --board -f $work/set.ash" "$ARCHSH --no-rc --board -f $work/empty.ash")
[ -n "$BASELINE" ] && line_commands+=("$BASELINE --no-rc -f $work/set.ash" "$BASELINE --no-rc -f $work/empty.ash")
hyperfine -N --warmup 1 --runs "$LINE_RUNS" --style none --export-json "$work/lines.json" \
  "${line_commands[@]}" >/dev/null
python3 - "$work/lines.json" "$LINES" <<'PY'
import json, sys
lines = int(sys.argv[2])
results = [r["median"] for r in json.load(open(sys.argv[1]))["results"]]
full, empty, sqlite, board_full, board_empty = results[:5]
per_line = (full - empty) / lines * 1e6
print(f"archsh, {lines:,} 'set k v' lines   {full * 1000:8.1f} ms total, {per_line:5.2f} us per line (start-up subtracted)")
board = (board_full - board_empty) / lines * 1e6
print(f"  the same with the board open    {board_full * 1000:8.1f} ms total, {board:5.2f} us per line")
if len(results) > 5:
    base = (results[5] - results[6]) / lines * 1e6
    print(f"  baseline binary                 {results[5] * 1000:8.1f} ms total, {base:5.2f} us per line")
print(f"sqlite3, {lines:,} INSERT lines     {sqlite * 1000:8.1f} ms total, {sqlite / lines * 1e6:5.2f} us per line")
PY
