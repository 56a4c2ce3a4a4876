#!/usr/bin/env python3
"""Prints the resident memory (kB) of an interactive program waiting at its prompt on a real
pseudo-terminal, after it ran the given lines. Used by Benchmarks/run.sh.

Usage: rss.py PROMPT LINES -- PROGRAM [ARG...]   (LINES separated by ';', may be empty)
"""
import os, pty, select, sys, time

prompt, lines = sys.argv[1].encode(), [l for l in sys.argv[2].split(";") if l]
program = sys.argv[sys.argv.index("--") + 1:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(program[0], program)


def wait_for_prompt(seconds=30):
    seen, end = b"", time.time() + seconds
    while time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                seen += os.read(fd, 4096)
            except OSError:
                break
            if seen.rstrip(b" ").endswith(prompt.rstrip(b" ")):
                return
    sys.exit(f"rss.py: no prompt from {program[0]}: {seen[-200:]!r}")


wait_for_prompt()
for line in lines:
    os.write(fd, line.encode() + b"\n")
    wait_for_prompt()
time.sleep(0.3)
with open(f"/proc/{pid}/status") as status:
    print(next(field.split()[1] for field in status if field.startswith("VmRSS:")))
os.write(fd, b"\x04")
os.waitpid(pid, 0)
