#!/usr/bin/env bash
# bench.sh - speed and memory figures (`make bench` runs it as
# `bash tests/bench.sh .build/mhaviz`).  Figures are printed, never asserted:
# a verdict column says where a target is missed.  Each section is
# independent; add yours below the TUI's.
set -eu
BIN=$(realpath "${1:-.build/mhaviz}")
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# ---- tui: the interactive program in a pty at 80x24 --------------------------
echo "== tui: first frame, next step, idle, memory, animation (tests/ptybench.py) =="
# shellcheck disable=SC2046
cc -O2 $(pkg-config --cflags ncursesw) "$HERE/ttyfloor.c" -o "$WORK/ttyfloor" \
    $(pkg-config --libs ncursesw)
python3 "$HERE/ptybench.py" --floor "$WORK/ttyfloor" "$BIN"

# Cross-check with the shared yardstick when it is there (it needs python3-pyte,
# which the project does not depend on).
# It lives in the shared folder next to the checkout (../shared from the repo,
# ../../shared from a worktree under wt/) or at /work/shared.
PROBE=${MHAVIZ_TTYPROBE:-}
for p in "$HERE/../../shared" "$HERE/../../../shared" /work/shared; do
    [ -n "$PROBE" ] || [ ! -f "$p/tools/ttyprobe.py" ] || PROBE=$(realpath "$p/tools/ttyprobe.py")
done
if [ -z "$PROBE" ] || [ ! -f "$PROBE" ]; then
    echo "-- cross-check skipped: ttyprobe.py not found (set MHAVIZ_TTYPROBE=path)"
elif ! /usr/bin/python3 -c 'import pyte' 2>/dev/null; then
    echo "-- cross-check skipped: $PROBE needs python3-pyte"
else
    echo "-- cross-check: $(basename "$PROBE") (pyte), first settled frame, median of 5"
    for cmd in "$WORK/ttyfloor" "$BIN walk --no-animation"; do
        # shellcheck disable=SC2086
        /usr/bin/python3 "$PROBE" --cols 80 --rows 24 --term xterm-256color --repeat 5 \
            --idle-s 3 --keys SPACE,SPACE,SPACE --env LANG=C.UTF-8 --env LC_ALL=C.UTF-8 \
            -- $cmd 2>&1 | sed -n "/^summary/,\$ s|^|  $(basename "${cmd%% *}"): |p"
    done
fi

# ---- idle: no wake-up and no system call until a key, a resize or a signal
echo
echo "== idle: the walkthrough left alone (tests/bench_idle.py) =="
python3 "$HERE/bench_idle.py" --idle-s 3 "$BIN"

# ---- export: compute + JSON for growing sizes ------------------------------------
echo
echo "== export: time for growing seq = d_model (tests/bench_export.sh) =="
# MHAVIZ_BENCH_OLD=path/to/older/mhaviz runs it side by side with this one.
bash "$HERE/bench_export.sh" "$BIN" ${MHAVIZ_BENCH_OLD:+"$MHAVIZ_BENCH_OLD"}

# ---- pipeline: one mha_run before/after the blocked matmul, beside PyTorch ------
echo
echo "== pipeline: mha_run before and after the blocked matmul, and PyTorch 1.13 on one thread (tests/bench_mha.sh) =="
bash "$HERE/bench_mha.sh"

# ---- screens: every screen at a projector's size ----------------------------------
echo
echo "== screens at 200x60: first frame, bytes, peak RSS (tests/bench_screens.py) =="
python3 "$HERE/bench_screens.py" "$BIN"

# ---- store: quiz history load by size, lesson page turn with saving on ----------
echo
echo "== store: quiz history load, page turn with saving on (tests/bench_store.sh) =="
bash "$HERE/bench_store.sh" "$BIN"

# ---- play: the stride playground, evaluate + draw ------------------------------------
echo
echo "== play: statements/s at toy sizes, a 1,000,000-element storage (tests/bench_play.c) =="
make -s -C "$HERE/.." .build/bench_play >/dev/null && "$HERE/../.build/bench_play"

# ---- flash: the HBM bytes of attention, naive against FlashAttention-2 -------------
echo
echo "== flash: HBM bytes naive vs flash (mhaviz flash --plain), and the loop's time =="
"$BIN" flash --plain --causal | sed -n '/^bytes to and from HBM/,$p'
for s in 256 1024; do
    t0=$(date +%s%N)
    "$BIN" flash --json --seq $s --d-model 128 --heads 2 --block-q 64 --block-k 64 >/dev/null
    t1=$(date +%s%N)
    echo "  flash --json --seq $s --d-model 128 --heads 2, 64 x 64 blocks: $(( (t1 - t0) / 1000000 )) ms"
done
