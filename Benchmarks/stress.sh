#!/usr/bin/env bash
# make stress: kill -9 in the middle of an --atomic script of 100,000 persists, TRIALS times; after
# each trial the workspace must hold all or none of the keys and pass `db check`.
set -euo pipefail
ARCHSH=${1:-.build/debug/archsh}
TRIALS=${2:-100}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config NO_COLOR=1
for i in $(seq 0 99999); do echo "store persist generalCache key$i value$i"; done > "$work/big.ash"
db=$work/workspace.sqlite
all=0 none=0
for trial in $(seq 1 "$TRIALS"); do
  "$ARCHSH" --db "$db" --atomic -f "$work/big.ash" &
  pid=$!
  sleep "0.$(( (RANDOM % 90) + 5 ))"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  count=$("$ARCHSH" --db "$db" --json -c 'db info' | python3 -c 'import json,sys; print(json.load(sys.stdin)["entries"]["generalCache"])')
  check=$("$ARCHSH" --db "$db" -c 'db check')
  if [ "$check" != ok ]; then echo "trial $trial: db check says: $check"; exit 1; fi
  case $count in
    0) none=$((none + 1)) ;;
    100000) all=$((all + 1)); "$ARCHSH" --db "$db" -c 'store trim generalCache --to-bytes 0' >/dev/null ;;
    *) echo "trial $trial: $count keys, neither all nor none"; exit 1 ;;
  esac
done
echo "stress: $TRIALS trials, $none with no keys, $all with all 100,000, every db check ok"
