#!/usr/bin/env bash
# e2e_compare.sh - issue 20's Compare: walk --compare FLAGS and the x key in
# a real terminal (tmux) at 80x24 (one block per run, stacked) and 200x60
# (two scenes side by side), every step; frames and export --compare; the
# --compare errors.
. "$(dirname "$0")/e2e_lib.sh"
export E2E_TMUX_SOCKET=${E2E_TMUX_SOCKET:-mhaviz-cmp-$$}
export NO_COLOR=1 LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color
unset MHAVIZ_LESSONS

mha="H2 KV2 (MHA)" mqa="H2 KV1 (MQA)"
# K_heads of step 4: MHA's strides and MQA's (each run's own, from the engine)
k_mha="(32, 4, 8, 1)" k_mqa="(16, 4, 4, 1)"

# walk_all NAME COLS ROWS: steps 0..10 with Space, both labels on each
walk_all() {
  local sess=$1 cols=$2 rows=$3 s missing=""
  for ((s = 0; s <= 10; s++)); do
    if ! tmux_wait "$sess" "step $s/10" 100 || ! tmux_screen "$sess" | grep -qF "$mha" ||
      ! tmux_screen "$sess" | grep -qF "$mqa"; then
      missing="$missing $s"
    fi
    if [ "$s" = 4 ]; then
      check "${cols}x$rows step 4: K_heads strides of both runs" \
        eval 'tmux_screen "$sess" | grep -qF "$k_mha" && tmux_screen "$sess" | grep -qF "$k_mqa"'
      check "${cols}x$rows step 4: the difference marked" \
        eval 'tmux_screen "$sess" | grep -qF "* K_heads"'
    fi
    tmux_keys "$sess" Space
  done
  check "${cols}x$rows: both configurations at every step${missing:+ (missing at$missing)}" test -z "$missing"
}

tmux_start small 80 24 "$BIN" walk --no-animation --no-save --compare "--kv-heads 1"
walk_all small 80 24
check "80x24: stacked (A's block over B's)" \
  eval 'tmux_screen small | grep -n "^A  \|^B  " | head -2 | tr "\n" " " | grep -q "^[0-9]*:A .* [0-9]*:B "'

tmux_start big 200 60 "$BIN" walk --no-animation --no-save --compare "--kv-heads 1"
walk_all big 200 60
check "200x60: side by side (A and B labels on one row)" \
  eval 'tmux_screen big | grep -q "^A  .*KV2 (MHA) .*  B  .*KV1 (MQA)"'

# x: compare off, then on again (kv_heads 1 by default, without --compare)
tmux_start key 80 24 "$BIN" walk --no-animation --no-save --step 4
tmux_wait key "step 4/10" 100
check "x off at start: one run" not eval 'tmux_screen key | grep -qF "$mqa"'
tmux_keys key x
check "x: the MQA run beside" tmux_wait key "$mqa" 100
check "x: K_heads strides of both" eval 'tmux_screen key | grep -qF "$k_mha" && tmux_screen key | grep -qF "$k_mqa"'
tmux_keys key K # kv_heads of A to the next (MQA for 2 heads): B follows, as MHA
check "K with compare on: B follows A" tmux_wait key "A  B1 S4 D8 H2 KV1 (MQA)" 100
tmux_keys key x
check "x again: compare off" tmux_wait key "compare off" 100

# frames and export --compare
capture "$BIN" frames --compare "--kv-heads 1" --step 4 --cols 200 --rows 60 --color=never
check "frames --compare: exit 0, both strides" \
  eval '[ "$rc" = 0 ] && grep -qF "$k_mha" "$tmp/out" && grep -qF "$k_mqa" "$tmp/out"'
capture "$BIN" export --compare "--kv-heads 1"
check "export --compare: a, b, differences" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"a", "b", "differences"}, d.keys()
assert d["a"]["config"]["kv_heads"] == 2 and d["b"]["config"]["kv_heads"] == 1
k = [x for x in d["differences"] if x["step"] == 4 and x["tensor"] == "K_heads"]
assert k and "strides" in k[0]["fields"], d["differences"]
assert d["a"]["tensors"]["K_heads"]["strides"] != d["b"]["tensors"]["K_heads"]["strides"]
share = "K, V = K.unsqueeze(2), V.unsqueeze(2)"  # each run its own program: MQA shares K
assert share not in d["a"]["program"] and share in d["b"]["program"], d["b"]["program"]
' "$tmp/out"
capture "$BIN" export
check "export without --compare: the single-run object" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"config", "tensors", "steps", "program", "program_bugs"}, d.keys()
' "$tmp/out"

for cmd in walk frames export; do
  usage_error "--compare: --kv-heads: 'x'" $cmd --compare "--kv-heads x"
  usage_error "--compare: '--foo' is not a configuration flag" $cmd --compare --foo
  usage_error "--compare: --kv-heads 3" $cmd --compare "--kv-heads 3"
done
finish
