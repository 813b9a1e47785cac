#!/usr/bin/env bash
# e2e_large.sh - issue 20's large print for a projector: `--large` on frames
# and walk, the walkthrough's L.  Every step at 80x24, 100x30 and 200x60 (a
# few configurations, RoPE on too): no line wider than the frame, the step's
# key numbers there (its title, the bytes it copied and the strides of its
# tensor, read from export), and the memory strip's cells at least twice as
# wide as without --large where a frame has little room (80x24, 100x30), wider
# at 200x60.  In tmux: L turns it on and off, the same step.
. "$(dirname "$0")/e2e_lib.sh"
export E2E_TMUX_SOCKET=${E2E_TMUX_SOCKET:-mhaviz-large-$$}
export NO_COLOR=1 LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color
unset MHAVIZ_LESSONS

# frames_ok SIZE FRAMES_LARGE FRAMES_NORMAL EXPORT: prints what is wrong, if anything
frames_ok() {
  python3 - "$@" <<'PY'
import json, re, sys
size, large, normal, run = sys.argv[1], sys.argv[2], sys.argv[3], json.load(open(sys.argv[4]))
W, H = map(int, size.split("x"))
def frames(path):
    out, cur = [], None
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith("=== step "):
            cur = [line]
            out.append(cur)
        elif cur is not None:
            cur.append(line)
    return out
def cell_w(f):
    """columns between the first two offsets of the memory strip (0 and 1)"""
    for i, l in enumerate(f):
        if re.match(r"(memory|from:|storage) S?\d*", l):
            for r in f[i + 1:i + 3]:
                m = [n.end() for n in re.finditer(r"(?<![\d.\-,])\b\d+\b(?![.,\d])", r)]
                if len(m) >= 2:
                    return m[1] - m[0]
    return None
fl, fn, bad = frames(large), frames(normal), []
steps = run["steps"]
if len(fl) != len(steps):
    bad.append("%d frames for %d steps" % (len(fl), len(steps)))
for k, f in enumerate(fl):
    head, body = f[0], f[1:]
    body = body[:H]
    if len([l for l in f[1:] if l != ""]) and len(f) - 1 > H + 1:
        bad.append("%s: %d rows" % (head, len(f) - 1))
    for l in body:
        if len(l) > W:
            bad.append("%s: a line of %d columns" % (head, len(l)))
        elif len(l) == W and l[-1] != " ":  # the frame never draws there: a cut number would
            bad.append("%s: cut at the right edge: %r" % (head, l[-20:]))
    text = "\n".join(body)
    st = steps[k]
    title = "step %d/%d" % (k, len(steps) - 1)
    if title not in text:
        bad.append("%s: no '%s'" % (head, title))
    copied = "this step: {:,} B copied".format(st["bytes_copied"])
    if copied not in text:
        bad.append("%s: no '%s'" % (head, copied))
    strides = "(" + ", ".join(str(s) for s in run["tensors"][st["output"]]["strides"]) + ")"
    if strides not in text:
        bad.append("%s: no strides %s of %s" % (head, strides, st["output"]))
    a, b = cell_w(f), cell_w(fn[k])
    if a is not None and b is not None:
        if (W < 200 and a < 2 * b) or a <= b:
            bad.append("%s: strip cells %d columns wide, %d without --large" % (head, a, b))
    elif b is not None:
        bad.append("%s: no memory strip in large print" % head)
print("; ".join(bad[:4]))
PY
}

# narr_ok FRAMES_LARGE FRAMES_200x60: what is wrong, if anything, with the
# narrative lines of large print: found by their first words (the 200x60
# frame's last paragraph, without --large), each at most LARGE_NARRATIVE_W
# (60) columns, on frames of 30 rows or more; both files must hold the same,
# non-zero number of frames (zip() alone would pass an empty parse)
narr_ok() {
  python3 - "$@" <<'PY'
import sys
def frames(path):
    out = []
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith("=== step "):
            out.append([line])
        elif out:
            out[-1].append(line)
    return out
bad = []
got, want = frames(sys.argv[1]), frames(sys.argv[2])
if not got or len(got) != len(want):
    bad.append("%d frames with --large, %d without" % (len(got), len(want)))
for f, ref in zip(got, want):
    body = [l.rstrip() for l in ref[1:]]
    while body and not body[-1]:
        body.pop()
    para = body[len(body) - body[::-1].index(""):] if "" in body else body
    start = " ".join(" ".join(para).split()[:3])
    rows = [l.rstrip() for l in f[1:]]
    at = [i for i, l in enumerate(rows) if l.startswith(start)]
    if not at:
        bad.append("%s: no narrative starting '%s'" % (f[0], start))
        continue
    for l in rows[at[-1]:]:
        if len(l) > 60:
            bad.append("%s: a narrative line of %d columns: %r" % (f[0], len(l), l[:30]))
print("; ".join(bad[:3]))
PY
}

