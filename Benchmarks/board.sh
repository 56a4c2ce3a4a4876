#!/usr/bin/env bash
# The board: how soon an event reaches a page, what a burst of 1,000 events costs, and the memory
# archsh holds after 100,000 events, next to the same session with the board closed.
# Usage: Benchmarks/board.sh PATH/TO/archsh [PERSISTS]
set -euo pipefail
ARCHSH=${1:-.build/release/archsh}
N=${2:-100000}
here=$(cd "$(dirname "$0")" && pwd)
"$here/../scripts/apt-install" python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config NO_COLOR=1
python3 - "$ARCHSH" "$N" "$work" <<'PY'
import json, os, re, select, socket, subprocess, sys, threading, time

archsh, n, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0

class Shell:
    def __init__(self, board):
        self.process = subprocess.Popen([archsh, "--no-rc", "--db", f"{work}/{'b' if board else 'n'}.sqlite"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    def send(self, line):
        self.process.stdin.write((line + "\n").encode()); self.process.stdin.flush()
    def read_until(self, pattern, timeout=30):
        buffer, end = b"", time.time() + timeout
        while time.time() < end:
            ready, _, _ = select.select([self.process.stdout], [], [], 0.1)
            if ready:
                chunk = os.read(self.process.stdout.fileno(), 65536)
                if not chunk: break
                buffer += chunk
                match = re.search(pattern, buffer)
                if match: return match
        raise SystemExit(f"timed out waiting for {pattern!r}")
    def quit(self):
        self.process.stdin.close(); self.process.wait(timeout=60)

class Page(threading.Thread):
    """An SSE reader that notes when each command's 'ended' event arrives."""
    def __init__(self, port, token):
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.sendall(f"GET /events?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        self.ended, self.events, self.bytes, self.lock = {}, 0, 0, threading.Lock()
    def run(self):
        pending = b""
        while True:
            try: chunk = self.sock.recv(1 << 20)
            except OSError: return
            if not chunk: return
            now = time.perf_counter()
            pending += chunk
            with self.lock:
                self.bytes += len(chunk)
                self.events += chunk.count(b"\nevent: arch\n")
                for match in re.finditer(rb'"phase":"ended","line":"([^"]*)"', chunk):
                    self.ended.setdefault(match.group(1).decode(), now)
    def wait(self, line, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            with self.lock:
                if line in self.ended: return self.ended[line]
            time.sleep(0.001)
        raise SystemExit(f"the page never saw {line!r} end")

print("== the board: event to page, a burst, and memory after many events ==")
shell = Shell(board=True)
shell.send("board open")
match = shell.read_until(rb"http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]+)")
page = Page(int(match.group(1)), match.group(2).decode()); page.start()
time.sleep(0.3)

# Event to page: a command that does next to nothing; from the line written to its 'ended' event
# arriving, minus nothing (the command itself takes microseconds).
latencies = []
for i in range(50):
    line = f"echo ping{i}"
    start = time.perf_counter(); shell.send(line)
    latencies.append((page.wait(line) - start) * 1000)
latencies.sort()
print(f"command typed -> its events on the page: median {latencies[25]:.2f} ms, worst {latencies[-1]:.2f} ms (50 commands)")

# A burst: 'auth burst 150' after an expired token makes about 1,000 events (requests sent and
# answered with headers and bodies, spans, log lines, factory products).
shell.send("set pw lovelace --secret"); shell.send("auth login ada@example.com $pw"); shell.send("auth expire")
page.wait("auth expire")
before = page.events
start = time.perf_counter(); shell.send("auth burst 150 /users/me --summary")
arrived = page.wait("auth burst 150 /users/me --summary")
time.sleep(0.5)
burst = page.events - before
print(f"auth burst 150: {burst} events reached the page; the last {((arrived - start) * 1000):.0f} ms after the line was typed (the requests included)")

# Many events: N persists, each a command and a store write (and their began/ended events).
with open(f"{work}/many.ash", "w") as f:
    for i in range(n): f.write(f"store persist generalCache k{i % 1000} v{i}\n")
def many(shell, page):
    start = time.perf_counter()
    shell.send(f"source {work}/many.ash"); shell.send("echo done-many")
    if page: page.wait("echo done-many", timeout=600)
    else:
        # Output to a pipe is written out at exit or when a command asks (as 'board open' does).
        shell.send("board open"); shell.read_until(rb"done-many", timeout=600)
    return time.perf_counter() - start
elapsed = many(shell, page)
time.sleep(0.5)
board_rss = rss_kb(shell.process.pid)
shell.send("board status"); status = shell.read_until(rb"bytes_held: +(\d+)")
print(f"{n:,} persists with the board open: {elapsed:.2f} s, {page.events:,} events sent, {page.bytes / 1e6:.1f} MB streamed")
print(f"  archsh RSS after them: {board_rss / 1024:.1f} MB; the board holds {int(status.group(1)) / 1e6:.1f} MB of history (bounded: 20,000 messages, 24 MiB)")
shell.quit()

plain = Shell(board=False)
plain.send("echo ready"); plain.read_until(rb"ready")
elapsed = many(plain, None)
print(f"{n:,} persists with the board closed: {elapsed:.2f} s; archsh RSS after them: {rss_kb(plain.process.pid) / 1024:.1f} MB (the board opened after them)")
plain.quit()
PY
