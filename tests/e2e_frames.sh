#!/usr/bin/env bash
# e2e_frames.sh - `mhaviz frames`: every step under its header, sizes, colour,
# ASCII, and one-line errors with exit 2 for bad flags.
. "$(dirname "$0")/e2e_lib.sh"

# --- every step, default size ---------------------------------------------------
"$BIN" frames --step all >"$tmp/all" 2>"$tmp/err"
rc=$?
check "frames --step all exits 0" test "$rc" = 0
check "frames --step all writes nothing to stderr" test ! -s "$tmp/err"

# the headers name the engine's steps, in order (names from `mhaviz export`)
"$BIN" export >"$tmp/json"
check "export (the step names) exits 0" test $? = 0
python3 - "$tmp/json" "$tmp/all" <<'EOF' && ok "headers name the engine's steps; 24 lines, code, bytes each" || fail "headers match the engine's steps"
import json, re, sys
steps = json.load(open(sys.argv[1]))["steps"]
text = open(sys.argv[2], encoding="utf-8").read().split("\n")
heads = [l for l in text if l.startswith("=== ")]
want = ["=== step %d/%d: %s (80x24) ===" % (i, len(steps) - 1, s["name"]) for i, s in enumerate(steps)]
if heads != want:
    print("got ", heads, "\nwant", want, file=sys.stderr)
    sys.exit(1)
# each frame is 24 lines, none wider than 80 columns, and shows its code line
frames = "\n".join(text).split("=== step ")[1:]
for i, f in enumerate(frames):
    lines = f.split("\n")[1:25]
    if len(lines) != 24 or any(len(l) > 80 for l in lines):
        print("frame", i, "has", len(lines), "lines", file=sys.stderr); sys.exit(1)
    # at 80x24: all the step ran, or the statement of it that made its tensor
    if steps[i]["code"] not in f and not any(r in f for r in steps[i]["ran"]):
        print("frame", i, "lacks", steps[i]["code"], file=sys.stderr); sys.exit(1)
    so_far = sum(st["bytes_copied"] for st in steps[:i + 1])
    if ("this step: {:,} B copied, pass so far: {:,} B".format(steps[i]["bytes_copied"], so_far)) not in f:
        print("frame", i, "lacks its byte count", file=sys.stderr); sys.exit(1)
EOF

# --- the program panel: the run's program (export's "program"), a window at 80x24
# every frame of a long program (GQA, causal, RoPE: 18 lines) still 24 rows of at
# most 80 columns, its six program rows consecutive lines of the export's
# program, numbered as in it, a lit one (▶) on every step after the input
long="--causal --heads 4 --kv-heads 2 --rope half --seq 6"
# shellcheck disable=SC2086
"$BIN" frames --step all $long >"$tmp/long" && "$BIN" export $long >"$tmp/longjson"
check "frames --step all $long exits 0" test $? = 0
python3 - "$tmp/longjson" "$tmp/long" <<'EOF2' && ok "80x24: the panel is a window on the run's program, lit" || fail "80x24: the panel is a window on the run's program"
import json, sys
prog = json.load(open(sys.argv[1]))["program"]
frames = open(sys.argv[2], encoding="utf-8").read().split("=== step ")[1:]
if len(prog) != 18 or len(frames) != 12:
    print("program of", len(prog), "lines,", len(frames), "frames", file=sys.stderr); sys.exit(1)
for i, f in enumerate(frames):
    lines = f.split("\n")[1:25]
    if len(lines) != 24 or any(len(l) > 80 for l in lines):
        print("frame", i, "does not fit 80x24", file=sys.stderr); sys.exit(1)
    rows, lit = lines[1:7], 0
    first = int(rows[0][1:4])
    for r, row in enumerate(rows):
        n, code = int(row[1:4]), row[5:50].rstrip()
        if n != first + r or code != prog[n - 1]:
            print("frame", i, "row", r, repr(row), "is not line", first + r, file=sys.stderr); sys.exit(1)
        lit += row.startswith("\u25b6")
    if (lit > 0) != (i > 0):
        print("frame", i, "lights", lit, "lines", file=sys.stderr); sys.exit(1)
EOF2

