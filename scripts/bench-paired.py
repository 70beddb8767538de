#!/usr/bin/env python3
"""Two or more grove builds compared on the same corpus, run for run (a benchmark, not a test).

    scripts/bench-paired.py CORPUS_AGENT_DIR ROUNDS BIN... [--modes nocache,fill,warm]

CORPUS_AGENT_DIR is a pi agent folder (DIR/agent of a `../shared/pi-corpus` corpus); it is only
read. Each round times `cat` of every session file, then each BIN in each mode, one after the
other, so that all see the same load (the order of the builds alternates between rounds):

- nocache: `grove --no-cache list --all --json`;
- fill: `grove list --all --json` with an empty cache (removed before each run);
- warm: `grove list --all --json` with the cache the build filled (its own: caches of another
  page size or schema are rebuilt, so builds never share one).

Wall time, and CPU time (user and sys, from `wait4`, which the machine's load does not
inflate), as medians over the rounds, with their ratios to `cat` for the cold modes and the
peak RSS. A single series on a shared machine varies by more than many changes; compare the
builds of one series, not figures from different ones.
"""

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import tempfile
import time


def timed(argv, env):
    """Wall ms, user ms, sys ms and peak RSS MB of one run (output discarded)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    if status != 0:
        raise SystemExit(f"failed ({status}): {' '.join(argv)}")
    return wall, usage.ru_utime * 1000, usage.ru_stime * 1000, usage.ru_maxrss / 1024


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("agent_dir")
    p.add_argument("rounds", type=int)
    p.add_argument("bins", nargs="+")
    p.add_argument("--modes", default="nocache,fill")
    a = p.parse_args()
    modes = a.modes.split(",")
    files = sorted(glob.glob(os.path.join(a.agent_dir, "sessions", "**", "*.jsonl"), recursive=True))
    if not files:
        raise SystemExit(f"no session files under {a.agent_dir}/sessions")
    work = tempfile.mkdtemp(prefix="grove-paired-")
    no_atomic = os.path.join(work, "no-atomic")
    os.makedirs(no_atomic)
    base = dict(os.environ, PI_CODING_AGENT_DIR=a.agent_dir, ATOMIC_CODING_AGENT_DIR=no_atomic)
    base.pop("PI_CODING_AGENT_SESSION_DIR", None)
    base.pop("ATOMIC_CODING_AGENT_SESSION_DIR", None)

    def env_of(i):
        return dict(base, XDG_CACHE_HOME=os.path.join(work, f"cache-{i}"))

    cat = ["bash", "-c", f"find {a.agent_dir}/sessions -name '*.jsonl' -print0 | xargs -0 cat > /dev/null"]
    for _ in range(2):  # into the page cache
        timed(cat, base)
    if "warm" in modes:
        for i, b in enumerate(a.bins):
            timed([b, "list", "--all", "--json"], env_of(i))
    results = {}
    cats = []
    try:
        for r in range(a.rounds):
            cw, cu, cs, _ = timed(cat, base)
            cats.append((cw, cu + cs))
            order = list(enumerate(a.bins))
            if r % 2:
                order.reverse()
            line = [f"round {r + 1}: load {os.getloadavg()[0]:.2f}, cat {cw:.0f} ms / {cu + cs:.0f} ms CPU"]
            for i, b in order:
                env = env_of(i)
                for m in modes:
                    if m == "nocache":
                        argv = [b, "--no-cache", "list", "--all", "--json"]
                    elif m == "fill":
                        shutil.rmtree(os.path.join(env["XDG_CACHE_HOME"], "grove"), ignore_errors=True)
                        argv = [b, "list", "--all", "--json"]
                    elif m == "warm":
                        argv = [b, "list", "--all", "--json"]
                    else:
                        raise SystemExit(f"unknown mode {m}")
                    w, u, s, rss = timed(argv, env)
                    if m == "fill" and "warm" in modes:
                        timed(argv, env)  # the warm runs of the next round find a cache
                    results.setdefault((b, m), []).append((w, u, s, rss, w / cw, (u + s) / (cu + cs)))
                    line.append(f"{os.path.basename(b)} {m} {w:.0f}/{u + s:.0f}")
            print("  ".join(line), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    med = statistics.median
    print(f"\ncat: {med(c[0] for c in cats):.0f} ms wall, {med(c[1] for c in cats):.0f} ms CPU")
    for (b, m), v in results.items():
        ratios = "" if m == "warm" else (
            f" = {med(x[4] for x in v):.2f}× cat wall, {med(x[5] for x in v):.2f}× cat CPU")
        print(f"{b} {m}: wall {med(x[0] for x in v):.1f} ms, CPU {med(x[1] + x[2] for x in v):.0f} ms "
              f"(user {med(x[1] for x in v):.0f}, sys {med(x[2] for x in v):.0f}){ratios}, "
              f"peak RSS {max(x[3] for x in v):.0f} MB")


if __name__ == "__main__":
    main()
