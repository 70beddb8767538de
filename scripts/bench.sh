#!/usr/bin/env bash
# Benchmark grove's listing, index cache and search over a corpus.
#
#   # real pi sessions (see ../shared/pi-corpus/README.md): DIR/agent/sessions
#   /tmp/node24/bin/node gen-corpus.mjs --out /tmp/pi-real-1k --sessions 1000 --seed 42 --no-fixtures --quiet
#   scripts/bench.sh /tmp/pi-real-1k
#   # or grove's own generator: DIR/pi-agent/sessions and DIR/atomic-agent/sessions
#   cargo run --release --example gen_corpus -- --sessions 10000 --seed 1 --out /tmp/corpus
#   scripts/bench.sh /tmp/corpus
#
# Prints: the `cat` floor, cold `grove list --all --json` without cache and filling the cache,
# warm, their wall and CPU (user+sys) ratios to `cat`, re-index time after appending ~4 KB to one
# session, peak RSS, time to first frame and search latency, and the load. CPU time is the figure
# to compare on a loaded machine. Uses a temporary cache dir (XDG_CACHE_HOME); never touches your
# own cache or sessions other than appending to one file of the corpus. Uses hyperfine when
# installed, else a timing loop.
set -euo pipefail

DIR=${1:?usage: scripts/bench.sh CORPUS_DIR}
DIR=$(cd "$DIR" && pwd)
RUNS=${RUNS:-5}
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-target}

cargo build --release --quiet --bin grove --example bench_scale
GROVE="$TARGET/release/grove"
BENCH="$TARGET/release/examples/bench_scale"

CACHE_HOME=$(mktemp -d)
trap 'rm -rf "$CACHE_HOME"' EXIT
export XDG_CACHE_HOME="$CACHE_HOME"
unset PI_CODING_AGENT_SESSION_DIR ATOMIC_CODING_AGENT_SESSION_DIR
if [ -d "$DIR/agent/sessions" ]; then
  # A real-pi corpus: pi sessions only.
  KIND="real pi"
  mkdir -p "$CACHE_HOME/no-atomic"
  export PI_CODING_AGENT_DIR="$DIR/agent" ATOMIC_CODING_AGENT_DIR="$CACHE_HOME/no-atomic"
  ROOTS=("$DIR/agent/sessions")
else
  KIND="gen_corpus"
  export PI_CODING_AGENT_DIR="$DIR/pi-agent" ATOMIC_CODING_AGENT_DIR="$DIR/atomic-agent"
  ROOTS=("$DIR/pi-agent/sessions" "$DIR/atomic-agent/sessions")
fi
PI_SESSIONS="${ROOTS[0]}"

FILES=$(find "${ROOTS[@]}" -name '*.jsonl' | wc -l)
MB=$(find "${ROOTS[@]}" -name '*.jsonl' -printf '%s\n' | awk '{s+=$1} END {printf "%d", s / 1000000}')
echo "corpus ($KIND): $FILES sessions, $MB MB; $(nproc) cores; $(date -u +%FT%RZ); load $(cut -d' ' -f1-3 /proc/loadavg)"

