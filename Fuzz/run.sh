#!/usr/bin/env bash
# make fuzz: builds a libFuzzer target over the lexer, dispatcher and completer, and runs a bounded
# number of executions. FUZZ_RUNS (default 2,000,000) and FUZZ_SECONDS (default 600) bound it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build-fuzz
mkdir -p "$out"
flags=(-sanitize=fuzzer,address -parse-as-library -O -g)
echo "building the fuzz target (Domain, Commands, Fuzz/ShellFuzz.swift)"
swiftc "${flags[@]}" -emit-module -emit-library -static -module-name Domain \
  -emit-module-path "$out/Domain.swiftmodule" -o "$out/libDomain.a" $(find Sources/Domain -name '*.swift')
swiftc "${flags[@]}" -emit-module -emit-library -static -module-name Commands -I "$out" \
  -emit-module-path "$out/Commands.swiftmodule" -o "$out/libCommands.a" $(find Sources/Commands -name '*.swift')
# gold warns about every ASan helper symbol when linking Swift with -sanitize=address; the
# warnings are harmless, so only the rest of the link output is shown.
if ! swiftc "${flags[@]}" -I "$out" Fuzz/ShellFuzz.swift -L "$out" -lCommands -lDomain \
  -o "$out/shell-fuzz" > "$out/link.log" 2>&1; then
  cat "$out/link.log"
  exit 1
fi
grep -v "Cannot export local symbol" "$out/link.log" || true

# A corpus seeded from the walkthroughs and the tests' fixtures; the fuzzer adds what it finds.
corpus="$out/corpus"
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
seconds=${FUZZ_SECONDS:-600}
binary=$(pwd)/$out/shell-fuzz
corpus=$(pwd)/$corpus
(cd "$scratch" && HOME=$scratch "$binary" -runs="$runs" -max_total_time="$seconds" -max_len=512 \
  -print_final_stats=1 "$corpus" < /dev/null 2>&1 | tee "$scratch/fuzz.log" | grep -E '^#[0-9]+ +(DONE|pulse)|ERROR|crash|Done' || true)
grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' "$scratch/fuzz.log" || true
if grep -q 'ERROR: libFuzzer\|ERROR: AddressSanitizer\|deadly signal' "$scratch/fuzz.log"; then
  echo "fuzz: CRASH found; the reproducer is in $scratch (kept)"; trap - EXIT; exit 1
fi
echo "fuzz: no crashes"
