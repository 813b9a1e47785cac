#!/usr/bin/env bash
# e2e_rope_pairs.sh - issue 18: the rope step draws RoPE's pairs on the
# memory strip.  Under the floats of one head's token each float carries the
# mark of its pair ("pI"); the two floats marked pI must be the pair of the
# layout, their offsets (read off the strip above each mark) apart by what
# export's strides of Q_rope say: dh/2 floats of the last axis in half, one in
# interleaved.  At 80x24, 100x30, 120x40 and 200x60, NO_COLOR and ASCII,
# and with the inspect cursor on another token.
. "$(dirname "$0")/e2e_lib.sh"
export NO_COLOR=1 LANG=C.UTF-8 LC_ALL=C.UTF-8

# pairs_ok.py FRAME JSON LAYOUT: the marks of FRAME against the strides of JSON
cat >"$tmp/pairs_ok.py" <<'PY'
import json, re, sys
frame = open(sys.argv[1], encoding="utf-8").read().split("\n")
run = json.load(open(sys.argv[2]))
layout = sys.argv[3]
t = run["tensors"]["Q_rope"]
dh, st = t["shape"][3], t["strides"][3]
want = (dh // 2 if layout == "half" else 1) * st
# the legend beside (or under) the marks ("h0 on, pos 3: p0 3.00, p1 0.03 rad ->") blanked
legend = r"(<- )?h\d+ \S+, [^:]*pos \d+:.*?(rad|\.\.\.)( ->)?"
frame = [re.sub(legend, lambda m: " " * len(m.group(0)), l) for l in frame]
# rows of marks: one under each line the token's floats take
rows = [i for i, l in enumerate(frame) if re.search(r"(^|\s)p\d+(\s|$)", l)]
if not rows or len(rows) > 4:
    sys.exit("want 1 to 4 rows of pair marks, found %d" % len(rows))
marks = {}
for r, m in [(r, m) for r in rows for m in re.finditer(r"(?<!\S)p(\d+)(?!\S)", frame[r])]:
    end = m.end() - 1  # a mark sits right under its float's offset
    off = None
    for up in range(r - 1, max(r - 6, -1), -1):
        for n in re.finditer(r"(?<![\S])(\d+)(?![\S])", frame[up]):
            if n.end() - 1 == end:
                off = int(n.group(1))
        if off is not None:
            break
    if off is None:
        sys.exit("no offset above mark %s at column %d" % (m.group(0), end))
    marks.setdefault(int(m.group(1)), []).append(off)
if sorted(marks) != list(range(dh // 2)):
    sys.exit("pairs marked %s, want 0..%d" % (sorted(marks), dh // 2 - 1))
for i, offs in marks.items():
    if len(offs) != 2 or offs[1] - offs[0] != want:
        sys.exit("pair %d at offsets %s, want two %d apart" % (i, offs, want))
    # the layout's own pair: half (i, i + dh/2), interleaved (2i, 2i + 1)
    first = offs[0] % (dh * st) // st if st else 0
    if first != (i if layout == "half" else 2 * i):
        sys.exit("pair %d starts at float %d of its head" % (i, first))
PY
pairs_ok() { python3 "$tmp/pairs_ok.py" "$@"; }
# width.py FRAME W: no line of FRAME (after its header) over W columns
cat >"$tmp/width.py" <<'PY'
import sys
w = int(sys.argv[2])
sys.exit(any(len(l.rstrip("\n")) > w for l in list(open(sys.argv[1], encoding="utf-8"))[1:]))
PY

# Every frame is drawn first, then checked by the two scripts above, all
# frames in one python each (py_batch), then reported in order.
names=() nframes=0

for layout in half interleaved; do
  for cfg in "" "--d-model 16 --heads 2 --seq 3" "--kv-heads 1 --batch 2" "--d-model 64 --heads 2 --seq 6"; do
    "$BIN" export --rope "$layout" $cfg >"$tmp/run.json" || fail "export --rope $layout $cfg"
    sizes="80x24 100x30 120x40 200x60"
    # dh 32: a token's floats on two lines of the strip, marked under each;
    # both lines shown from 120x40
    case $cfg in *"d-model 64"*) sizes="120x40 200x60" ;; esac
    for size in $sizes; do
      for glyphs in "" --ascii --large; do
        # large print at 120x40 has the rows for one line of dh 32's marks, not both
        [ "$glyphs$size" = --large120x40 ] && case $cfg in *"d-model 64"*) continue ;; esac
        name="$layout ${cfg:-default} $size ${glyphs:-utf8}"
        "$BIN" frames --step rope --rope "$layout" $cfg --cols "${size%x*}" --rows "${size#*x}" \
          --color=never $glyphs >"$tmp/f.txt" 2>"$tmp/err" || { fail "$name: frames" "$(cat "$tmp/err")"; continue; }
        nframes=$((nframes + 1))
        f=$tmp/frame$nframes
        mv "$tmp/f.txt" "$f.txt"
        cp "$tmp/run.json" "$f.json"
        names+=("$name|$size")
      done
    done
  done
  for ((i = 1; i <= nframes; i++)); do
    f=$tmp/frame$i
    py_queue "$f.pairs" "$f.txt" "$f.json" "$layout"
  done
  py_batch python3 "$tmp/pairs_ok.py"
  for ((i = 1; i <= nframes; i++)); do
    f=$tmp/frame$i
    size=${names[i - 1]##*|}
    py_queue "$f.width" "$f.txt" "${size%x*}"
  done
  py_batch python3 "$tmp/width.py"
  for ((i = 1; i <= nframes; i++)); do
    f=$tmp/frame$i name=${names[i - 1]%%|*} size=${names[i - 1]##*|}
    if py_passed "$f.pairs"; then
      ok "$name: pair marks $( [ "$layout" = half ] && echo dh/2 || echo 1 ) apart"
    else
      fail "$name: pair marks" "$(cat "$f.pairs")"
    fi
    check "$name: no line over $size" py_passed "$f.width"
  done
  names=() nframes=0
  # the inspect cursor picks the token: h1, token 2 (position 2)
  "$BIN" export --rope "$layout" >"$tmp/run.json"
  "$BIN" frames --step rope --rope "$layout" --inspect 0,1,2,0 --color=never >"$tmp/f.txt"
  check "$layout inspect: the cursor's token marked" grep -q "h1 sat, pos 2:" "$tmp/f.txt"
  check "$layout inspect: its pairs" pairs_ok "$tmp/f.txt" "$tmp/run.json" "$layout"
done
check "angles: position 3 turns pair 0 by 3.00 rad" \
  eval '"$BIN" frames --step rope --rope half --color=never | grep -q "pos 3: p0 3.00, p1 0.03 rad"'
# the angles beside the marks: p x theta^(-2i/dh), recomputed here
"$BIN" frames --step rope --rope half --rope-theta 100 --d-model 16 --heads 2 --seq 5 \
  --cols 200 --rows 60 --color=never >"$tmp/f.txt"
check "angles: theta 100, dh 8, position 4, each pair's p x inv_freq[i]" python3 -c '
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"pos 4:((?: p\d+ -?[\d.]+,?)+) rad", text)
got = [float(v) for v in re.findall(r"p\d+ (-?[\d.]+)", m.group(1))] if m else []
want = [round(4 * 100 ** (-2 * i / 8), 2) for i in range(4)]
sys.exit(0 if got == want else "%s, want %s" % (got, want))' "$tmp/f.txt"
finish