# Median wall time of a command in ms; $2 = command run before each timing (not timed).
median_ms() {
  local cmd=$1 prepare=${2:-true}
  if command -v hyperfine >/dev/null; then
    local json
    json=$(mktemp)
    hyperfine --style none --warmup 1 --runs "$RUNS" --prepare "$prepare" --export-json "$json" \
      "$cmd" >/dev/null 2>&1
    jq '.results[0].median * 1000 | floor' "$json"
    rm -f "$json"
  else
    local times=()
    for _ in $(seq "$RUNS"); do
      bash -c "$prepare" >/dev/null 2>&1
      local t0 t1
      t0=$(date +%s%N)
      bash -c "$cmd" >/dev/null 2>&1
      t1=$(date +%s%N)
      times+=($(((t1 - t0) / 1000000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p"
  fi
}

# Median CPU time (user + sys, ms) of a command; $2 = command run before each (not counted).
median_cpu_ms() {
  local cmd=$1 prepare=${2:-true} cpus=()
  for _ in $(seq "$RUNS"); do
    bash -c "$prepare" >/dev/null 2>&1
    cpus+=($(/usr/bin/time -f '%U %S' bash -c "$cmd >/dev/null 2>&1" 2>&1 | tail -1 |
      awk '{printf "%d", ($1 + $2) * 1000}'))
  done
  printf '%s\n' "${cpus[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p"
}

# "peak RSS MB / CPU ms (user + sys)" of one run: CPU time is what the machine's load does not
# inflate, so it is the figure to compare on a shared machine.
rss_cpu() {
  /usr/bin/time -f '%M %U %S' bash -c "$1 >/dev/null 2>&1" 2>&1 | tail -1 |
    awk '{printf "%.0f MB / %.0f ms", $1 / 1024, ($2 + $3) * 1000}'
}

export GROVE ROOTS_STR="${ROOTS[*]}"
CAT="find ${ROOTS[*]} -name '*.jsonl' -print0 | xargs -0 cat > /dev/null"
LIST="$GROVE list --all --json > /dev/null"
CLEAR="rm -rf $CACHE_HOME/grove"

eval "$CAT" # page cache
cat_ms=$(median_ms "$CAT")
nocache_ms=$(median_ms "$GROVE --no-cache list --all --json > /dev/null")
cold_ms=$(median_ms "$LIST" "$CLEAR")
cat_cpu=$(median_cpu_ms "$CAT")
nocache_cpu=$(median_cpu_ms "$GROVE --no-cache list --all --json")
cold_cpu=$(median_cpu_ms "$LIST" "$CLEAR")
eval "$LIST"
warm_ms=$(median_ms "$LIST")

# Growth: append ~4 KB (complete lines) to the newest pi session before each run.
VICTIM=$(find "$PI_SESSIONS" -name '*.jsonl' | sort | tail -1)
LINE=$(printf '{"type":"message","id":"b%07d","parentId":null,"timestamp":"2026-12-01T00:00:00.000Z","message":{"role":"user","content":"%s","timestamp":1796083200000}}' 1 "$(head -c 3900 /dev/zero | tr '\0' 'x')")
GROW="printf '%s\n' '$LINE' >> '$VICTIM'"
eval "$LIST"
grow_ms=$(median_ms "$LIST" "$GROW")
eval "$GROW"
grow_stats=$(GROVE_INDEX_STATS=1 $GROVE list --all --json 2>&1 >/dev/null | grep 'grove: index' || true)

rc_cat=$(rss_cpu "$CAT")
rc_nocache=$(rss_cpu "$GROVE --no-cache list --all --json")
eval "$CLEAR"
rc_cold=$(rss_cpu "$GROVE list --all --json")
rc_warm=$(rss_cpu "$GROVE list --all --json")
eval "$GROW"
rc_grow=$(rss_cpu "$GROVE list --all --json")

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f%%", 100 * a / b; else print "n/a" }'; }

echo
echo "| measure | result | target |"
echo "|---|---|---|"
echo "| cat floor (all session files) | ${cat_ms} ms wall, ${cat_cpu} ms CPU | |"
echo "| cold list, no cache (--no-cache) | ${nocache_ms} ms = $(ratio "$nocache_ms" "$cat_ms")× cat wall; ${nocache_cpu} ms = $(ratio "$nocache_cpu" "$cat_cpu")× cat CPU | ≤ 1.5× wall, ≤ 2× CPU |"
echo "| cold list, filling the cache | ${cold_ms} ms = $(ratio "$cold_ms" "$cat_ms")× cat wall; ${cold_cpu} ms = $(ratio "$cold_cpu" "$cat_cpu")× cat CPU | ≤ 1.5× wall, ≤ 2× CPU |"
echo "| warm list (cache, nothing changed) | ${warm_ms} ms = $(pct "$warm_ms" "$cold_ms") of cold | ≤ 100 ms, ≤ 5% of cold |"
echo "| list after appending 4 KB to one session | ${grow_ms} ms | proportional to new bytes |"
echo
echo "| one run | peak RSS / CPU (user+sys) |"
echo "|---|---|"
echo "| cat | $rc_cat |"
echo "| cold, --no-cache | $rc_nocache |"
echo "| cold, building the cache | $rc_cold |"
echo "| warm | $rc_warm |"
echo "| after a 4 KB append | $rc_grow |"
echo
echo "re-index after append: ${grow_stats#grove: index }"
echo
echo "library timings (bench_scale, warm cache):"
"$BENCH" frame --cache "$CACHE_HOME/grove"
"$BENCH" search --cache "$CACHE_HOME/grove"
echo
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "parse throughput without cache (fast path vs full parse):"
"$BENCH" scan --mode fast
"$BENCH" scan --mode full