# --- one step, by name and by number: the same frame ----------------------------
"$BIN" frames --step split >"$tmp/a" && "$BIN" frames --step 2 >"$tmp/b" && ok "--step split and --step 2 exit 0" || fail "--step split/2"
check "--step split and --step 2: the same frame" cmp -s "$tmp/a" "$tmp/b"
check "--step split prints one frame" test "$(grep -c '^=== ' "$tmp/a")" = 1
check "--step split: its header" grep -q '^=== step 2/10: split heads (80x24) ===$' "$tmp/a"
# a run with RoPE has steps 0-11: the last is 11 (the number was refused as 0-10 only)
capture "$BIN" frames --step 11 --rope half
check "--step 11 --rope half exits 0" test "$rc" = 0
check "--step 11 --rope half: the output projection" grep -q '^=== step 11/11: output projection' "$tmp/out"
usage_error "not a step of this run" frames --step 11
usage_error "--step '12': not a step" frames --step 12 --rope half

# --- sizes ------------------------------------------------------------------------
"$BIN" frames --step heads --cols 200 --rows 60 >"$tmp/big"
check "200x60 exits 0" test $? = 0
check "200x60: the frame is 60 lines under its header" test "$(wc -l <"$tmp/big")" = 61
check "200x60: header" grep -q '(200x60) ===$' "$tmp/big"
"$BIN" frames --step 2 --cols 80 --rows 24 >"$tmp/min"
check "80x24, the minimum, is accepted" test $? = 0
"$BIN" frames --seq 16 --d-model 64 --heads 8 --kv-heads 2 --causal >/dev/null
check "a big config (seq 16, d_model 64, 8 heads) exits 0" test $? = 0

# --- colour and glyphs ------------------------------------------------------------
esc=$(printf '\033')
"$BIN" frames --step 2 --color=always >"$tmp/col"
check "--color=always exits 0" test $? = 0
check "--color=always writes SGR escapes" grep -q "$esc\[" "$tmp/col"
"$BIN" frames --step 2 --color=never >"$tmp/nocol"
check "--color=never exits 0" test $? = 0
check "--color=never writes no escapes" not grep -q "$esc" "$tmp/nocol"
check "a pipe gets no colour by default" not grep -q "$esc" "$tmp/a"
"$BIN" frames --step all --ascii >"$tmp/ascii"
check "--ascii exits 0" test $? = 0
check "--ascii prints only ASCII bytes" not env LC_ALL=C grep -q '[^ -~]' "$tmp/ascii"
# before -> after reads as an arrow in ASCII, never as a comparison '>'
check "--ascii: 'contiguous yes -> no'" grep -q 'contiguous yes -> no' "$tmp/ascii"
check "--ascii: no '>' between before and after" not grep -Eq '(yes|no) > (yes|no)|S[0-9]+ > S' "$tmp/ascii"
# step 8 without colour: the copy's reorder is in the text (heads first, then tokens first)
"$BIN" frames --step 8 --ascii --color=never >"$tmp/s8"
python3 - "$tmp/s8" <<'PY' && ok "step 8 bars show the reorder as text" || fail "step 8 bars show the reorder as text"
import sys
rows = open(sys.argv[1]).read().split("\n")
def tags(title):
    i = next(k for k, r in enumerate(rows) if r.startswith(title))
    out = []
    for r in rows[i + 1:i + 3]:
        w = r.split()
        out += [w[k] + " " + w[k + 1] for k in range(1, len(w) - 1) if w[k][0] == "h"]
    return out
f, t = tags("from: "), tags("to: ")
assert f[:2] == ["h0 the", "h0 cat"], f
assert t[:2] == ["h0 the", "h1 the"], t
PY
check "--inspect 0,2,1,3: the offset line" grep -q 'offset = 0\*32 + 2\*8 + 1\*4 + 3\*1 = 23' \
    <("$BIN" frames --step 2 --ascii --inspect 0,2,1,3)

# --- extra views --------------------------------------------------------------------
out=$("$BIN" frames --step softmax --single)
check "--single: one big head" grep -q 'one big head' <<<"$out"
out=$("$BIN" frames --step softmax --single --batch 2 --seq 6 --d-model 24 --heads 3)
check "--single: the title whole at batch 2, 3 heads" grep -q 'big head ' <<<"$out"
out=$("$BIN" frames --step softmax --seq 8 --d-model 16 --heads 8 --kv-heads 2)
{ grep -q 'head 7' <<<"$out" && ! grep -q 'hidden' <<<"$out"; } && ok "8 heatmaps fit at 80x24" || fail "8 heatmaps fit at 80x24"
out=$("$BIN" frames --step 3 --heads 4 --kv-heads 2 --d-model 16)
{ grep -q '^h2 ' <<<"$out" && grep -q 'h3 ' <<<"$out" && ! grep -q 'hidden' <<<"$out"; } &&
    ok "4 heads x 4 tokens fit at 80x24" || fail "4 heads x 4 tokens fit at 80x24"
