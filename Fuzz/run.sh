#!/usr/bin/env bash
# make fuzz: builds a libFuzzer target over the lexer, dispatcher and completer, and runs a bounded
# number of executions. FUZZ_RUNS (default 2,000,000) and FUZZ_SECONDS (default 1200) bound it.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch_build=.build-fuzz
echo "building the fuzz target (swift build --sanitize=fuzzer,address)"
ARCHSH_FUZZ=1 swift build -c release --scratch-path "$scratch_build" --product ShellFuzz \
  --sanitize=fuzzer --sanitize=address 2>&1 | grep -Ev "Cannot export local symbol|^\[" || true
binary=$(pwd)/$scratch_build/release/ShellFuzz
[ -x "$binary" ] || { echo "fuzz: the fuzz target did not build"; exit 1; }

# A corpus seeded from the walkthroughs and the tests' fixtures; the fuzzer adds what it finds.
corpus=$(pwd)/$scratch_build/corpus
mkdir -p "$corpus"
for file in examples/*.ash Tests/ArchShellTests/Fixtures/*.ash; do
  while IFS= read -r line; do
    [ -n "$line" ] && printf '%s' "$line" > "$corpus/seed-$(printf '%s' "$line" | md5sum | cut -c1-12)"
  done < "$file"
done

# Commands may write files (trace export): run in a scratch directory, with no standard input.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
runs=${FUZZ_RUNS:-2000000}
seconds=${FUZZ_SECONDS:-1200}
(cd "$scratch" && HOME=$scratch "$binary" -runs="$runs" -max_total_time="$seconds" -max_len=512 \
  -print_final_stats=1 "$corpus" < /dev/null > "$scratch/fuzz.log" 2>&1 || true)
grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' "$scratch/fuzz.log" || true
if grep -q 'ERROR: libFuzzer\|ERROR: AddressSanitizer\|deadly signal' "$scratch/fuzz.log"; then
  tail -40 "$scratch/fuzz.log"
  echo "fuzz: CRASH found; the reproducer and log are in $scratch (kept)"
  trap - EXIT
  exit 1
fi
echo "fuzz: no crashes"
