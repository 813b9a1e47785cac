#!/usr/bin/env bash
# bench_store.sh - the state files: quiz history load time by size, and a
# lesson page turn with saving on (`make bench` runs it through bench.sh).
# Figures only, never asserted.
set -eu
BIN=$(realpath "${1:-.build/mhaviz}")
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export XDG_STATE_HOME=$WORK/state
mkdir -p "$XDG_STATE_HOME/mhaviz"

# ms for one `quiz --plain` that loads the history and stops at once (median of 3)
load_ms() {
  python3 - "$BIN" <<'PY'
import statistics, subprocess, sys, time
xs = []
for _ in range(3):
    t = time.perf_counter()
    subprocess.run([sys.argv[1], "quiz", "--plain", "--count", "1", "--seed", "1", "--no-save"],
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    xs.append((time.perf_counter() - t) * 1000)
print(f"{statistics.median(xs):8.1f} ms  (range {min(xs):.1f}..{max(xs):.1f})")
PY
}

echo "  quiz history load (quiz --plain that stops at once; one miss line per question):"
printf '    %7s lines: %s\n' 0 "$(load_ms)"
for n in 2000 50000 200000; do
  awk -v n="$n" 'BEGIN { print "# mhaviz quiz history v1"; print "topic shapes 90 40";
    for (i = 0; i < n; i++) printf "miss %d g:shapes:%x\n", 1 + i % 3, i }' \
    >"$XDG_STATE_HOME/mhaviz/quiz-history"
  printf '    %7s lines: %s\n' "$n" "$(load_ms)"
done
echo "  (a save keeps at most 2000 misses: larger files come only from outside)"
echo
python3 "$HERE/bench_pageturn.py" "$BIN" 9
