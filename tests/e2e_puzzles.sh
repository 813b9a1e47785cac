#!/usr/bin/env bash
# e2e_puzzles.sh - `mhaviz play --puzzles` and `--puzzle NAME` from the outside
# (issue 17): the list, the --json contract for graders (exactly "ok",
# "bytes_copied", "best_bytes", "failed_on"), the reference of every puzzle
# passing and its identity, empty line and classic wrong answer failing, the
# best kept between runs (not with --no-save), --plain's transcript, usage
# errors, the puzzle on the play screen in tmux; and, when /usr/bin/python3
# has torch, every reference and wrong answer run in PyTorch (ref_puzzles.py).
. "$(dirname "$0")/e2e_lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

# --- the list -------------------------------------------------------------------------
capture "$BIN" play --puzzles
n=$(grep -cE '^ ?[0-9]+\. ' "$tmp/out")
if [ "$rc" = 0 ] && [ "$n" -ge 12 ] && grep -q 'split_heads *Split Q into heads *not solved' "$tmp/out"; then
    ok "play --puzzles lists $n puzzles, none solved"; else
    fail "play --puzzles" "exit $rc, $n puzzles"; fi
names=$(sed -nE 's/^ ?[0-9]+\. ([a-z_]+) .*/\1/p' "$tmp/out")

# --- the --json contract ---------------------------------------------------------------
printf 'Q.view(B, S, H, dh).transpose(1, 2)\nQ.view(B, H, S, dh)\nQ\n\nQ.view(B, S, H, dh).transpose(1, 2).contiguous()\nQ.chunk(2)\n' |
    "$BIN" play --puzzle split_heads --json >"$tmp/out" 2>"$tmp/err"
rc=$?
why=$(python3 - "$tmp/out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
want = [(True, 0, 0, False), (False, 0, 0, True), (False, 0, 0, True), (False, None, 0, True),
        (True, 192, 0, False), (False, None, 0, True)]
errs = []
if len(rows) != len(want):
    errs.append("%d lines, expected %d" % (len(rows), len(want)))
for i, (r, (ok, b, best, failed)) in enumerate(zip(rows, want)):
    if list(r) != ["ok", "bytes_copied", "best_bytes", "failed_on"]:
        errs.append("line %d: keys %s" % (i + 1, list(r)))
    if (r.get("ok"), r.get("bytes_copied"), r.get("best_bytes"), r.get("failed_on") is not None) != (ok, b, best, failed):
        errs.append("line %d: %s" % (i + 1, r))
if "identity never passes" not in str(rows[2].get("failed_on")):
    errs.append("the identity: %s" % rows[2])
if rows[3].get("failed_on") != "an empty line is not an answer":
    errs.append("the empty line: %s" % rows[3])
print("; ".join(errs))
PY
)
if [ "$rc" = 0 ] && [ -z "$why" ] && [ ! -s "$tmp/err" ]; then
    ok "--puzzle split_heads --json: exactly ok/bytes_copied/best_bytes/failed_on per line, scored"; else
    fail "--puzzle split_heads --json" "exit $rc: $why $(head -c 200 "$tmp/err")"; fi

# --- the best is kept, but not with --no-save --------------------------------------------
capture "$BIN" play --puzzles
check "--puzzles shows the best kept: split_heads 0 bytes" grep -q 'split_heads .*best: 0 bytes' "$tmp/out"
echo 'O.transpose(1, 2).reshape(B, S, D)' | "$BIN" play --puzzle merge_heads --json --no-save >"$tmp/out"
check "--no-save: solved, best_bytes is this answer's" grep -q '"ok": true, "bytes_copied": 192, "best_bytes": 192' "$tmp/out"
capture "$BIN" play --puzzles
check "--no-save wrote nothing" grep -q 'merge_heads .*not solved' "$tmp/out"

# --- every puzzle: identity, empty and a wrong answer fail; the first unsolved -----------
for p in $names; do
    given=$("$BIN" play --puzzle "$p" --plain </dev/null | sed -nE 's/^given: ([A-Za-z_]+) .*/\1/p')
    printf '%s\n\n%s.view(%s.shape)\n' "$given" "$given" "$given" |
        "$BIN" play --puzzle "$p" --json --no-save >"$tmp/out" 2>&1
    if [ -n "$given" ] && [ "$(grep -c '"ok": false' "$tmp/out")" = 3 ]; then
        ok "$p: the identity ($given), an empty line and $given.view($given.shape) fail"; else
        fail "$p: identities" "given '$given': $(head -c 300 "$tmp/out")"; fi
done
capture "$BIN" play --puzzle --plain
check "--puzzle without NAME: the first unsolved (merge_heads)" grep -q '^Puzzle merge_heads: Merge heads back' "$tmp/out"

# --- --plain: the puzzle, then each answer's verdict and a hint -------------------------
printf 'O.reshape(B, S, D)\nO.transpose(1, 2).reshape(B, S, D)\n' | "$BIN" play --puzzle merge_heads --plain >"$tmp/out" 2>&1
if grep -q '^given: O (B, H, S, dh) (2, 4, 3, 2)$' "$tmp/out" &&
    grep -q '^not yet: the puzzle.s tensors (B=2 S=3 H=4 KV=2 G=2 dh=2 D=8): values differ' "$tmp/out" &&
    grep -q '^hint: A token.s heads must end up next to each other' "$tmp/out" &&
    grep -q '^solved on 6 configurations: 192 bytes copied (a copy cannot be avoided here); your best: 192$' "$tmp/out"; then
    ok "--puzzle merge_heads --plain: the puzzle, a miss with a hint, then solved"; else
    fail "--puzzle merge_heads --plain" "$(head -c 600 "$tmp/out")"; fi

# --- usage errors ------------------------------------------------------------------------
usage_error "did you mean split_heads?" play --puzzle split_head --json
usage_error "a puzzle has its own sizes" play --puzzle split_heads --json --heads 4
usage_error "--puzzles takes no other option (--json)" play --puzzles --json
usage_error "--puzzles takes no other option (--seq)" play --seq 5 --puzzles
capture "$BIN" play --puzzles --no-save # it only reads: --no-save is no conflict
check "play --puzzles --no-save lists the puzzles (it was a usage error)" \
  test "$rc" = 0 -a -s "$tmp/out"

# --- PyTorch agrees on every reference and wrong answer ----------------------------------
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    if out=$(/usr/bin/python3 "$HERE/ref_puzzles.py" "$BIN" 2>&1); then
        ok "ref_puzzles.py: PyTorch agrees (${out##*: })"; else
        fail "ref_puzzles.py against PyTorch" "$(printf '%s' "$out" | grep -v Warning | tail -6)"; fi
else
    echo "# skip: /usr/bin/python3 has no torch to run the puzzles' answers in"
fi

# --- the play screen, in tmux --------------------------------------------------------------
if command -v tmux >/dev/null; then
    E2E_TMUX_SOCKET=mhaviz-puz-$$
    tmux_start puz 80 24 "$BIN" play --puzzle rotate_half
    if tmux_wait puz 'Puzzle 13/14  rotate_half'; then
        tmux_keys puz 'torch.cat((-x[..., dh // 2:], x[..., :dh // 2]), dim=-1)' Enter
        if tmux_wait puz 'solved on 6 configurations: 288 bytes copied'; then
            ok "the play screen: rotate_half solved at 80x24"; else
            fail "the play screen: rotate_half" "$(tmux_screen puz | head -12)"; fi
    else
        fail "the play screen opens --puzzle rotate_half" "$(tmux_screen puz | head -5)"
    fi
fi

finish
