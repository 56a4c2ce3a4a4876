#!/usr/bin/env bash
# The board: how soon an event reaches a page, what a burst of 1,000 events costs, and the memory
# archsh holds over about 100,000 events (20,000 persists, five events each), next to the same
# session with the board closed. Usage: Benchmarks/board.sh PATH/TO/archsh [PERSISTS]
set -euo pipefail
ARCHSH=${1:-.build-release/release/archsh}
N=${2:-20000}
here=$(cd "$(dirname "$0")" && pwd)
"$here/../scripts/apt-install" python3 time
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config NO_COLOR=1
python3 - "$ARCHSH" "$N" "$work" <<'PY'
import json, os, re, select, socket, subprocess, sys, threading, time

archsh, n, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]

class Shell:
    """archsh on pipes; its output is read all the time, so that it never waits on a full pipe."""
    def __init__(self, board):
        self.process = subprocess.Popen([archsh, "--no-rc", "--db", f"{work}/{'b' if board else 'n'}.sqlite"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.buffer, self.lock = b"", threading.Lock()
        threading.Thread(target=self.drain, daemon=True).start()
    def drain(self):
        while True:
            chunk = os.read(self.process.stdout.fileno(), 1 << 20)
            if not chunk: return
            with self.lock:
                self.buffer = (self.buffer + chunk)[-65536:]
    def send(self, line):
        self.process.stdin.write((line + "\n").encode()); self.process.stdin.flush()
    def read_until(self, pattern, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            with self.lock:
                match = re.search(pattern, self.buffer)
                if match:
                    self.buffer = self.buffer[match.end():]
                    return match
            time.sleep(0.005)
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
        self.closed = False
    def run(self):
        tail = b""  # the end of the last chunk, for a match split across two
        while True:
            try: chunk = self.sock.recv(1 << 20)
            except OSError: return
            # The board ends a page's stream (the last chunk) when it falls 8 MiB behind.
            if not chunk or chunk.endswith(b"\r\n0\r\n\r\n"):
                self.closed = True
                return
            now = time.perf_counter()
            text = tail + chunk
            tail = text[-4096:]
            with self.lock:
                self.bytes += len(chunk)
                self.events += chunk.count(b"\nevent: arch\n")
                for match in re.finditer(rb'"phase":"ended","line":"([^"]*)"', text):
                    self.ended.setdefault(match.group(1).decode(), now)
    def wait(self, line, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            with self.lock:
                if line in self.ended: return self.ended[line]
            if self.closed: raise SystemExit(f"the board ended the page's stream before {line!r} ended")
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

shell.quit()

# Many events: a script of N persists (each a command and a store write: about five events), run
# with the board open and a page reading it, then without the board; elapsed time and peak RSS.
def script(board):
    path = f"{work}/many-{board}.ash"
    with open(path, "w") as f:
        if board: f.write("board open\nsleep 300ms\n")
        for i in range(n): f.write(f"store persist generalCache k{i % 1000} v{i}\n")
        if board: f.write("board status\n")
    return path

def many(board):
    # GNU time reports archsh's peak resident memory; sampling missed short runs, and this
    # process's own ru_maxrss for a child counts the Python it was forked from.
    peak_file = f"{work}/peak-{board}"
    process = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", peak_file,
                                archsh, "--no-rc", "--db", f"{work}/many-{board}.sqlite", "-f", script(board)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    page = None
    if board:
        match = re.search(rb"127\.0\.0\.1:(\d+)/\?token=([0-9a-f]+)", process.stdout.readline())
        page = Page(int(match.group(1)), match.group(2).decode()); page.start()
    output = []
    threading.Thread(target=lambda: output.append(process.stdout.read()), daemon=True).start()
    start = time.perf_counter()
    process.wait()
    elapsed = time.perf_counter() - start
    peak = int(open(peak_file).read().split()[-1])
    time.sleep(0.2)
    held = re.search(rb"bytes_held: +(\d+)", b"".join(output))
    return elapsed, peak, page, int(held.group(1)) if held else 0

elapsed, peak, page, held = many(True)
print(f"{n:,} persists with the board open and a page reading: {elapsed:.2f} s, {page.events:,} events sent, {page.bytes / 1e6:.1f} MB streamed")
print(f"  archsh peak RSS {peak / 1024:.1f} MB; the board held {held / 1e6:.1f} MB of history at the end (bounded: 20,000 messages, 8 MiB)")
elapsed, peak, _, _ = many(False)
print(f"{n:,} persists with the board closed: {elapsed:.2f} s, archsh peak RSS {peak / 1024:.1f} MB")
PY
