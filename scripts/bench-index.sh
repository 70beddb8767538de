#!/usr/bin/env bash
# The index cache, binaries side by side in one run: cold listing that fills the cache, warm
# listing, listing after 4 KB appended to one session (the largest), with wall, user+sys CPU
# and peak RSS, and the bytes written into the cache folder (summed from strace).
#
#   scripts/bench-index.sh CORPUS_AGENT_DIR BIN [BIN...]
#
# CORPUS_AGENT_DIR is a pi agent folder (e.g. /tmp/pi-real-1k-sqlite/agent; it is appended
# to, so use a copy). Each BIN gets its own empty cache folder.
set -euo pipefail
agent=$1
shift
sessions="$agent/sessions"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

measure() { # label cache cmd...: prints "label wall_s cpu_s rss_mb"
    local label=$1 cache=$2
    shift 2
    /usr/bin/time -f "%e %U %S %M" -o "$work/t" env XDG_CACHE_HOME="$cache" \
        PI_CODING_AGENT_DIR="$agent" ATOMIC_CODING_AGENT_DIR="$work/none" "$@" >/dev/null 2>"$work/err"
    read -r wall user sys rss <"$work/t"
    printf '  %-22s wall %6.3f s  cpu %6.3f s  rss %6.1f MB\n' "$label" "$wall" \
        "$(echo "$user + $sys" | bc)" "$(echo "scale=1; $rss / 1024" | bc)"
}

written() { # cache cmd...: bytes written to files under the cache folder
    local cache=$1
    shift
    env XDG_CACHE_HOME="$cache" PI_CODING_AGENT_DIR="$agent" ATOMIC_CODING_AGENT_DIR="$work/none" \
        strace -f -y -e trace=write,pwrite64,writev,pwritev -o "$work/st" "$@" >/dev/null 2>&1
    grep -F "<$cache/" "$work/st" | sed -n 's/.*= \([0-9][0-9]*\)$/\1/p' | paste -sd+ | sed 's/^$/0/' | bc
}

files=$(find "$sessions" -name '*.jsonl' | wc -l)
bytes=$(find "$sessions" -name '*.jsonl' -print0 | du -cb --files0-from=- | tail -1 | cut -f1)
biggest=$(find "$sessions" -name '*.jsonl' -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
echo "corpus: $files files, $((bytes / 1000000)) MB; load: $(uptime | sed 's/.*load average: //')"
/usr/bin/time -f "%e %U %S" -o "$work/t" sh -c "find '$sessions' -name '*.jsonl' -print0 | xargs -0 cat >/dev/null"
read -r wall user sys <"$work/t"
echo "  cat                    wall $wall s  cpu $(echo "$user + $sys" | bc) s"

for bin in "$@"; do
    cache="$work/cache-$(basename "$bin")"
    echo "$bin"
    measure "cold (fills cache)" "$cache" "$bin" list --all --json
    for i in 1 2 3; do measure "warm $i" "$cache" "$bin" list --all --json; done
    echo "  cache folder: $(du -sb "$cache/grove" | cut -f1) bytes"
    python3 - "$biggest" <<'EOF'
import json, sys, random
p = sys.argv[1]
text = "appended " + "x" * 3900
line = {"type": "message", "id": "%08x" % random.getrandbits(32), "parentId": None,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1767225600000}}
open(p, "a").write(json.dumps(line) + "\n")
EOF
    echo "  appended ~4 KB to $(basename "$biggest") ($(stat -c %s "$biggest") bytes)"
    echo "  bytes written to the cache by the next listing: $(written "$cache" "$bin" list --all --json)"
    python3 - "$biggest" <<'EOF'
import json, sys, random
p = sys.argv[1]
line = {"type": "message", "id": "%08x" % random.getrandbits(32), "parentId": None,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "again " + "y" * 3900}], "timestamp": 1767225601000}}
open(p, "a").write(json.dumps(line) + "\n")
EOF
    measure "after 4 KB append" "$cache" "$bin" list --all --json
    measure "warm after append" "$cache" "$bin" list --all --json
done
