#!/usr/bin/env bash
# e2e_frames.sh - `mhaviz frames`: every step under its header, sizes, colour,
# ASCII, and one-line errors with exit 2 for bad flags.
set -u
BIN=${MHAVIZ_BIN:?set MHAVIZ_BIN to the mhaviz binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass=0

ok() { pass=$((pass + 1)); }
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# --- every step, default size ---------------------------------------------------
"$BIN" frames --step all >"$tmp/all" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && ok || fail "frames --step all exited $rc: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] && ok || fail "frames --step all wrote to stderr: $(cat "$tmp/err")"

# the headers name the engine's steps, in order (names from `mhaviz export`)
"$BIN" export >"$tmp/json" || fail "export failed"
python3 - "$tmp/json" "$tmp/all" <<'EOF' && ok || fail "headers do not match the engine's steps"
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
    if steps[i]["code"] not in f:
        print("frame", i, "lacks", steps[i]["code"], file=sys.stderr); sys.exit(1)
    so_far = sum(st["bytes_copied"] for st in steps[:i + 1])
    if ("this step: %d B copied, pass so far: %d B" % (steps[i]["bytes_copied"], so_far)) not in f:
        print("frame", i, "lacks its byte count", file=sys.stderr); sys.exit(1)
EOF

# --- one step, by name and by number: the same frame ----------------------------
"$BIN" frames --step split >"$tmp/a" && "$BIN" frames --step 2 >"$tmp/b" && ok || fail "--step split/2"
cmp -s "$tmp/a" "$tmp/b" && ok || fail "--step split and --step 2 differ"
[ "$(grep -c '^=== ' "$tmp/a")" = 1 ] && ok || fail "--step split printed more than one frame"
grep -q '^=== step 2/10: split heads (80x24) ===$' "$tmp/a" && ok || fail "split header"

# --- sizes ------------------------------------------------------------------------
"$BIN" frames --step heads --cols 200 --rows 60 >"$tmp/big" && ok || fail "200x60"
[ "$(wc -l <"$tmp/big")" = 61 ] && ok || fail "200x60 frame is not 60 lines"
grep -q '(200x60) ===$' "$tmp/big" && ok || fail "200x60 header"
"$BIN" frames --step 2 --cols 80 --rows 24 >"$tmp/min" && ok || fail "80x24, the minimum, refused"
"$BIN" frames --seq 16 --d-model 64 --heads 8 --kv-heads 2 --causal >/dev/null && ok || fail "big config"

# --- colour and glyphs ------------------------------------------------------------
esc=$(printf '\033')
"$BIN" frames --step 2 --color=always >"$tmp/col" && ok || fail "--color=always"
grep -q "$esc\[" "$tmp/col" && ok || fail "--color=always has no SGR"
"$BIN" frames --step 2 --color=never >"$tmp/nocol" && ok || fail "--color=never"
grep -q "$esc" "$tmp/nocol" && fail "--color=never wrote escapes" || ok
grep -q "$esc" "$tmp/a" && fail "a pipe got colour by default" || ok
"$BIN" frames --step all --ascii >"$tmp/ascii" && ok || fail "--ascii"
LC_ALL=C grep -q '[^ -~]' "$tmp/ascii" && fail "--ascii printed non-ASCII bytes" || ok
# before -> after reads as an arrow in ASCII, never as a comparison '>'
grep -q 'contiguous yes -> no' "$tmp/ascii" && ok || fail "--ascii: no 'contiguous yes -> no'"
grep -Eq '(yes|no) > (yes|no)|S[0-9]+ > S' "$tmp/ascii" && fail "--ascii: '>' between before and after" || ok
# step 8 without colour: the copy's reorder is in the text (heads first, then tokens first)
"$BIN" frames --step 8 --ascii --color=never >"$tmp/s8"
python3 - "$tmp/s8" <<'PY' && ok || fail "step 8 bars do not show the reorder as text"
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
grep -q 'offset = 0\*32 + 2\*8 + 1\*4 + 3\*1 = 23' <("$BIN" frames --step 2 --ascii --inspect 0,2,1,3) \
    && ok || fail "--inspect offset line"

# --- extra views --------------------------------------------------------------------
"$BIN" frames --step softmax --single | grep -q 'one big head' && ok || fail "--single"
"$BIN" frames --step softmax --single --batch 2 --seq 6 --d-model 24 --heads 3 | grep -q 'big head ' && ok || fail "--single title whole"
out=$("$BIN" frames --step softmax --seq 8 --d-model 16 --heads 8 --kv-heads 2)
{ grep -q 'head 7' <<<"$out" && ! grep -q 'hidden' <<<"$out"; } && ok || fail "8 heatmaps at 80x24"
out=$("$BIN" frames --step 3 --heads 4 --kv-heads 2 --d-model 16)
{ grep -q '^h2 ' <<<"$out" && grep -q 'h3 ' <<<"$out" && ! grep -q 'hidden' <<<"$out"; } && ok || fail "4 heads x 4 tokens at 80x24"
"$BIN" frames --view wrong --step 2 | grep -q 'Q_wrong' && ok || fail "--view wrong"
"$BIN" frames --view noscale --step 5 | grep -q 'without / sqrt(dh)' && ok || fail "--view noscale"
half=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"][8]["bytes_copied"] // 2)' "$tmp/json")
"$BIN" frames --step 8 --anim 0.5 | grep -q "this step: $half B copied" && ok || fail "--anim 0.5 counter"
"$BIN" frames --help | grep -q -- '--step' && ok || fail "--help"

# --- bad input: one line on stderr naming the flag, exit 2 ---------------------------
bad() { # expected-text args...
    local want=$1; shift
    "$BIN" frames "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" != 2 ]; then fail "frames $* exited $rc (want 2)"; return; fi
    if [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q -- "^mhaviz: .*$want" "$tmp/err"; then
        fail "frames $*: stderr '$(cat "$tmp/err")' lacks '$want'"; return
    fi
    [ ! -s "$tmp/out" ] || { fail "frames $* printed a frame"; return; }
    ok
}
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

# --- a full disk is a runtime failure, exit 1 ------------------------------------------
if [ -w /dev/full ]; then
    "$BIN" frames --step 2 >/dev/full 2>"$tmp/err"
    rc=$?
    [ "$rc" = 1 ] && ok || fail "frames >/dev/full exited $rc (want 1)"
fi

echo "e2e_frames: $pass passed, $fails failed"
[ "$fails" = 0 ]
