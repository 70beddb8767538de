#!/usr/bin/env python3
"""Live lists, measured on a real-pi corpus (a benchmark, not a test).

    scripts/bench-live.py CORPUS_SESSIONS_DIR BIN [--copies N] [--idle-seconds S] [--appends K]

CORPUS_SESSIONS_DIR is a pi `sessions` folder (e.g. /tmp/pi-real-1k-shared/agent/sessions); it
is only read. The watched tree is N hard-linked copies of it (`cN-<folder>`), so 10 copies of
the 1k corpus are 10k watched sessions; the file appended to is first made a copy of its own.

1. Append latency: grove runs in tmux; an agent-like write (one line, one write) appends a
   user message to one session; the time until the picker shows it is measured by polling the
   screen every 5 ms: (a) the session's row, found by its name (the session is named before
   grove starts, its file times kept; a query for the name keeps it on screen, where a real
   corpus has sessions dated in the future above it in the Recent sort), shows the new count;
   (b) a phrase query for the appended text: the row appears (the refresh, the re-search of
   every session and the frame).
2. Idle CPU: user+sys CPU of the grove process (all threads, from /proc) over S seconds after
   the scan settled, with watching off, with the notifier, and polling; the difference to
   "off" is what watching costs.
Prints the load (uptime) with the figures: wall-clock latencies are distorted by the load.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone


def tmux(sock, *args):
    return subprocess.run(["tmux", "-L", sock, *args], capture_output=True, text=True)


def screen(sock):
    return tmux(sock, "capture-pane", "-p", "-t", "g").stdout


def wait(sock, cond, timeout=600, every=0.005):
    start = time.monotonic()
    while True:
        s = screen(sock)
        if cond(s):
            return time.monotonic() - start, s
        if time.monotonic() - start > timeout:
            raise SystemExit("timed out; screen:\n" + s)
        time.sleep(every)


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def start_grove(sock, work, binary, mode, cache):
    env = (
        f"HOME={work}/home XDG_CONFIG_HOME={work}/config XDG_DATA_HOME={work}/data "
        f"XDG_CACHE_HOME={cache} GROVE_CONFIG= GROVE_WATCH={mode} TERM=xterm-256color"
    )
    cmd = f"exec env {env} {binary} --session-dir {work}/s --all"
    r = tmux(sock, "-f", "/dev/null", "new-session", "-d", "-s", "g", "-x", "200", "-y", "50", cmd)
    if r.returncode != 0:
        raise SystemExit(r.stderr)
    pid = int(tmux(sock, "display-message", "-p", "-t", "g", "#{pane_pid}").stdout.strip())
    loaded, _ = wait(sock, lambda s: ("Resume Session" in s or "View Session" in s) and "Loading" not in s)
    return pid, loaded


def stop(sock):
    tmux(sock, "kill-server")
    # A new server on the same socket right away can fail ("server exited unexpectedly").
    time.sleep(1.0)


def append_message(path, text):
    with open(path, "rb") as f:
        last = f.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    parent = json.loads(last).get("id")
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    entry = {
        "type": "message",
        "id": os.urandom(4).hex(),
        "parentId": parent,
        "timestamp": now,
        "message": {"role": "user", "content": text, "timestamp": int(time.time() * 1000)},
    }
    line = (json.dumps(entry) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        t0 = time.monotonic()
        os.write(fd, line)
    finally:
        os.close(fd)
    return t0


# The appended session's name: one word, found in names only.
TARGET_NAME = "zqxbenchtarget"


def name_session(path):
    """Names the session (a `session_info` line off its last entry, with that entry's time), so
    that its row can be found by name; the file's times are kept, so it sorts as before."""
    st = os.stat(path)
    with open(path, "rb") as f:
        last = json.loads(f.read().rstrip(b"\n").rsplit(b"\n", 1)[-1])
    entry = {
        "type": "session_info",
        "id": os.urandom(4).hex(),
        "parentId": last.get("id"),
        "timestamp": last.get("timestamp"),
        "name": TARGET_NAME,
    }
    with open(path, "ab") as f:
        f.write((json.dumps(entry) + "\n").encode())
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def target_row(s):
    """The appended session's row (its list columns), or "" when it is not on screen."""
    for line in s.splitlines():
        if TARGET_NAME in line:
            return line.split("│")[0]
    return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("binary")
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--idle-seconds", type=float, default=30)
    ap.add_argument("--appends", type=int, default=5)
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    work = tempfile.mkdtemp(prefix="grove-bench-live-")
    sock = f"grove-bench-live-{os.getpid()}"
    try:
        for d in ["home", "config", "data", "s"]:
            os.makedirs(f"{work}/{d}")
        folders = sorted(os.listdir(a.corpus))
        for i in range(1, a.copies + 1):
            for d in folders:
                subprocess.run(["cp", "-al", f"{a.corpus}/{d}", f"{work}/s/c{i}-{d}"], check=True)
        files = sum(1 for _, _, fs in os.walk(f"{work}/s") for f in fs if f.endswith(".jsonl"))
        # The session appended to: the smallest of the first folder, a copy of its own.
        first = f"{work}/s/c1-{folders[0]}"
        target = min(
            (os.path.join(first, f) for f in os.listdir(first) if f.endswith(".jsonl")),
            key=os.path.getsize,
        )
        shutil.copyfile(target, target + ".tmp")
        os.replace(target + ".tmp", target)
        name_session(target)
        print(f"watched: {files} session files ({a.copies} copies of {a.corpus})")
        print(f"load at start: {os.getloadavg()}")

        # Idle CPU, each mode on a warm cache (a first run fills it).
        cache = f"{work}/cache"
        _, cold = start_grove(sock, work, binary, "off", cache)
        stop(sock)
        print(f"first listing (cold cache): {cold:.2f} s")
        for mode in ["off", "notify", "poll"]:
            pid, loaded = start_grove(sock, work, binary, mode, cache)
            time.sleep(3)  # the watcher's start (a recursive watch walks the folders)
            c0, t0 = cpu_ticks(pid), time.monotonic()
            time.sleep(a.idle_seconds)
            c1, t1 = cpu_ticks(pid), time.monotonic()
            hz = os.sysconf("SC_CLK_TCK")
            pct = 100.0 * (c1 - c0) / hz / (t1 - t0)
            print(
                f"idle CPU, watch={mode:6}: {pct:5.2f} % of one core over {t1 - t0:.0f} s "
                f"(listing shown after {loaded:.2f} s; load {os.getloadavg()[0]:.1f})"
            )
            stop(sock)

        # Append latency with the notifier.
        pid, _ = start_grove(sock, work, binary, "notify", cache)
        time.sleep(3)
        tmux(sock, "send-keys", "-t", "g", "C-s")  # Threaded → Recent
        wait(sock, lambda s: "Sort: Recent" in s)
        plain, searched = [], []
        tmux(sock, "send-keys", "-t", "g", "-l", TARGET_NAME)
        wait(sock, lambda s: target_row(s) != "" and "1 match" in s)
        for k in range(a.appends):
            before = target_row(screen(sock))
            t0 = append_message(target, f"grove bench marker plain {k}")
            wait(sock, lambda s: target_row(s) not in ("", before))
            plain.append(time.monotonic() - t0)
            time.sleep(1.5)
        tmux(sock, "send-keys", "-t", "g", "Escape")
        wait(sock, lambda s: "type to search" in s)
        for k in range(a.appends):
            marker = f"zqxbench{k}marker"
            tmux(sock, "send-keys", "-t", "g", "-l", f'"{marker}"')
            wait(sock, lambda s: "No sessions match" in s)
            t0 = append_message(target, f"grove bench {marker}")
            wait(sock, lambda s: "1 match" in s)
            searched.append(time.monotonic() - t0)
            tmux(sock, "send-keys", "-t", "g", "Escape")
            wait(sock, lambda s: "type to search" in s)
            time.sleep(1.0)
        stop(sock)

        def fmt(xs):
            return f"median {statistics.median(xs) * 1000:.0f} ms, max {max(xs) * 1000:.0f} ms"

        print(f"append → its row updated (found by name): {fmt(plain)}  over {len(plain)} appends")
        print(f"append → found by a phrase query:         {fmt(searched)}  over {len(searched)} appends")
        print(f"load at end: {os.getloadavg()}")
    finally:
        stop(sock)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
