#!/usr/bin/env bash
# P6: a Repository fetch when it already holds 1,000,000 elements, next to its first fetch in the
# same run (goal: at most 1.3×, floor 2×). Both fetch a page of 1,000 locations from the embedded
# API through OAuth2Authorization, map it with ModelFactory and store it in the workspace (a file,
# WAL), de-duplicating by identity. Each figure is the best of 5 fetches.
# Usage: Benchmarks/repository.sh PATH/TO/archsh [ELEMENTS]
set -euo pipefail
ARCHSH=${1:-.build-release/release/archsh}
N=${2:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config NO_COLOR=1

python3 - "$work" "$N" <<'PY'
import sys
work, n = sys.argv[1], int(sys.argv[2])
pages = n // 1000
with open(f"{work}/p6.ash", "w") as f:
    f.write("set pw lovelace --secret\nauth login ada@example.com $pw\n")
    f.write(f"net locations {n + 5000}\n")
    # The first fetches: five repositories, each fetching its first page.
    for i in range(5):
        f.write(f"repo new first{i} /users/me/locations --limit 1000\ntime repo fetch first{i}\n")
    # One repository filled to N elements, then five more pages.
    f.write("repo new big /users/me/locations --limit 1000\n")
    for _ in range(pages):
        f.write("repo fetch big\n")
    f.write("repo state big\n")
    for _ in range(5):
        f.write("time repo fetch big\n")
PY
start=$(date +%s.%N)
"$ARCHSH" --no-rc --db "$work/p6.sqlite" -f "$work/p6.ash" > "$work/p6.out"
end=$(date +%s.%N)
python3 - "$work/p6.out" "$N" "$start" "$end" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
n = int(sys.argv[2])
times = [float(t) * (1000 if u == "s" else 1) for t, u in re.findall(r"^milliseconds: ([0-9.]+) ?(ms|s)\b", text, re.M)]
if len(times) != 10:
    times = [float(t) for t in re.findall(r"([0-9]+\.[0-9]+) ms\s*$", text, re.M)][-10:]
first, at_scale = min(times[:5]), min(times[5:])
count = re.findall(r"^count:\s+([0-9]+)", text, re.M)
print(f"== P6: a Repository fetch of 1,000 locations, at its first page and when it holds {n:,} (best of 5) ==")
print(f"first fetch (empty repository)          {first:8.2f} ms")
print(f"fetch with {int(count[-1]) if count else n:,} elements held     {at_scale:8.2f} ms  ({at_scale / first:.2f}× the first; goal 1.3×, floor 2×)")
print(f"filling {n:,} elements, page by page: {float(sys.argv[4]) - float(sys.argv[3]):.1f} s for the whole script")
PY
