# Shared by the benchmark scripts: `source "$(dirname "$0")/common.sh"`.

# The best of 5 wall-clock runs of a command, in seconds; a run that fails stops the benchmark.
best() {
  python3 - "$@" <<'PY'
import subprocess, sys, time
times = []
for _ in range(5):
    start = time.perf_counter()
    subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
    times.append(time.perf_counter() - start)
print(min(times))
PY
}
