#!/usr/bin/env bash
# Opening one large session, measured against `cat` of the same file, run for run.
#
#   cargo run --release --example gen_corpus -- --sessions 0 --seed 5 --out /tmp/big --big-session 1000
#   scripts/bench-large.sh /tmp/big/pi-agent/sessions/*/*.jsonl
#
# Each of RUNS rounds (default 7) times `cat FILE > /dev/null`, then a fresh process opening the
# session view of FILE (`examples/open_big`: load, tree rows, the leaf's transcript, built as the
# app builds it off the UI thread). Interleaving keeps the two under the same conditions on a
# machine whose speed drifts; prints the median and the best of each, their ratio, and peak RSS.
set -euo pipefail

FILE=${1:?usage: scripts/bench-large.sh SESSION_FILE}
RUNS=${RUNS:-7}
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --quiet --example open_big
OPEN="$TARGET/release/examples/open_big"

now_ns() { date +%s%N; }
cat "$FILE" >/dev/null # into the page cache
cats=() opens=() rss=()
for _ in $(seq "$RUNS"); do
  t=$(now_ns)
  cat "$FILE" >/dev/null
  cats+=($((($(now_ns) - t) / 1000000)))
  line=$("$OPEN" --ready "$FILE")
  # "session view ready in 1234 ms ...; peak RSS 437 MB"
  opens+=("$(sed -E 's/.*ready in ([0-9]+) ms.*/\1/' <<<"$line")")
  rss+=("$(sed -E 's/.*peak RSS ([0-9]+) MB.*/\1/' <<<"$line")")
done

stats() { # median and minimum of the arguments
  printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {printf "%d %d\n", v[int((NR+1)/2)], v[1]}'
}
read -r cat_med cat_min < <(stats "${cats[@]}")
read -r open_med open_min < <(stats "${opens[@]}")
read -r rss_med _ < <(stats "${rss[@]}")
MB=$(($(stat -c %s "$FILE") / 1000000))
echo "file: $MB MB; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs"
echo "cat:                median ${cat_med} ms, best ${cat_min} ms"
echo "session view ready: median ${open_med} ms, best ${open_min} ms"
awk -v a="$open_med" -v b="$cat_med" -v c="$open_min" -v d="$cat_min" \
  'BEGIN {if (b < 1) b = 1; if (d < 1) d = 1; printf "ratio to cat:       median %.1fx, best %.1fx\n", a / b, c / d}'
echo "peak RSS:           median ${rss_med} MB ($(awk -v r="$rss_med" -v m="$MB" 'BEGIN {printf "%.2f", r / m}')x the file)"
