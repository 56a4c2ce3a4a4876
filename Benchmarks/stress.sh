#!/usr/bin/env bash
# make stress: kill -9 in the middle of an --atomic script of 100,000 persists, TRIALS times; after
# each trial the workspace must hold all or none of the keys and pass `db check`. Then 8 processes
# write one workspace at once, and sessions start and stop the embedded API under CPU load.
set -euo pipefail
ARCHSH=${1:-.build/debug/archsh}
TRIALS=${2:-100}
work=$(mktemp -d)
trap 'kill ${busy[@]:-} 2>/dev/null; rm -rf "$work"' EXIT
export HOME=$work XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config NO_COLOR=1
for i in $(seq 0 99999); do echo "store persist generalCache key$i value$i"; done > "$work/big.ash"
db=$work/workspace.sqlite
# One full run sets the time scale; kills land between 5% and 150% of it, so that some trials die
# before the commit, some during it, and some after it.
start=$(date +%s%N)
"$ARCHSH" --db "$work/timing.sqlite" --atomic -f "$work/big.ash"
full_ms=$(( ($(date +%s%N) - start) / 1000000 ))
all=0 none=0
for trial in $(seq 1 "$TRIALS"); do
  "$ARCHSH" --db "$db" --atomic -f "$work/big.ash" &
  pid=$!
  delay_ms=$(( full_ms * (5 + RANDOM % 146) / 100 ))
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
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
echo "stress: $TRIALS trials (full run $full_ms ms), $none with no keys, $all with all 100,000, every db check ok"

# Concurrency at full strength: 8 processes persist 5,000 keys each into one new workspace.
shared=$work/shared.sqlite
for writer in $(seq 1 8); do
  for i in $(seq 1 5000); do echo "store persist generalCache w$writer-$i v$i"; done > "$work/w$writer.ash"
done
pids=()
for writer in $(seq 1 8); do
  "$ARCHSH" --db "$shared" -f "$work/w$writer.ash" 2> "$work/w$writer.err" &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
errors=$(cat "$work"/w*.err)
count=$("$ARCHSH" --db "$shared" --json -c 'db info' | python3 -c 'import json,sys; print(json.load(sys.stdin)["entries"]["generalCache"])')
check=$("$ARCHSH" --db "$shared" -c 'db check')
if [ "$failed" != 0 ] || [ -n "$errors" ] || [ "$count" != 40000 ] || [ "$check" != ok ]; then
  echo "concurrency: $failed failed processes, $count keys, db check: $check, errors: $errors"
  exit 1
fi
echo "concurrency: 8 processes x 5,000 persists into one new workspace: 40,000 keys, no errors, db check ok"

# The embedded API starts and stops under CPU load: two busy loops take both cores while RUNS
# sessions each start the API, ask it for a product and exit. Stopping the server used to cancel
# its task, which could deadlock (DemoAPI.shutDown says how); a session that has not ended after
# 20 s counts as hung.
RUNS=${STRESS_API_RUNS:-200}
busy=()
for _ in 1 2; do
  sh -c 'while :; do :; done' &
  busy+=($!)
done
hung=0 failed=0
for run in $(seq 1 "$RUNS"); do
  rm -f "$work"/api.sqlite*
  status=0
  timeout 20 "$ARCHSH" --no-rc --db "$work/api.sqlite" -c 'net api' -c 'net get /products/1' \
    > "$work/api.out" 2>&1 || status=$?
  if [ "$status" = 124 ]; then
    hung=$((hung + 1))
  elif [ "$status" != 0 ] || ! grep -q '^status: *200' "$work/api.out"; then
    failed=$((failed + 1))
    cat "$work/api.out"
  fi
done
kill "${busy[@]}"
if [ "$hung" != 0 ] || [ "$failed" != 0 ]; then
  echo "embedded API under load: $hung of $RUNS sessions hung, $failed failed"
  exit 1
fi
echo "embedded API under load: $RUNS sessions started it, got a product and exited; none hung"
