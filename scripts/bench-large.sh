#!/usr/bin/env bash
# Opening large sessions, measured against `cat` of the same file, run for run.
#
#   cargo run --release --example gen_corpus -- --sessions 0 --seed 5 --out /tmp/big \
#     --big-session 1000 --linear-session 1000
#   scripts/bench-large.sh /tmp/big/pi-agent/sessions/*/*.jsonl
#
# `--big-session` writes a bushy session (branches, compactions), `--linear-session` one long
# linear branch shaped as pi writes a long-running session (thinking with signatures, tool
# calls, results of up to 120 lines, no compaction): give any number of files. For each file,
# each of RUNS rounds (default 5) times `cat FILE > /dev/null`, then a fresh process opening
# the leaf branch alone (`examples/open_big --leaf-first`: what the view draws first for a
# large session, read from the end of the file), then the session view of FILE
# (`examples/open_big --ready`: load, tree rows, the leaf's
# transcript window, built as the app builds it off the UI thread), then `grove tree --json`
# and `grove context --json` (output to /dev/null). Interleaving keeps them under the same
# conditions on a machine whose speed drifts. Prints, per file, the median wall time, the
# median CPU time (user + sys, which load does not inflate) and the peak RSS of each, with
# ratios to `cat`.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: scripts/bench-large.sh SESSION_FILE..." >&2; exit 2; }
RUNS=${RUNS:-5}
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --quiet --example open_big --bin grove
OPEN="$TARGET/release/examples/open_big"
GROVE="$TARGET/release/grove"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export XDG_CACHE_HOME="$TMP/cache"

# run NAME CMD...: one timed run; appends "wall_ms cpu_ms rss_mb" to $TMP/NAME.
run() {
  local name=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" ||
    { echo "failed: $* ($(tail -1 "$TMP/err"))" >&2; return 1; }
  awk '{printf "%d %d %d\n", $1 * 1000, ($2 + $3) * 1000, $4 / 1024}' "$TMP/t" >>"$TMP/$name"
}

median() { # column $2 of file $1
  sort -n -k"$2" "$1" | awk -v c="$2" '{v[NR]=$c} END {print v[int((NR+1)/2)]}'
}

for FILE in "$@"; do
  rm -f "$TMP"/{cat,leaf,open,tree,context}
  cat "$FILE" >/dev/null # into the page cache
  for _ in $(seq "$RUNS"); do
    run cat cat "$FILE"
    run leaf "$OPEN" --leaf-first "$FILE"
    run open "$OPEN" --ready "$FILE"
    run tree "$GROVE" --no-cache tree "$FILE" --json
    run context "$GROVE" --no-cache context "$FILE" --json
  done
  MB=$(($(stat -c %s "$FILE") / 1000000))
  ENTRIES=$(wc -l <"$FILE")
  echo "$(basename "$FILE"): $MB MB, $((ENTRIES - 1)) entries; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs"
  cw=$(median "$TMP/cat" 1) cc=$(median "$TMP/cat" 2)
  printf '  %-22s wall %6d ms   CPU %6d ms\n' "cat" "$cw" "$cc"
  for what in leaf open tree context; do
    w=$(median "$TMP/$what" 1) c=$(median "$TMP/$what" 2) r=$(median "$TMP/$what" 3)
    label=$what
    case $what in
      leaf) label="leaf branch drawn" ;;
      open) label="session view ready" ;;
      tree) label="grove tree --json" ;;
      context) label="grove context --json" ;;
    esac
    awk -v l="$label" -v w="$w" -v c="$c" -v r="$r" -v cw="$cw" -v cc="$cc" -v mb="$MB" \
      'BEGIN {if (cw < 1) cw = 1; if (cc < 1) cc = 1;
        printf "  %-22s wall %6d ms (%.1fx cat)   CPU %6d ms (%.1fx cat)   peak RSS %5d MB (%.2fx the file)\n",
          l, w, w / cw, c, c / cc, r, r / mb}'
  done
done
