#!/usr/bin/env python3
"""The browser's budgets on a corpus, warm cache (a benchmark, not a test).

    scripts/bench-browser.py CORPUS_SESSIONS_DIR BIN [--runs N] [--query WORDS]

CORPUS_SESSIONS_DIR is a pi `sessions` folder (e.g. /tmp/pi-real-10k-shared/agent/sessions); it
is only read. BIN is a grove binary (a release build). grove runs in tmux (200x50) with its own
temporary cache, config and data folders; a first run fills the index (the cache is then warm).
Then, per run:

1. First rows on screen: the time from asking tmux to start grove until the screen shows a
   session row (the selected row's `›`), polling the screen every 5 ms, and grove's CPU time by
   then; also the time until the
   header's "Loading n/N" is gone (every session listed) and grove's CPU time (user+sys, all
   threads, from /proc) at that point.
2. Full-text search: the query is typed; once "N matches" shows with nothing loading and the
   count has not changed for 2 s (the search text loads in the background), the process's RSS
   and peak RSS (VmRSS, VmHWM from /proc) are read.

Prints the load (uptime) with the figures: wall-clock times are distorted by the load.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

SOCK = f"bench-browser-{os.getpid()}"
TICK = os.sysconf("SC_CLK_TCK")


def tmux(*args):
    return subprocess.run(["tmux", "-L", SOCK, *args], capture_output=True, text=True)


def screen():
    return tmux("capture-pane", "-p", "-t", "g").stdout


def wait(cond, timeout=600, every=0.005):
    start = time.monotonic()
    while True:
        s = screen()
        if cond(s):
            return time.monotonic(), s
        if time.monotonic() - start > timeout:
            raise SystemExit("timed out; screen:\n" + s)
        time.sleep(every)


def has_rows(s):
    return any(line.startswith("› ") for line in s.splitlines()[3:])


def loaded(s):
    lines = s.splitlines()
    return bool(lines) and "Loading" not in lines[0] and has_rows(s)


def cpu_ms(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / TICK


def mem_mb(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) / 1024
    return out["VmRSS"], out["VmHWM"]


def start(work, binary, sessions):
    env = (
        f"HOME={work}/home XDG_CONFIG_HOME={work}/config XDG_DATA_HOME={work}/data "
        f"XDG_CACHE_HOME={work}/cache GROVE_CONFIG= TERM=xterm-256color "
        # BENCH_ENV: more variables for grove, e.g. BENCH_ENV='GROVE_WATCH=off'.
        + os.environ.get("BENCH_ENV", "")
    )
    cmd = f"exec env {env} {binary} --session-dir {sessions} --all"
    t0 = time.monotonic()
    r = tmux("-f", "/dev/null", "new-session", "-d", "-s", "g", "-x", "200", "-y", "50", cmd)
    if r.returncode != 0:
        raise SystemExit(r.stderr)
    pid = int(tmux("display-message", "-p", "-t", "g", "#{pane_pid}").stdout.strip())
    return t0, pid


def stop():
    tmux("kill-server")
    # A new server on the same socket right away can fail ("server exited unexpectedly").
    time.sleep(1.0)


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sessions")
    ap.add_argument("binary")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--query", default="error handling")
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    work = tempfile.mkdtemp(prefix="bench-browser-")
    try:
        for d in ("home", "config", "data", "cache"):
            os.makedirs(f"{work}/{d}")
        # Fill the index.
        t0, pid = start(work, binary, a.sessions)
        t, _ = wait(loaded, timeout=1800)
        print(f"cold (filling the index): all listed after {t - t0:.1f} s, load {load()}")
        stop()
        firsts, first_cpus, alls, cpus, rss, hwm = [], [], [], [], [], []
        for run in range(a.runs):
            ld = load()
            t0, pid = start(work, binary, a.sessions)
            t_rows, s = wait(has_rows)
            cpu_rows = cpu_ms(pid)
            t_all, _ = wait(loaded)
            cpu = cpu_ms(pid)
            counter = [line for line in s.splitlines() if line.startswith("─")]
            tmux("send-keys", "-t", "g", "-l", a.query)
            t_q = time.monotonic()
            t_hits, s = wait(
                lambda s: " match" in s.splitlines()[2] and "Loading" not in s.splitlines()[0]
                and "earching" not in s,
                timeout=600,
            )
            # Let the search settle: the search text loads in the background and the count
            # grows; wait until the count line has not changed for 2 s.
            last, since = s.splitlines()[2], time.monotonic()
            while time.monotonic() - since < 2.0:
                time.sleep(0.1)
                s = screen()
                if s.splitlines()[2] != last:
                    last, since = s.splitlines()[2], time.monotonic()
                    t_hits = since
            r, h = mem_mb(pid)
            hits = s.splitlines()[2].split("│")[0].split()[-2:]
            print(
                f"run {run + 1} (load {ld}): first rows {1000 * (t_rows - t0):.0f} ms "
                f"({counter[0].strip('─ ') if counter else '?'}; CPU {cpu_rows:.0f} ms), all listed "
                f"{1000 * (t_all - t0):.0f} ms, CPU by then {cpu:.0f} ms; search {a.query!r}: "
                f"{' '.join(hits)} after {1000 * (t_hits - t_q):.0f} ms, RSS {r:.0f} MB, "
                f"peak {h:.0f} MB"
            )
            firsts.append(1000 * (t_rows - t0))
            first_cpus.append(cpu_rows)
            alls.append(1000 * (t_all - t0))
            cpus.append(cpu)
            rss.append(r)
            hwm.append(h)
            stop()
        med = statistics.median
        print(
            f"median of {a.runs}: first rows {med(firsts):.0f} ms (max {max(firsts):.0f}, CPU "
            f"{med(first_cpus):.0f} ms), "
            f"all listed {med(alls):.0f} ms, CPU {med(cpus):.0f} ms; after the search RSS "
            f"{med(rss):.0f} MB, peak {med(hwm):.0f} MB (max {max(hwm):.0f}); load at the end "
            f"{load()}"
        )
    finally:
        tmux("kill-server")
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
