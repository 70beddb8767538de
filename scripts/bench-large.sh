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
#
# Then the writes with a warm index, on a copy of FILE (in the temporary folder, deleted at the
# end; set KEEP_COPY=0 to skip them): the copy is listed once into a fresh cache (which keeps a
# large file's entry offsets), then each round times `grove checkout COPY FAR` (FAR: the entry
# in the middle of the file, so its line is ~half the file back from the end), the leaf branch
# of the copy drawn after that checkout (its leaf now hangs from an entry far back: read with
# the index's offsets), and `grove label COPY LEAF TEXT`. It ends with one table:
# leaf branch drawn, full tree (the session view ready), its RSS ratio, checkout far target,
# label. VIEW_ONLY=1 leaves out `tree --json` and `context --json` (slow on a busy machine).
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

SUMMARY="$TMP/summary"
printf '%-34s %18s %18s %10s %18s %18s %18s\n' file "leaf branch drawn" "full tree" "RSS/file" \
  "checkout far" "leaf after jump" label >"$SUMMARY"
for FILE in "$@"; do
  rm -f "$TMP"/{cat,leaf,open,tree,context,checkout,jump,label}
  cat "$FILE" >/dev/null # into the page cache
  for _ in $(seq "$RUNS"); do
    run cat cat "$FILE"
    run leaf "$OPEN" --leaf-first "$FILE"
    run open "$OPEN" --ready "$FILE"
    if [ "${VIEW_ONLY:-0}" = 0 ]; then
      run tree "$GROVE" --no-cache tree "$FILE" --json
      run context "$GROVE" --no-cache context "$FILE" --json
    fi
  done
  MB=$(($(stat -c %s "$FILE") / 1000000))
  ENTRIES=$(wc -l <"$FILE")
  echo "$(basename "$FILE"): $MB MB, $((ENTRIES - 1)) entries; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs"
  cw=$(median "$TMP/cat" 1) cc=$(median "$TMP/cat" 2)
  printf '  %-22s wall %6d ms   CPU %6d ms\n' "cat" "$cw" "$cc"
  for what in leaf open tree context; do
    [ -s "$TMP/$what" ] || continue
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
  wcr() { echo "$(median "$TMP/$1" 1)/$(median "$TMP/$1" 2) ms $(median "$TMP/$1" 3)M"; }
  CHECKOUT=- JUMP=- LABEL=-
  if [ "${KEEP_COPY:-1}" != 0 ]; then
    # Writes with a warm index, on a copy.
    COPY="$TMP/copy-$(basename "$FILE")"
    cp "$FILE" "$COPY"
    FAR=$(sed -n "$((ENTRIES / 2))p" "$COPY" | grep -o '"id":"[^"]*"' | head -1 | cut -d'"' -f4)
    LEAF=$(tail -1 "$COPY" | grep -o '"id":"[^"]*"' | head -1 | cut -d'"' -f4)
    "$GROVE" list --all --json --session-dir "$TMP" >/dev/null # the index, warm
    for _ in $(seq "$RUNS"); do
      run checkout "$GROVE" checkout "$COPY" "$FAR" --session-dir "$TMP"
      run jump "$OPEN" --leaf-first "$COPY"
      run label "$GROVE" label "$COPY" "$LEAF" bench --session-dir "$TMP"
    done
    for what in checkout jump label; do
      w=$(median "$TMP/$what" 1) c=$(median "$TMP/$what" 2) r=$(median "$TMP/$what" 3)
      printf '  %-22s wall %6d ms   CPU %6d ms   peak RSS %5d MB\n' "$what (warm index)" "$w" "$c" "$r"
    done
    CHECKOUT=$(wcr checkout) JUMP=$(wcr jump) LABEL=$(wcr label)
    rm -f "$COPY"
  fi
  RATIO=$(awk -v r="$(median "$TMP/open" 3)" -v mb="$MB" 'BEGIN {printf "%.2fx", r / mb}')
  printf '%-34s %18s %18s %10s %18s %18s %18s\n' "$(basename "$FILE" | cut -c1-34)" "$(wcr leaf)" \
    "$(wcr open)" "$RATIO" "$CHECKOUT" "$JUMP" "$LABEL" >>"$SUMMARY"
done
echo
echo "wall/CPU (user + sys) median, peak RSS; load $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$SUMMARY"
