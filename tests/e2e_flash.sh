#!/usr/bin/env bash
# e2e_flash.sh - `mhaviz flash`: --json against tests/ref_flash.py (an
# independent online softmax over export's tensors: every tile's m, l, O, the
# final O against head_out, the bytes against the formulas; fixed and random
# configurations), the --plain trace, and bad flags.
. "$(dirname "$0")/e2e_lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

if python3 "$HERE/ref_flash.py" "$BIN" --random 30 >"$tmp/ref" 2>&1; then
  ok "flash --json agrees with ref_flash.py ($(tail -1 "$tmp/ref" | cut -d: -f2 | cut -d, -f1-2))"
else
  fail "flash --json against ref_flash.py" "$(head -20 "$tmp/ref")"
fi

capture "$BIN" flash --json
check "json: exit 0" test "$rc" = 0
check "json: one object with config, tiles, bytes" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert sorted(d) == ["bytes", "config", "tiles"], sorted(d)
assert d["config"]["block_q"] == 2 and d["config"]["block_k"] == 2
assert len(d["tiles"]) == 8 and d["bytes"] == {"naive": 1024, "flash": 800}' "$tmp/out"

capture "$BIN" flash --plain --causal
out=$(cat "$tmp/out")
check "plain: exit 0" test "$rc" = 0
check "plain: a tile above the diagonal is shown skipped" grep -q "k tile 1: keys \[2, 4) skipped: wholly above the diagonal" <<<"$out"
check "plain: a partly masked tile is visited" grep -q "k tile 1: keys \[2, 4) stream past (K and V 2 x 4), partly masked: 1 of its 4 scores" <<<"$out"
check "plain: m, l, O after each tile" grep -Eq "^      row 3: m [-0-9.e]+  l [-0-9.e]+  O \[" <<<"$out"
check "plain: 6 tiles visited, 2 skipped" grep -q "^6 tiles visited, 2 skipped" <<<"$out"
o=$("$BIN" flash --plain --seq 5 --block-q 2 --block-k 5) # the last q tile holds one row
check "plain: a one-row q tile says 'of 1 row', not 'of 1 rows'" \
  grep -q "rows \[4, 5) on chip (Q 1 x 4, and m, l, O of 1 row)$" <<<"$o"
o=$("$BIN" flash --plain --seq 1 --heads 1)
check "plain: '1 tile visited', not '1 tiles'" grep -q "^1 tile visited, 0 skipped$" <<<"$o"
check "plain: 'the one head', not 'all 1 heads'" grep -q "float32, the one head:$" <<<"$o"
o=$("$BIN" flash --plain --block-q 1 --block-k 1)
check "plain: 'a q tile of 1 row', 'tiles of 1 key'" \
  grep -q "each q tile of 1 row stays on chip" <<<"$o"
check "plain: 'tiles of 1 key'" grep -q "^while the K/V tiles of 1 key stream past it" <<<"$o"
# causal, 2 x 2 blocks: q tile 0 reads keys 0..1, q tile 1 all 4: 4 (16 + 2*6*4 + 16 + 4) = 336 a head
check "plain: naive 1,024 and flash 672 bytes" bash -c 'grep -q "naive          1,024" <<<"$1" && grep -q "flash            672" <<<"$1"' _ "$out"
check "plain: ratio 1.52x" grep -q "ratio          1.52x" <<<"$out"
check "plain: final O = head_out" grep -Eq "largest difference (0|[0-9.]+e-0[78])$" <<<"$out"
# 64 x 4 (4 x 8192 x 128 + 4 x 8192^2) = 69,793,218,560; the scores 64 x 8192^2 x 2 B = 8 GiB
check "plain: real sizes, naive" grep -q "naive     69,793,218,560 B (65.0 GiB)" <<<"$out"
check "plain: real sizes, 2.00x fewer" grep -q "34,898,706,432 B (32.5 GiB)  2.00x fewer" <<<"$out"
check "plain: the scores at fp16: 8 GiB" grep -q "the scores alone: 8.00 GiB at fp16" <<<"$out"
capture "$BIN" flash --seq 3 --block-q 50 --block-k 7
check "a block larger than S: one tile a head" grep -q "^2 tiles visited, 0 skipped" "$tmp/out"
capture "$BIN" flash --block-q=3 --block-k=1 --heads 4 --kv-heads 1 --seq 5
check "flag=value, MQA: every head reads kv head 0" test "$(grep -c 'reads kv head 0' "$tmp/out")" = 4
capture "$BIN" flash </dev/null
check "no --plain/--json off a terminal: the plain trace" grep -q "^8 tiles visited" "$tmp/out"
capture "$BIN" flash --color=never
check "off a terminal, a screen flag is refused" test "$rc" = 2

