#!/usr/bin/env bash
# P2-P4: PersistenceController through archsh against sqlite3 doing the same SQL work on an
# equivalent schema (the same tables, index and triggers), in the same run.
# P3 and P4 are each the median of REPS runs (3; 1 for a quick run of few lines), archsh and its
# peers taking turns, because a single run on a shared machine varies by a tenth.
# Usage: Benchmarks/store.sh PATH/TO/archsh [LINES] [REPS]
set -euo pipefail
ARCHSH=${1:-.build-release/release/archsh}
LINES=${2:-100000}
REPS=${3:-$([ "$LINES" -ge 10000 ] && echo 3 || echo 1)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config NO_COLOR=1

# The schema archsh's first migration creates, so that sqlite3 maintains the same index and
# triggers per write.
"$ARCHSH" --db "$work/schema.sqlite" -c 'db info' >/dev/null
schema=$(sqlite3 "$work/schema.sqlite" "SELECT sql || ';' FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'grdb%' AND name NOT LIKE 'sqlite_%'")

python3 - "$work" "$LINES" <<'PY'
import sys
work, n = sys.argv[1], int(sys.argv[2])
with open(f"{work}/persist.ash", "w") as f:
    for i in range(n): f.write(f"store persist generalCache key{i} value{i}\n")
with open(f"{work}/retrieve.ash", "w") as f:
    for i in range(n): f.write(f"store retrieve generalCache key{i}\n")
upsert = ("INSERT INTO entry (store, key, value, bytes, created_at, accessed_at, access_count, age_limit) "
          "VALUES ('generalCache', 'key{i}', CAST('value{i}' AS BLOB), {b}, 1.0, 1.0, 0, NULL) "
          "ON CONFLICT (store, key) DO UPDATE SET value = excluded.value, bytes = excluded.bytes, "
          "created_at = excluded.created_at, accessed_at = excluded.accessed_at, age_limit = excluded.age_limit;\n")
for name, atomic in (("p2", True), ("p3", False)):
    with open(f"{work}/{name}.sql", "w") as f:
        f.write("PRAGMA journal_mode=WAL;\nPRAGMA synchronous=NORMAL;\n")
        if atomic: f.write("BEGIN;\n")
        for i in range(n): f.write(upsert.format(i=i, b=len(f"value{i}")))
        if atomic: f.write("COMMIT;\n")
with open(f"{work}/p4.sql", "w") as f:
    for i in range(n): f.write(f"SELECT value FROM entry WHERE store = 'generalCache' AND key = 'key{i}';\n")
# The plain key-value table the issue's store bar names: one table, key primary key, value.
with open(f"{work}/p3kv.sql", "w") as f:
    f.write("PRAGMA journal_mode=WAL;\nPRAGMA synchronous=NORMAL;\n")
    for i in range(n): f.write(f"INSERT OR REPLACE INTO kv VALUES ('key{i}', CAST('value{i}' AS BLOB));\n")
with open(f"{work}/p4kv.sql", "w") as f:
    for i in range(n): f.write(f"SELECT value FROM kv WHERE key = 'key{i}';\n")
PY

fresh() {  # a new archsh workspace, a sqlite3 database with the same schema, and a plain one
  rm -f "$work"/a.sqlite* "$work"/s.sqlite* "$work"/kv.sqlite*
  sqlite3 "$work/kv.sqlite" "PRAGMA journal_mode=WAL; CREATE TABLE kv (key TEXT PRIMARY KEY, value BLOB);" >/dev/null
  "$ARCHSH" --db "$work/a.sqlite" -c 'db info' >/dev/null
  sqlite3 "$work/s.sqlite" "PRAGMA journal_mode=WAL; $schema INSERT INTO store (name, byte_limit, age_limit, ttl) VALUES ('generalCache', 52428800, 2592000, 0);" >/dev/null
}
seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); echo "$end - $start" | bc; }
report() {  # name archsh-seconds sqlite-seconds goal
  python3 -c "import sys; n,a,s,g=sys.argv[1],float(sys.argv[2]),float(sys.argv[3]),sys.argv[4]; print(f'{n}  archsh {a*1000:8.0f} ms  sqlite3 {s*1000:8.0f} ms  ratio {a/s:5.2f}x  (goal {g})')" "$@"
}

fresh
a=$(seconds "$ARCHSH" --db "$work/a.sqlite" --atomic -f "$work/persist.ash")
s=$(seconds sqlite3 "$work/s.sqlite" ".read $work/p2.sql")
report "P2 $LINES persists, --atomic / one transaction   " "$a" "$s" "1.5x or less"

median() { python3 -c "import statistics, sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }
a3=() s3=() k3=()
for _ in $(seq "$REPS"); do
  fresh
  a3+=("$(seconds "$ARCHSH" --db "$work/a.sqlite" -f "$work/persist.ash")")
  s3+=("$(seconds sqlite3 "$work/s.sqlite" ".read $work/p3.sql")")
  k3+=("$(seconds sqlite3 "$work/kv.sqlite" ".read $work/p3kv.sql")")
done
a=$(median "${a3[@]}") s=$(median "${s3[@]}") k=$(median "${k3[@]}")
report "P3 $LINES persists, one transaction each         " "$a" "$s" "1.2x or less"
report "P3 the same, sqlite3 on a plain key-value table  " "$a" "$k" "1.0x or less"

# Each P4 run reads the workspace P3 left, copied, so that no run reads the access log another
# run wrote.
sqlite3 "$work/a.sqlite" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
a4=() s4=() k4=()
for _ in $(seq "$REPS"); do
  rm -f "$work"/read.sqlite*
  cp "$work/a.sqlite" "$work/read.sqlite"
  a4+=("$(seconds "$ARCHSH" --db "$work/read.sqlite" -f "$work/retrieve.ash")")
  s4+=("$(seconds sqlite3 "$work/s.sqlite" ".read $work/p4.sql")")
  k4+=("$(seconds sqlite3 "$work/kv.sqlite" ".read $work/p4kv.sql")")
done
a=$(median "${a4[@]}") s=$(median "${s4[@]}") k=$(median "${k4[@]}")
report "P4 $LINES retrieves / SELECTs                    " "$a" "$s" "1.5x or less"
report "P4 the same, sqlite3 on a plain key-value table  " "$a" "$k" "1.0x or less"

# Completion of keys with $LINES keys in the store: a prefix range query, as Tab runs it.
a=$(seconds "$ARCHSH" --db "$work/a.sqlite" -c 'store keys generalCache --prefix key9999 --limit 100')
echo "completion-sized prefix query over $LINES keys (whole process)  $(python3 -c "print(f'{float(\"$a\")*1000:.1f}')") ms"
