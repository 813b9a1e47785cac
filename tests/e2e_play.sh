#!/usr/bin/env bash
# e2e_play.sh - `mhaviz play` from the outside:
#   - hundreds of random chains of the playground's operations on random
#     shapes and on the pipeline's tensors agree with tests/ref_play.py, an
#     independent pure-Python model of PyTorch's strides (shape, strides,
#     offset, contiguity, shared storage, view or copy and the bytes copied,
#     error texts); when /usr/bin/python3 has torch, the model itself is
#     checked against PyTorch, and so are the interpreter's arithmetic, softmax,
#     masked_fill and matmul (tests/ref_play_math.py: values too);
#   - the --json line format, --plain's transcript, exit codes and bad flags;
#   - the play screen in tmux: a statement typed and drawn, history with Up
#     (kept in the state dir), Tab completion, q and Esc leave, home's Explore.
. "$(dirname "$0")/e2e_lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
export LSAN_OPTIONS="suppressions=$HERE/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# --- random chains against the reference ---------------------------------------------
chains=${PLAY_CHAINS:-100}
[ "${MODE:-plain}" = asan ] && chains=40 # the sanitizer build is slower; the plain pass has them all
for cfg in "1" "2 -- --heads 4 --kv-heads 2 --seq 5" "3 -- --batch 2 --heads 4 --kv-heads 1" "4"; do
    seed=${cfg%% *}
    rest=${cfg#"$seed"}
    # shellcheck disable=SC2086
    if out=$(python3 "$HERE/ref_play.py" "$BIN" --seed "$seed" --chains "$chains" --length 7 $rest 2>&1); then
        ok "random chains agree with ref_play.py (${out##*: })"
    else
        fail "random chains, seed $seed" "$(printf '%s' "$out" | tail -8)"
    fi
done
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    if out=$(/usr/bin/python3 "$HERE/ref_play.py" "$BIN" --seed 5 --chains 60 --torch 2>&1); then
        ok "ref_play.py itself agrees with PyTorch (${out##*: })"
    else
        fail "ref_play.py against PyTorch" "$(printf '%s' "$out" | tail -8)"
    fi
    if out=$(/usr/bin/python3 "$HERE/ref_play_math.py" "$BIN" --seed 3 --count 600 2>&1); then
        ok "arithmetic, softmax, masked_fill, matmul agree with PyTorch (${out##*: })"
    else
        fail "ref_play_math.py against PyTorch" "$(printf '%s' "$out" | tail -8)"
    fi
    if /usr/bin/python3 "$HERE/torch_names.py" | cmp -s - "$HERE/../assets/pytorch-1.13.names"; then
        ok "assets/pytorch-1.13.names lists torch's own names (what is 'not in the playground yet')"
    else
        fail "assets/pytorch-1.13.names differs from torch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)')"
    fi
else
    echo "# skip: /usr/bin/python3 has no torch (Debian python3-torch) to check ref_play.py against"
fi

# --- the JSON lines ---------------------------------------------------------------------
json=$(printf 'a = torch.arange(24)\nb = a.view(2, 12)\n\n# a comment\nb.t().view(24)\nb.stride()\nb.view(2,,3)\n' |
    "$BIN" play --json)
rc=$?
check "play --json exits 0 at end of input" test "$rc" = 0
line2=$(sed -n 2p <<<"$json")
check "the issue's example line" test "$line2" = '{"line": 2, "name": "b", "ok": true, "shape": [2, 12], "strides": [12, 1], "offset": 0, "storage": '"$(sed -n 's/.*"storage": \([0-9]*\).*/\1/p' <<<"$line2")"', "contiguous": true, "copied_bytes": 0, "view": true, "dtype": "torch.int64"}'
check "blank lines and comments answer nothing; lines keep their numbers" \
    test "$(sed -n 3p <<<"$json" | cut -c1-30)" = '{"line": 5, "ok": false, "erro'
check "a query answers with value" grep -qF '{"line": 6, "name": null, "ok": true, "value": [12, 1]}' <<<"$json"
check "a syntax error has its column" grep -qF '"line": 7, "ok": false, "error": "invalid syntax", "column": 10' <<<"$json"
if python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' <<<"$json"; then ok "every line is JSON"; else fail "every line is JSON"; fi

# every error the issue lists, in PyTorch's words
errs=$(printf '%s\n' 'a = torch.arange(24)' 'a.view(2, 12).t().view(24)' 'a.view(3, 5)' 'a.view(2, 12).transpose(0, 2)' \
    'a.view(2, 12)[:, None].expand(2, 3, 12)' 'a.view(2, 12).expand(3, 2, 13)' 'a[24]' | "$BIN" play --json)
for want in \
    "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead." \
    "shape '[3, 5]' is invalid for input of size 24" \
    "Dimension out of range (expected to be in range of [-2, 1], but got 2)" \
    "The expanded size of the tensor (13) must match the existing size (12) at non-singleton dimension 2.  Target sizes: [3, 2, 13].  Tensor sizes: [2, 12]" \
    "index 24 is out of bounds for dimension 0 with size 24"; do
    check "error: ${want:0:50}" grep -qF "\"error\": \"$want\"" <<<"$errs"
done
check "expand of a singleton dim is a view" grep -qF '"line": 5, "name": null, "ok": true, "shape": [2, 3, 12], "strides": [12, 0, 1]' <<<"$errs"

# --- --plain, exit codes, flags ---------------------------------------------------------
plain=$(printf 'b = torch.arange(24).view(2, 12)\nc = b.t().contiguous()\nb.view(2,,3)\nb.t()\n' | "$BIN" play --plain)
check "--plain echoes and describes a view" grep -qF "b: shape (2, 12)  strides (12, 1)  offset 0" <<<"$plain"
check "--plain says what a copy cost" grep -qF "copy: 192 bytes copied into a new storage" <<<"$plain"
check "--plain puts a caret under a syntax error" grep -qxF "             ^" <<<"$plain"
check "--plain lists the read order" grep -qF "reads storage offsets 0 12 1 13 2 14" <<<"$plain"
"$BIN" play --bogus </dev/null >/dev/null 2>"$tmp/err"
check "a bad flag exits 2" test $? = 2
check "with one line naming it" test "$(wc -l <"$tmp/err")" = 1 -a -n "$(grep -F -- "--bogus" "$tmp/err")"
# issue 16: --values adds each tensor's values; the arithmetic of attention runs
vals=$(printf 't = torch.arange(6).view(2, 3)\nt.float().masked_fill(t > 3, float("-inf")) / 2\nsqrt(dh)\n' |
    "$BIN" play --json --values)
check "--values: a tensor's values as \"data\"" grep -qF '"data": [0, 0.5, 1, 1.5, -Infinity, -Infinity]}' <<<"$vals"
check "--values: a computed result is new, 0 bytes copied" grep -qF '"copied_bytes": 0, "view": false, "dtype": "torch.float32", "data"' <<<"$vals"
check "a float is printed as Python does" grep -qF '"value": 2.0}' <<<"$vals"
usage_error "--values" play --plain --values
"$BIN" play --json --heads 3 </dev/null >/dev/null 2>"$tmp/err"
check "an invalid configuration exits 2" test $? = 2
"$BIN" play --plain --json </dev/null >/dev/null 2>&1
check "--plain with --json exits 2" test $? = 2
"$BIN" play </dev/null >/dev/null 2>"$tmp/err"
check "the screen without a terminal exits 2 and says what to use" \
    test $? = 2 -a -n "$(grep -F -- "--plain" "$tmp/err")"
"$BIN" play --help >/dev/null
check "--help exits 0" test $? = 0
out=$("$BIN" play --json --heads 4 --kv-heads 2 <<<'K_heads.shape')
check "the shared flags set the preloaded tensors" grep -qF '"value": [1, 2, 4, 2]' <<<"$out"
check "--help states the memory budget" grep -qF "at most 256 MB" <<<"$("$BIN" play --help)"
check "--help says randn is mhaviz's generator, not PyTorch's" \
    grep -qF "not" <<<"$("$BIN" play --help | grep -A1 "torch.randn draws from mhaviz's own")"
# tuple unpacking: one JSON line with every name, its geometry, and the error as Python says it
out=$("$BIN" play --json <<'EOF'
x = torch.arange(24).view(2, 3, 4)
q, k, v = x.chunk(3, dim=1)
v.storage_offset()
a, b, c = x.chunk(2)
EOF
)
check "q, k, v = x.chunk(3, dim=1) names three views" grep -qF '"line": 2, "name": null, "ok": true, "copied_bytes": 0, "tensors": [{"name": "q", "shape": [2, 1, 4], "strides": [12, 4, 1], "offset": 0, ' <<<"$out"
check "the unpacked name is bound" grep -qF '{"line": 3, "name": null, "ok": true, "value": 8}' <<<"$out"
check "too few values: Python's words" grep -qF '"line": 4, "ok": false, "error": "not enough values to unpack (expected 3, got 2)"' <<<"$out"
# --run FILE: a program, one statement a line; the first error stops it as FILE:LINE:
printf '# heads\nx = torch.arange(24).view(2, 3, 4)\n\nq, k, v = x.chunk(3, dim=1)\nk.view(8)\nnever = x\n' >"$tmp/prog.py"
out=$("$BIN" play --run "$tmp/prog.py" 2>"$tmp/err")
check "--run stops at the first error with exit 2" test $? = 2
check "--run says FILE:LINE: and PyTorch's words on stderr" \
    grep -qxF "$tmp/prog.py:5: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead." "$tmp/err"
check "--run answers each statement that ran, as --plain" grep -qF "  v: shape (2, 1, 4)  strides (12, 4, 1)  offset 8" <<<"$out"
check "--run runs nothing after the error" test -z "$(grep -F never <<<"$out")"
out=$("$BIN" play --run "$tmp/prog.py" --json 2>/dev/null)
check "--run --json: a line per statement, numbered as in the file" grep -qF '{"line": 5, "ok": false' <<<"$out"
"$BIN" play --run "$tmp/nope.py" 2>"$tmp/err"
check "--run of a missing file exits 1" test $? = 1
# issue 15 item 4: 500 x 4 MB named tensors reached 1.96 GB; the budget stops them at 256 MB
peak=$(python3 -c '
import resource, subprocess, sys
lines = "".join("v%d = torch.arange(1000000)\n" % i for i in range(500))
out = subprocess.run([sys.argv[1], "play", "--json"], input=lines, capture_output=True, text=True).stdout
print(sum("\"ok\": true" in l for l in out.splitlines()), "over the budget of 256 MB" in out,
      resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' "$BIN")
read -r named refused rss <<<"$peak"
check "500 x torch.arange(1000000): 67 named, the rest refused by the budget" test "$named" = 67 -a "$refused" = True
[ "${MODE:-plain}" = asan ] || check "and the peak RSS stays near 256 MB (now ${rss} MB)" test "$rss" -lt 320
check "empty input: no output, exit 0" test -z "$("$BIN" play --json </dev/null)"

# --- the screen in tmux ------------------------------------------------------------------

# --- issue 18: RoPE in a line or two, on the run's own preloaded cos and sin -----------
rope_prog='x1, x2 = Q_heads.chunk(2, dim=-1)
r = Q_heads * cos + torch.cat((-x2, x1), dim=-1) * sin
(r != Q_rope).flatten().long() @ torch.ones(B * H * S * dh).long()
cos.shape'
out=$(printf '%s\n' "$rope_prog" | "$BIN" play --rope half --seq 7 --d-model 16 --json --values --no-save 2>&1)
check "--rope half: Q_heads * cos + rotate_half(Q_heads) * sin is Q_rope, bit for bit" \
    grep -q '^{"line": 3, .*"dtype": "torch.int64", "data": \[0\]}' <<<"$out"
check "--rope half: cos is (S, dh)" grep -q '^{"line": 4, .*"value": \[7, 8\]}' <<<"$out"
rope_prog='p = Q_heads.view(B, H, S, dh // 2, 2).flip(-1) * (torch.arange(2) * 2 - 1)
r = Q_heads * cos + p.flatten(-2) * sin
(r != Q_rope).flatten().long() @ torch.ones(B * H * S * dh).long()'
out=$(printf '%s\n' "$rope_prog" | "$BIN" play --rope interleaved --seq 5 --json --values --no-save 2>&1)
check "--rope interleaved: the pairs flipped with a sign give Q_rope, bit for bit" \
    grep -q '^{"line": 3, .*"dtype": "torch.int64", "data": \[0\]}' <<<"$out"
out=$(printf '%s\n' 'inv_freq = 1.0 / (10000 ** (torch.arange(0, dh, 2).float() / dh))' \
    'torch.outer(torch.arange(S).float(), inv_freq).cos() - cos[:, :dh // 2]' '-2 ** 2' |
    "$BIN" play --rope half --json --values --no-save 2>&1)
check "the tables are HF's: cos(outer(t, inv_freq)), written with ** and torch.outer" \
    grep -q '^{"line": 2, .*"data": \[0, 0, 0, 0, 0, 0, 0, 0\]}' <<<"$out"
check "** binds tighter than a unary minus on its left: -2 ** 2 is -4" \
    grep -q '^{"line": 3, .*"value": -4}' <<<"$out"
out=$(printf 'cos\n' | "$BIN" play --json --no-save 2>&1)
check "RoPE off: no cos table" grep -q "name 'cos' is not defined" <<<"$out"

# A tmux server started earlier keeps its own environment: the pane gets ours explicitly.
penv=(env TERM=xterm-256color LANG=C.UTF-8 "XDG_STATE_HOME=$XDG_STATE_HOME"
    "ASAN_OPTIONS=${ASAN_OPTIONS:-}" "UBSAN_OPTIONS=${UBSAN_OPTIONS:-}" "LSAN_OPTIONS=$LSAN_OPTIONS")
s=play$$
tmux_start "$s" 80 24 "${penv[@]}" sh -c "'$BIN' play; echo EXIT=\$?; sleep 600"
if tmux_wait "$s" "Type a PyTorch statement" 100; then ok "play opens its screen"; else fail "play opens its screen" "$(tmux_screen "$s")"; fi
tmux_keys "$s" -l "b = torch.arange(24).view(2, 12)"
tmux_keys "$s" Enter
if tmux_wait "$s" "strides (12, 1)" 100; then ok "a statement typed is drawn"; else fail "a statement typed is drawn" "$(tmux_screen "$s")"; fi
check "the candy bar shows the read order" tmux_wait "$s" "reads     0   1   2"
tmux_keys "$s" -l "b.t().view(24)"
tmux_keys "$s" Enter
check "an error is drawn in PyTorch's words" tmux_wait "$s" "view size is not compatible"
tmux_keys "$s" Up
check "Up recalls the last statement" tmux_wait "$s" ">>> b.t().view(24)"
tmux_keys "$s" C-u
tmux_keys "$s" -l "Q_hea"
tmux_keys "$s" Tab
check "Tab completes a name" tmux_wait "$s" ">>> Q_heads"
tmux_keys "$s" -l ".strid"
tmux_keys "$s" Tab
tmux_keys "$s" -l "()"
tmux_keys "$s" Enter
check "Tab completes a method; the query answers" tmux_wait "$s" "(32, 4, 8, 1)"
# line_is NAME REGEX: 0 once a line of the screen matches REGEX (5 s at most)
line_is() { local i; for ((i = 0; i < 50; i++)); do tmux_screen "$1" | grep -qE -- "$2" && return 0; sleep 0.1; done; return 1; }
tmux_keys "$s" -l "héllo"
tmux_keys "$s" BSpace
check "multibyte editing: héllo, Backspace, héll" line_is "$s" "^ >>> héll$"
tmux_keys "$s" Home DC DC
check "Delete takes the h, then the whole é" line_is "$s" "^ >>> ll$"
tmux_keys "$s" Right C-u
check "Ctrl-U erases before the cursor only" line_is "$s" "^ >>> l$"
tmux_keys "$s" C-e C-u
tmux_keys "$s" q
check "q on an empty line leaves" tmux_wait "$s" "EXIT=0"
check "the history is kept in the state dir" grep -qxF "b.t().view(24)" "$XDG_STATE_HOME/mhaviz/play_history"
e2e_tmux kill-session -t "$s" 2>/dev/null

s=home$$
tmux_start "$s" 80 24 "${penv[@]}" sh -c "'$BIN'; echo EXIT=\$?; sleep 600"
tmux_wait "$s" "Explore" 100
tmux_keys "$s" 4
check "home's Explore opens the playground" tmux_wait "$s" "Explore: the stride playground"
tmux_keys "$s" Up
check "the history is there next time" tmux_wait "$s" ">>> Q_heads.stride()"
tmux_keys "$s" Escape
check "Esc goes back to home" tmux_wait "$s" "multi-head attention, the way"
tmux_keys "$s" q
check "and q quits" tmux_wait "$s" "EXIT=0"
e2e_tmux kill-session -t "$s" 2>/dev/null

# --plain on a terminal: libedit's line editor with the same history and completion
s=plain$$
tmux_start "$s" 100 30 "${penv[@]}" sh -c "'$BIN' play --plain; echo EXIT=\$?; sleep 600"
tmux_wait "$s" ">>>" 100
tmux_keys "$s" Up
check "--plain on a terminal has the history" tmux_wait "$s" ">>> Q_heads.stride()"
tmux_keys "$s" C-u
tmux_keys "$s" -l "b = K_he"
tmux_keys "$s" Tab
tmux_keys "$s" -l ".transp"
tmux_keys "$s" Tab
tmux_keys "$s" -l "(1, 2)"
tmux_keys "$s" Enter
check "--plain completes names and methods with Tab" tmux_wait "$s" "b: shape (1, 4, 2, 4)  strides (32, 8, 4, 1)"
tmux_keys "$s" C-d
check "--plain ends at Ctrl-D with exit 0" tmux_wait "$s" "EXIT=0"
e2e_tmux kill-session -t "$s" 2>/dev/null

finish