usage_error "--block-q 0: must be between 1" flash --block-q 0
usage_error "--block-k 0: must be between 1" flash --block-k 0 --json
usage_error "--block-q: 'x' is not a whole number" flash --block-q x
usage_error "--block-k -2: must be between 1" flash --block-k -2
usage_error "--block-q" flash --block-q
usage_error "--heads 3" flash --heads 3
usage_error "flash: unknown option '--nope'" flash --nope
full_disk flash --json
capture "$BIN" flash --help
check "--help names the flags" bash -c 'grep -q -- "--block-q N" "$1" && grep -q -- "--batch N" "$1"' _ "$tmp/out"
check "mhaviz --help lists flash" grep -q "^  flash " <("$BIN" --help)

# the Tiles screen
S=e2e_flash_$$
tmux_start $S 80 24 env NO_COLOR=1 "$BIN" flash --no-save --causal --seq 5
check "screen: opens on the first tile" tmux_wait $S "head 0 (kv head 0), q tile 0, K/V tile 0"
check "screen: the first tile partly masked" tmux_wait $S "1 of 4 above the diagonal: -inf"
check "screen: the tiles above the diagonal skipped" tmux_wait $S "q0   ██ ×× ××"
tmux_keys $S ' '
check "screen: Space, the next tile" tmux_wait $S "q tile 1, K/V tile 0"
check "screen: the bytes, naive vs flash" tmux_wait $S "whole loop: naive 1,440 B, flash 1,064 B"
tmux_keys $S G
check "screen: G, the end: every row = head_out" tmux_wait $S "10 of 10 O rows written once: = head_out"
e2e_tmux resize-window -t $S -x 200 -y 60 2>/dev/null
check "screen: resized to 200x60" tmux_wait $S "S 8192, dh 128, 64 heads: naive 65.0 GiB, flash 32.5 GiB (2.00x); the scores alone 8.00 GiB"
e2e_tmux resize-window -t $S -x 60 -y 20 2>/dev/null
check "screen: below 80x24 it asks for room" tmux_wait $S "enlarge to 80x24"
e2e_tmux resize-window -t $S -x 80 -y 24 2>/dev/null
tmux_keys $S '?'
check "screen: ? opens the help at Tiles" tmux_wait $S "Tiles: FlashAttention-2, one tile at a time"
tmux_keys $S q q
check "screen: q quits" tmux_gone $S
# ASCII (a non-UTF-8 locale), from the home menu's Tiles line
tmux_start $S 80 24 env LANG=C LC_ALL=C "$BIN" --no-save --causal
check "home: the Tiles line" tmux_wait $S "Tiles"
tmux_keys $S Up Up Enter
check "home -> Tiles: ASCII glyphs" tmux_wait $S "q0   @@ xx"
tmux_keys $S q q
tmux_gone $S
tmux_start $S 80 24 "$BIN" flash --no-save
check "screen: running for SIGTERM" tmux_wait $S "Tiles: "
pid=$(e2e_tmux display -p -t $S '#{pane_pid}' 2>/dev/null)
check "screen: its pid" test -n "$pid"
[ -n "$pid" ] && kill -TERM "$pid"
check "SIGTERM ends the screen" tmux_gone $S 30
# gone, or a zombie not reaped yet (tmux's server may have exited with its last session)
check "SIGTERM: the process is gone" not bash -c "ps -o stat= -p ${pid:-0} | grep -qv Z"
finish