for cfg in "" "--heads 4 --kv-heads 1" "--batch 2 --causal" "--rope half" "--rope interleaved --seq 6 --d-model 12 --heads 3"; do
  "$BIN" export $cfg >"$tmp/run.json" || fail "export $cfg"
  "$BIN" frames --step all --cols 200 --rows 60 --color=never $cfg >"$tmp/ref.txt"
  for size in 80x24 100x30 200x60; do
    name="--large ${cfg:-default} $size"
    args=(--step all --cols "${size%x*}" --rows "${size#*x}" --color=never $cfg)
    "$BIN" frames "${args[@]}" --large >"$tmp/large.txt" 2>"$tmp/err" || { fail "$name" "$(cat "$tmp/err")"; continue; }
    "$BIN" frames "${args[@]}" >"$tmp/normal.txt"
    why=$(frames_ok "$size" "$tmp/large.txt" "$tmp/normal.txt" "$tmp/run.json" 2>&1)
    check "$name: every step fits, its numbers there, bigger cells${why:+ ($why)}" test -z "$why"
    # from 30 rows (TALL_NARRATIVE_H); at 80x24 the narrative keeps the
    # frame's width, so the picture keeps its rows (RoPE's pair marks)
    if [ "${size#*x}" -ge 30 ]; then
      why=$(narr_ok "$tmp/large.txt" "$tmp/ref.txt" 2>&1)
      check "$name: the narrative in lines of at most 60 columns${why:+ ($why)}" test -z "$why"
    fi
  done
done
"$BIN" frames --step 2 --large --ascii --color=never >"$tmp/a.txt"
check "--large --ascii at 80x24: four floats to a line, values in the cells" \
  grep -Eq "^ 0 +1\.18 +1 +0\.23 +2 +-1\.09 +3 +-0\.51$" "$tmp/a.txt"
"$BIN" frames --step 2 --color=never >"$tmp/a.txt"
check "without --large at 80x24: eight to a line" grep -Eq "^ 0 +1\.18 +1 .* 7 +0\.62$" "$tmp/a.txt"
check "frames --help names --large" eval '"$BIN" frames --help | grep -q -- "--large"'
check "walk --help names --large" eval '"$BIN" walk --help | grep -q -- "--large"'

# the walkthrough: L toggles it, the step stays
tmux_start walk 100 30 "$BIN" walk --no-animation --no-save --step 2
tmux_wait walk "step 2/10" 100
check "walk: normal cells first" eval 'tmux_screen walk | grep -q "^    0     1     2     3     4     5"'
tmux_keys walk L
check "L: large print on" tmux_wait walk "large print on"
big="^ 0 +1\.18 +1 +0\.23 +2 +-1\.09 +3 +-0\.51 *$"
check "L: the strip's cells twice as wide, values in them" eval 'tmux_screen walk | grep -Eq "$big"'
check "L: still step 2" eval 'tmux_screen walk | grep -q "step 2/10"'
tmux_keys walk Space
check "large print stays on the next step" tmux_wait walk "step 3/10"
tmux_keys walk L
check "L again: off" tmux_wait walk "large print off"
tmux_keys walk Left
tmux_wait walk "step 2/10"
check "off: the normal cells again" eval 'tmux_screen walk | grep -q "^    0     1     2     3     4     5"'
check "? lists L" eval 'tmux_keys walk "?"; tmux_wait walk "large print for a projector"'
# lesson --frames --large: the page's picture in large print
"$BIN" lesson --frames 2 --page 3 --pane picture --large >"$tmp/l.txt"
check "lesson --frames --large: the picture's strip in large print" \
  grep -Eq "^ 0 +1\.18 +1 +0\.23 +2 +-1\.09 +3 +-0\.51$" "$tmp/l.txt"
check "lesson --frames --large: no line over 80 columns" \
  awk '{ if (length($0) > 80) exit 1 }' <(LC_ALL=C.UTF-8 python3 -c 'import sys; [print("x" * len(l.rstrip("\n"))) for l in open(sys.argv[1], encoding="utf-8")]' "$tmp/l.txt")
# decode and the Tiles screen: the cache's cells and the tile map twice as wide
tmux_start dec 100 30 "$BIN" decode --no-save --large
check "decode --large: the cache's cells 5 columns apart" tmux_wait dec "    0 0    0    1    1    2"
tmux_start decn 100 30 "$BIN" decode --no-save
check "decode: 3 without" tmux_wait decn "    0 0  0  1  1  2"
tmux_start tiles 100 30 "$BIN" flash --no-save --large
check "flash --large: a tile 4 columns wide" tmux_wait tiles "q0   ████ ····"
tmux_start walkl 100 30 "$BIN" walk --no-animation --no-save --step 2 --large
tmux_wait walkl "step 2/10" 100
check "walk --large: large from the first frame" eval 'tmux_screen walkl | grep -Eq "$big"'
finish
