#!/usr/bin/env bash
# Benchmark grove's listing, index cache and search over a corpus.
#
#   # real pi sessions (see ../shared/pi-corpus/README.md): DIR/agent/sessions
#   /tmp/node24/bin/node gen-corpus.mjs --out /tmp/pi-real-1k --sessions 1000 --seed 42 --no-fixtures --quiet
#   scripts/bench.sh /tmp/pi-real-1k
#   GROW=0 ROUNDS=5 scripts/bench.sh /tmp/pi-real-10k-shared   # leaves the corpus unchanged
#   # or grove's own generator: DIR/pi-agent/sessions and DIR/atomic-agent/sessions
#   cargo run --release --example gen_corpus -- --sessions 10000 --seed 1 --out /tmp/corpus
#   scripts/bench.sh /tmp/corpus
#
# Prints: the `cat` floor, cold `grove list --all --json` without cache and filling the cache,
# in ROUNDS interleaved rounds (default RUNS) with each round's load, their wall and CPU
# (user+sys) ratios to `cat` (page cache warm for both), warm, re-index time after appending ~4 KB to one
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

# SKIP_BUILD=1: measure the release binaries already in the target folder.
[ -n "${SKIP_BUILD:-}" ] || cargo build --release --quiet --bin grove --example bench_scale
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

# "peak RSS MB / CPU ms (user + sys)" of one run: CPU time is what the machine's load does not
# inflate, so it is the figure to compare on a shared machine.
rss_cpu() {
  /usr/bin/time -f '%M %U %S' bash -c "$1 >/dev/null 2>&1" 2>&1 | tail -1 |
    awk '{printf "%.0f MB / %.0f ms", $1 / 1024, ($2 + $3) * 1000}'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f%%", 100 * a / b; else print "n/a" }'; }

export GROVE ROOTS_STR="${ROOTS[*]}"
CAT="find ${ROOTS[*]} -name '*.jsonl' -print0 | xargs -0 cat > /dev/null"
LIST="$GROVE list --all --json > /dev/null"
CLEAR="rm -rf $CACHE_HOME/grove"

# Cold listings against `cat`, interleaved: each of ROUNDS rounds runs `cat`, the listing
# without cache and the listing that fills an empty cache, one after the other, so the three
# see the same load; the page cache is warm for all (every file read twice first).
ROUNDS=${ROUNDS:-$RUNS}
eval "$CAT"
eval "$CAT"
# "wall_ms cpu_ms" (user + sys) of one run.
wall_cpu() {
  local t0 t1 cpu
  t0=$(date +%s%N)
  cpu=$(/usr/bin/time -f '%U %S' bash -c "$1 >/dev/null 2>&1" 2>&1 | tail -1 |
    awk '{printf "%d", ($1 + $2) * 1000}')
  t1=$(date +%s%N)
  echo "$(((t1 - t0) / 1000000)) $cpu"
}
median() { sort -n | sed -n "$(((ROUNDS + 1) / 2))p"; }
ROUNDS_OUT=$(mktemp)
echo
echo "cold listings vs cat, $ROUNDS interleaved rounds, page cache warm (files read twice before):"
echo "| round | load (1 min) | cat wall / CPU | --no-cache wall / CPU | filling wall / CPU |"
echo "|---|---|---|---|---|"
for r in $(seq "$ROUNDS"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  read -r cw cc < <(wall_cpu "$CAT")
  read -r nw nc < <(wall_cpu "$GROVE --no-cache list --all --json")
  eval "$CLEAR"
  read -r fw fc < <(wall_cpu "$GROVE list --all --json")
  echo "$cw $cc $nw $nc $fw $fc" >>"$ROUNDS_OUT"
  echo "| $r | $load | $cw / $cc ms | $nw / $nc ms = $(ratio "$nw" "$cw")× / $(ratio "$nc" "$cc")× | $fw / $fc ms = $(ratio "$fw" "$cw")× / $(ratio "$fc" "$cc")× |"
done
col() { awk -v k="$1" '{print $k}' "$ROUNDS_OUT" | median; }
# Median of the per-round ratios (a round's three runs share its load).
ratio_col() { awk -v a="$1" -v b="$2" '{ if ($b > 0) printf "%.2f\n", $a / $b }' "$ROUNDS_OUT" | median; }
cat_ms=$(col 1) cat_cpu=$(col 2) nocache_ms=$(col 3) nocache_cpu=$(col 4) cold_ms=$(col 5) cold_cpu=$(col 6)
r_nw=$(ratio_col 3 1) r_nc=$(ratio_col 4 2) r_fw=$(ratio_col 5 1) r_fc=$(ratio_col 6 2)
rm -f "$ROUNDS_OUT"
echo "medians of the rounds' ratios: --no-cache ${r_nw}× wall, ${r_nc}× CPU; filling ${r_fw}× wall, ${r_fc}× CPU (targets ≤ 1.5× wall, ≤ 2× CPU)"
eval "$LIST"
warm_ms=$(median_ms "$LIST")

# Growth: append ~4 KB (complete lines) to the newest pi session before each run (GROW=0
# skips it: for a corpus that must stay as it is, e.g. a shared one).
GROW_ON=${GROW:-1}
VICTIM=$(find "$PI_SESSIONS" -name '*.jsonl' | sort | tail -1)
LINE=$(printf '{"type":"message","id":"b%07d","parentId":null,"timestamp":"2026-12-01T00:00:00.000Z","message":{"role":"user","content":"%s","timestamp":1796083200000}}' 1 "$(head -c 3900 /dev/zero | tr '\0' 'x')")
GROW="printf '%s\n' '$LINE' >> '$VICTIM'"
grow_ms="skipped (GROW=0)" grow_stats="skipped (GROW=0)" rc_grow="skipped (GROW=0)"
if [ "$GROW_ON" != 0 ]; then
  eval "$LIST"
  grow_ms="$(median_ms "$LIST" "$GROW") ms"
  eval "$GROW"
  grow_stats=$(GROVE_INDEX_STATS=1 $GROVE list --all --json 2>&1 >/dev/null | grep 'grove: index' || true)
fi

rc_cat=$(rss_cpu "$CAT")
rc_nocache=$(rss_cpu "$GROVE --no-cache list --all --json")
eval "$CLEAR"
rc_cold=$(rss_cpu "$GROVE list --all --json")
rc_warm=$(rss_cpu "$GROVE list --all --json")
if [ "$GROW_ON" != 0 ]; then
  eval "$GROW"
  rc_grow=$(rss_cpu "$GROVE list --all --json")
fi


echo
echo "| measure | result | target |"
echo "|---|---|---|"
echo "| cat floor (all session files; medians of the rounds above) | ${cat_ms} ms wall, ${cat_cpu} ms CPU | |"
echo "| cold list, no cache (--no-cache) | ${nocache_ms} ms = ${r_nw}× cat wall; ${nocache_cpu} ms = ${r_nc}× cat CPU | ≤ 1.5× wall, ≤ 2× CPU |"
echo "| cold list, filling the cache | ${cold_ms} ms = ${r_fw}× cat wall; ${cold_cpu} ms = ${r_fc}× cat CPU | ≤ 1.5× wall, ≤ 2× CPU |"
echo "| warm list (cache, nothing changed) | ${warm_ms} ms = $(pct "$warm_ms" "$cold_ms") of cold | ≤ 60 ms, ≤ 40 MB peak RSS |"
echo "| list after appending 4 KB to one session | ${grow_ms} | proportional to new bytes |"
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
