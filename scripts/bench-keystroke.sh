#!/usr/bin/env bash
# A picker keystroke end to end (update → search → rows → frame), per key, on a corpus:
#
#   scripts/bench-keystroke.sh /tmp/pi-real-1k      # a real-pi corpus: DIR/agent/sessions
#
# Prints the load, then per typed query the median and worst wall and CPU time of one key.
# CPU time (all threads of the process) is the figure to compare on a loaded machine. Uses a
# temporary index cache, warmed by a first run.
set -euo pipefail
DIR=${1:?usage: scripts/bench-keystroke.sh CORPUS_DIR}
DIR=$(cd "$DIR" && pwd)
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --quiet --example bench_keystroke
BENCH="$TARGET/release/examples/bench_keystroke"
CACHE=$(mktemp -d)
trap 'rm -rf "$CACHE"' EXIT
ROOT="$DIR/agent/sessions"
[ -d "$ROOT" ] || ROOT="$DIR"
"$BENCH" --cache "$CACHE" "$ROOT" > /dev/null   # fill the index
echo "load: $(uptime)"
"$BENCH" --cache "$CACHE" "$ROOT"
echo "load: $(uptime)"