out=$("$BIN" frames --view wrong --step 2)
check "--view wrong shows Q_wrong" grep -q 'Q_wrong' <<<"$out"
out=$("$BIN" frames --view noscale --step 5)
check "--view noscale: without / sqrt(dh)" grep -q 'without / sqrt(dh)' <<<"$out"
half=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"][8]["bytes_copied"] // 2)' "$tmp/json")
out=$("$BIN" frames --step 8 --anim 0.5)
check "--anim 0.5: the counter at half the copy ($half B)" grep -q "this step: $half B copied" <<<"$out"
out=$("$BIN" frames --help)
check "--help names --step" grep -q -- '--step' <<<"$out"

# --- bad input: one line on stderr naming the flag, exit 2 ---------------------------
# bad NEEDLE ARGS...: `mhaviz frames ARGS` is a usage error naming NEEDLE
bad() { local want=$1; shift; usage_error "$want" frames "$@"; }
bad --step --step nope
bad --step --step 11
bad --step --step
bad --cols --cols 0
bad 'at least 80x24' --cols 10 --rows 5
bad 'at least 80x24' --cols 79
bad 'at least 80x24' --rows 23
bad --cols --cols abc
bad --rows --rows 100000
bad --color --color=sometimes
bad --view --view sideways
bad --inspect --inspect x,1
bad --anim --anim 1.5
bad --heads --heads 3
bad --kv-heads --kv-heads 3
bad "unknown option '--bogus'" --bogus
bad --ascii --ascii=yes

# --- every count of bytes or floats keeps its thousands separators ------------------
for cfg in "--seq 64 --d-model 256 --heads 4" "--batch 2 --seq 128 --d-model 64 --heads 4 --kv-heads 2"; do
    # shellcheck disable=SC2086
    "$BIN" frames --step all --cols 120 --rows 40 $cfg >"$tmp/big" 2>&1
    check "frames $cfg exits 0" test $? = 0
    check "frames $cfg: 65,536-style byte counts" grep -qE '[0-9],[0-9]{3} B copied' "$tmp/big"
    if grep -nE '(^|[^0-9,.x])[0-9]{4,} (B|bytes|floats)\b' "$tmp/big" >"$tmp/raw"; then
        fail "frames $cfg: a count without separators: $(head -1 "$tmp/raw")"
    else ok "frames $cfg: no count of 1,000 or more without separators"; fi
done

# --- with B > 1 the copy's cells name their batch ----------------------------------
"$BIN" frames --step 8 --batch 2 --anim 0.5 >"$tmp/b2"
check "step 8, batch 2: cells say 'b1 h0 the'" grep -qF "b1 h0 the" "$tmp/b2"
check "step 8, batch 2: and 'b0 h1 the'" grep -qF "b0 h1 the" "$tmp/b2"
"$BIN" frames --step 8 --anim 0.5 >"$tmp/b1"
check "step 8, batch 1: no batch in the cells" sh -c "! grep -qF 'b0 h0' '$tmp/b1' && grep -qF 'h1 the' '$tmp/b1'"

# --- the screen says which toy values are in use (issue 17) ------------------------
capture "$BIN" frames --step 0 --seq 64 --d-model 256 --heads 16
if [ "$rc" -eq 0 ] && tr '\n' ' ' <"$tmp/out" | grep -q 'Weights scaled by 1/sqrt(256) = 0.0625'; then
    ok "frames at d_model 256 says the weights are scaled"; else
    fail "frames at d_model 256 says the weights are scaled" "exit $rc"; fi
capture "$BIN" frames --step 0
if [ "$rc" -eq 0 ] && tr '\n' ' ' <"$tmp/out" | grep -q 'multiples of 0.1 drawn from seed 1, so a dot product'; then
    ok "frames at the default sizes says the values are tenths"; else
    fail "frames at the default sizes says the values are tenths" "exit $rc"; fi

# --- a full disk is a runtime failure: exit 1, one line ------------------------------
full_disk frames --step 2

finish
