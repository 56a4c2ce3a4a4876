#!/usr/bin/env bash
# make bench: start-up and per-line cost of the release build, each next to a peer measured in the
# same run. Usage: Benchmarks/run.sh PATH/TO/archsh
set -euo pipefail
ARCHSH=${1:-.build/release/archsh}
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
for tool in hyperfine sqlite3; do
  if ! command -v "$tool" >/dev/null; then
    $SUDO apt-get update -qq && $SUDO DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$tool" >/dev/null
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config NO_COLOR=1

echo "== start-up: median of 300 runs (hyperfine -N, 30 warm-up runs) =="
hyperfine -N --warmup 30 --runs 300 --style none --export-json "$work/startup.json" \
  "$ARCHSH -c 'echo hi'" "sqlite3 :memory: 'select 1'" >/dev/null
python3 - "$work/startup.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
archsh, sqlite = (r["median"] * 1000 for r in results)
print(f"archsh -c 'echo hi'          {archsh:7.2f} ms")
print(f"sqlite3 :memory: 'select 1'  {sqlite:7.2f} ms")
print(f"ratio                        {archsh / sqlite:7.2f}x  (goal: 3x or less)")
PY

echo
echo "== per-line cost: a 100,000-line script of 'set k v' lines =="
python3 - "$work" <<'PY'
import sys
work = sys.argv[1]
with open(f"{work}/set.ash", "w") as f:
    for i in range(100_000):
        f.write(f"set k{i % 100} v{i}\n")
with open(f"{work}/empty.ash", "w") as f:
    f.write("# nothing\n")
with open(f"{work}/insert.sql", "w") as f:
    f.write("create table kv(k text primary key, v text);\n")
    for i in range(100_000):
        f.write(f"insert or replace into kv values('k{i % 100}', 'v{i}');\n")
PY
hyperfine -N --warmup 2 --runs 10 --style none --export-json "$work/lines.json" \
  "$ARCHSH --no-rc -f $work/set.ash" "$ARCHSH --no-rc -f $work/empty.ash" \
  "sqlite3 :memory: -init $work/insert.sql .quit" >/dev/null
python3 - "$work/lines.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
full, empty, sqlite = (r["median"] for r in results)
per_line = (full - empty) / 100_000 * 1e6
print(f"archsh, 100,000 'set k v' lines   {full * 1000:8.1f} ms total, {per_line:5.2f} us per line (start-up subtracted)")
print(f"sqlite3, 100,000 INSERT lines     {sqlite * 1000:8.1f} ms total, {sqlite / 100_000 * 1e6:5.2f} us per line")
PY
