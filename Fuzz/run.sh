#!/usr/bin/env bash
# make fuzz: builds two libFuzzer targets, every module instrumented for coverage (swift build
# --sanitize=fuzzer,address): one over the whole command language, run until FUZZ_RUNS executions
# (default 1,000,000) or FUZZ_SECONDS (default 1200), whichever comes first; and one over the
# response path (a server's bytes in, a response or an error out), run until FUZZ_RESPONSE_RUNS
# (default 1,000,000) or FUZZ_RESPONSE_SECONDS (default 300).
set -euo pipefail
cd "$(dirname "$0")/.."
# The packages every build needs (make deps); libedit is loaded at run time, so no headers.
make --no-print-directory deps
scratch_build=.build-fuzz
# SwiftPM kept objects of archsh's own modules built before Package.swift gave them coverage flags
# (under ARCHSH_FUZZ=1), and the fuzzer ran blind; a build folder from before those flags has its
# modules rebuilt once.
stamp=$scratch_build/coverage-flags
if [ -d "$scratch_build" ] && [ ! -f "$stamp" ]; then
  rm -rf "$scratch_build"/*/release/{Commands,Domain,ShellFuzz}.build
fi
for product in ShellFuzz ResponseFuzz; do
  echo "building the fuzz target $product (swift build --sanitize=fuzzer --sanitize=address)"
  ARCHSH_FUZZ=1 swift build -c release --scratch-path "$scratch_build" --product "$product" \
    --sanitize=fuzzer --sanitize=address 2>&1 | grep -Ev "Cannot export local symbol|^\[" || true
  [ -x "$scratch_build/release/$product" ] || { echo "fuzz: $product did not build"; exit 1; }
done
binary=$(pwd)/$scratch_build/release/ShellFuzz
response_binary=$(pwd)/$scratch_build/release/ResponseFuzz
touch "$stamp"

# The corpus starts from every walkthrough and test fixture, whole and line by line, and from every
# command's examples in the reference; the fuzzer adds what reaches new code.
corpus=$(pwd)/$scratch_build/corpus
mkdir -p "$corpus"
seed() { printf '%s' "$1" > "$corpus/seed-$(printf '%s' "$1" | md5sum | cut -c1-12)"; }
for file in examples/*.ash Tests/ArchShellTests/Fixtures/*.ash; do
  cp "$file" "$corpus/file-$(basename "$file")"
  while IFS= read -r line; do [ -n "$line" ] && seed "$line"; done < "$file"
done
awk '/^examples:/ { inside = 1; next } /^```/ { inside = 0 } inside && NF { sub(/^  /, ""); print }' \
  docs/commands.md | while IFS= read -r line; do seed "$line"; done
echo "corpus: $(ls "$corpus" | wc -l) inputs"

# The target runs in a scratch directory, with no standard input; crash reproducers land there.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
runs=${FUZZ_RUNS:-1000000}
seconds=${FUZZ_SECONDS:-1200}
jobs=${FUZZ_JOBS:-$(nproc)}
# AddressSanitizer's quarantine (256 MB by default) holds freed memory back to catch use after
# free; 32 MB keeps that protection for recent frees and the process's memory bounded. Leak
# detection after each input quartered the speed (the Swift runtime's caches look like leaks to
# its malloc/free count); -rss_limit_mb still stops a run whose memory grows without bound.
export ASAN_OPTIONS=quarantine_size_mb=32:detect_leaks=0
# One fuzzer per core, sharing the corpus; together they run FUZZ_RUNS inputs. An input is at most
# 256 bytes, a script of a few lines: 512-byte inputs ran at half the rate.
(cd "$scratch" && HOME=$scratch "$binary" -jobs="$jobs" -workers="$jobs" \
  -runs=$(( (runs + jobs - 1) / jobs )) -max_total_time="$seconds" -max_len=256 -timeout=10 \
  -rss_limit_mb=1024 -detect_leaks=0 -print_final_stats=1 "$corpus" < /dev/null \
  > "$scratch/fuzz.log" 2>&1 || true)
cat "$scratch"/fuzz-*.log >> "$scratch/fuzz.log" 2>/dev/null || true
grep -m1 'Loaded [0-9]* modules' "$scratch/fuzz.log" || true
for log in "$scratch"/fuzz-*.log; do
  grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true
done
python3 - "$scratch" "$jobs" <<'PY'
import glob, re, sys
executed, rss, rate = 0, 0, 0
for log in glob.glob(f"{sys.argv[1]}/fuzz-*.log"):
    text = open(log, errors="replace").read()
    executed += int((re.findall(r"stat::number_of_executed_units: (\d+)", text) or ["0"])[-1])
    rate += int((re.findall(r"stat::average_exec_per_sec: +(\d+)", text) or ["0"])[-1])
    rss = max(rss, int((re.findall(r"stat::peak_rss_mb: +(\d+)", text) or ["0"])[-1]))
print(f"fuzz: {executed} executions in {sys.argv[2]} jobs, {rate} executions/s together, peak RSS {rss} MB")
PY
if grep -q 'ERROR: libFuzzer\|ERROR: AddressSanitizer\|deadly signal' "$scratch/fuzz.log"; then
  tail -40 "$scratch/fuzz.log"
  echo "fuzz: CRASH found; the reproducer and log are in $scratch (kept)"
  trap - EXIT
  exit 1
fi
echo "fuzz: no crashes in the command language"

# The response path: its corpus starts from answers real and hostile servers give. The first byte
# of an input says how many bytes each read hands over.
response_corpus=$(pwd)/$scratch_build/response-corpus
mkdir -p "$response_corpus"
python3 - "$response_corpus" <<'PY'
import sys
answers = [
    b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-T: 1\r\n\r\n",
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
    b"HTTP/1.0 200 OK\r\n\r\nread to the close",
    b"HTTP/1.1 -1 Bad\r\nContent-Length: 0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello!!",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 9\r\n\r\n1\r\nx\r\n0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 408 Timeout\r\n\r\n",
    b"SSH-2.0-OpenSSH_9.2p1\r\n",
]
for index, answer in enumerate(answers):
    for size in (1, 7, 255):
        open(f"{sys.argv[1]}/seed-{index}-{size}", "wb").write(bytes([size - 1]) + answer)
PY
response_runs=${FUZZ_RESPONSE_RUNS:-1000000}
response_seconds=${FUZZ_RESPONSE_SECONDS:-300}
(cd "$scratch" && HOME=$scratch "$response_binary" -jobs="$jobs" -workers="$jobs" \
  -runs=$(( (response_runs + jobs - 1) / jobs )) -max_total_time="$response_seconds" \
  -max_len=4096 -timeout=10 -rss_limit_mb=1024 -detect_leaks=0 -print_final_stats=1 \
  "$response_corpus" < /dev/null > "$scratch/response.log" 2>&1 || true)
cat "$scratch"/fuzz-*.log > "$scratch/response.log" 2>/dev/null || true
python3 - "$scratch" "$jobs" <<'PY'
import glob, re, sys
executed, rate = 0, 0
for log in glob.glob(f"{sys.argv[1]}/fuzz-*.log"):
    text = open(log, errors="replace").read()
    executed += int((re.findall(r"stat::number_of_executed_units: (\d+)", text) or ["0"])[-1])
    rate += int((re.findall(r"stat::average_exec_per_sec: +(\d+)", text) or ["0"])[-1])
print(f"fuzz (responses): {executed} executions in {sys.argv[2]} jobs, {rate} executions/s together")
PY
if grep -q 'ERROR: libFuzzer\|ERROR: AddressSanitizer\|deadly signal' "$scratch/response.log"; then
  tail -40 "$scratch/response.log"
  echo "fuzz: CRASH found in the response path; the reproducer and log are in $scratch (kept)"
  trap - EXIT
  exit 1
fi
echo "fuzz: no crashes"
