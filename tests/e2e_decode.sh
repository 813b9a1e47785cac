#!/usr/bin/env bash
# e2e_decode.sh - `mhaviz decode`: the toy run as text, the real-size
# arithmetic for Llama 3 8B at 8192 on an H100 (checked by hand in the
# comments), windows and chunks, bad flags, and the decode screen in tmux.
. "$(dirname "$0")/e2e_lib.sh"

out=$("$BIN" decode --plain 2>&1); rc=$?
check "decode --plain exits 0" test "$rc" = 0
check "toy: every row equals the full causal pass" grep -q "largest difference 0$" <<<"$out"
check "toy: a prefill then single-row steps" grep -q "^decode  positions 7..7: q (1, 4, 1, 2)" <<<"$out"
# the weights' shape names its dims: a bare 5-D (1, 4, 1, 4, 4) read as nothing on screen
check "toy: the scores' shape says its layout" grep -q "scores (B, KV, G, n, T) (1, 4, 1, 4, 4)$" <<<"$out"
o=$("$BIN" decode --plain --kv-heads 1)
check "toy MQA: one kv head, a group of 4" grep -q "scores (B, KV, G, n, T) (1, 1, 4, 1, 8)$" <<<"$o"
for l in hf meta; do
  for kv in 4 2 1; do
    o=$("$BIN" decode --plain --layout $l --kv-heads $kv --batch 2 --prompt 1 2>&1)
    check "toy $l kv_heads $kv: rows equal the causal pass" grep -q "largest difference 0$" <<<"$o"
  done
done
o=$("$BIN" decode --plain --layout meta --kv-heads 2)
check "meta layout: cache strides (B, T, KV, dh)" grep -q "cache strides (32, 4, 2, 1)" <<<"$o"

real=$("$BIN" decode --plain --preset llama-3-8b --context 8192 --gpu h100-sxm); rc=$?
check "real: exits 0" test "$rc" = 0
# 2 x 8 x 128 x 2 B = 4,096 per layer; x 32 layers = 131,072 written per token
check "real: 4,096 B per token per layer, 131,072 in all" grep -Eq "written: its K and V +4,096 +131,072" <<<"$real"
# 131,072 x 8,192 = 1,073,741,824 read per token
check "real: the whole cache read per token" grep -q "1,073,741,824 (1.00 GiB)" <<<"$real"
# 8,030,261,248 x 2 = 16,060,522,496; / 131,072 -> 122,533 tokens
check "real: weights bytes" grep -q "16,060,522,496 B (15.0 GiB)" <<<"$real"
check "real: cache outgrows the weights at 122,533" grep -q "122,533 tokens" <<<"$real"
# one row of the untied input embedding: (8,030,261,248 - 128,255 x 4,096) x 2 = 15,009,857,536
check "real: a step reads one embedding row, not the table" grep -q "one step reads 15,009,857,536 B of weights" <<<"$real"
# 3.35e12 / (15,009,857,536 + 1,073,741,824 = 16,083,599,360) = 208.3
check "real: bandwidth bound 208.3 tokens/s" grep -q "= 208.3 tokens/s" <<<"$real"
# nvidia-smi's 81,559 MiB = 85,520,809,984 B: (that - 16,060,522,496) / 1 GiB = 64.7
check "real: 64 sequences fit in 81,559 MiB" grep -q "(85,520,809,984 - 16,060,522,496) B / 1,073,741,824 B per sequence = 64 sequences fit" <<<"$real"
check "real: the GPU's source is printed" grep -q "source: NVIDIA H100" <<<"$real"

m=$("$BIN" decode --plain --preset mistral-7b --context 8192)
check "mistral: the window caps the cache at 512 MiB" grep -q "536,870,912 (512.0 MiB)" <<<"$m"
check "mistral: a windowed cache never outgrows the weights" grep -q "never" <<<"$m"
h=$("$BIN" decode --plain --preset llama-3-8b --context 16384)
check "beyond the trained context: hypothetical" grep -q "^hypothetical" <<<"$h"
k=$("$BIN" kv --preset mistral-7b --context 8192)
check "kv: mistral 512 MiB at 8192 (window)" grep -q "(512.0 MiB)" <<<"$k"
k=$("$BIN" kv --preset llama-4-maverick)
check "kv: maverick 12 global + 36 chunked layers" grep -q "(12 x 1,048,576 + 36 x 8,192 layer-tokens)" <<<"$k"
# kv --list: the columns line up (Llama 4 Maverick's long title pushed its row out)
l=$("$BIN" kv --list)
check "kv --list: every row as wide as the header" test "$(awk '{ print length }' <<<"$l" | sort -u | wc -l)" = 1
check "kv --list: maverick's layers under 'layers'" test "$(grep maverick <<<"$l" | awk '{ print index($0, " 48 ") + 2 }')" = "$(head -1 <<<"$l" | awk '{ print index($0, "layers") + 5 }')"

"$BIN" decode --plain --preset nope >/dev/null 2>"$tmp/err"; rc=$?
check "unknown preset: exit 2" test "$rc" = 2
check "unknown preset: names the flag" grep -q "^mhaviz: --preset 'nope'" "$tmp/err"
"$BIN" decode --plain --preset llama-3-8b --gpu nope >/dev/null 2>"$tmp/err"; rc=$?
check "unknown gpu: exit 2, lists the GPUs" bash -c "test $rc = 2 && grep -q h100-sxm '$tmp/err'"
"$BIN" decode --plain --prompt 9 >/dev/null 2>&1; rc=$?
check "prompt longer than seq: exit 2" test "$rc" = 2
"$BIN" decode --plain --context 5 >/dev/null 2>&1; rc=$?
check "--context without --preset: exit 2" test "$rc" = 2

# real sizes are --plain only: a flag --help lists is never "unknown" on the screen
for f in "--preset llama-3-8b" "--gpu h100-sxm" "--dtype fp8" "--context 5"; do
  "$BIN" decode $f >/dev/null 2>"$tmp/err" </dev/null; rc=$?
  check "decode ${f%% *} without --plain: exit 2, needs --plain" bash -c "test $rc = 2 && grep -q '^mhaviz: ${f%% *} needs --plain' '$tmp/err'"
done
"$BIN" decode --layout meta --prompt 2 --seq 9 >/dev/null 2>"$tmp/err" </dev/null; rc=$?
check "screen takes --layout and --prompt (then wants a terminal)" bash -c "test $rc = 2 && grep -q 'not a terminal' '$tmp/err'"
# one default prompt: half the sequence, the screen as --plain
o=$("$BIN" decode --plain --seq 6 --heads 2 --kv-heads 1 --seed 7)
check "plain: decode's defaults give way to the flags" grep -q "seq 6, d_model 8, heads 2, kv_heads 1 (MQA), d_head 4; prompt 3" <<<"$o"

"$BIN" decode >/dev/null 2>"$tmp/err" </dev/null; rc=$?
check "decode without a terminal: exit 2, points to --plain" bash -c "test $rc = 2 && grep -q 'decode --plain' '$tmp/err'"

# the screen
S=e2e_decode_$$
tmux_start $S 80 24 "$BIN" decode --no-save --kv-heads 2
check "screen: opens on the prefill, half the sequence as --plain" tmux_wait $S "prefill: the 4 prompt tokens"
tmux_keys $S ' '
check "screen: Space decodes token 4" tmux_wait $S 'decode: token 4'
check "screen: the row equals the causal pass" tmux_wait $S "rows 4..4 = the full causal pass"
check "screen: GQA expand has stride 0" tmux_wait $S "strides (32, 16, 0, 2, 1)"
tmux_keys $S L
check "screen: L switches to Meta's layout" tmux_wait $S "Meta (B,T,KV,dh)"
tmux_keys $S K
check "screen: K goes to MQA" tmux_wait $S "MQA, 4 query heads, 1 kv head"
tmux_keys $S K
check "screen: K again: MHA" tmux_wait $S "MHA, 4 query heads, 4 kv heads"
tmux_keys $S q
tmux_gone $S
# the flags reach the screen (it always showed GQA, 4 heads, 8 tokens)
tmux_start $S 80 24 "$BIN" decode --no-save --heads 2 --kv-heads 1 --seq 6 --seed 7 --layout meta
check "screen: --heads 2 --kv-heads 1" tmux_wait $S "MQA, 2 query heads, 1 kv head"
check "screen: --seq 6 --layout meta: a (1, 6, 1, 4) cache" tmux_wait $S "Meta (B,T,KV,dh) (1, 6, 1, 4)"
tmux_keys $S q
tmux_gone $S
# from the home menu: the current configuration
tmux_start $S 80 24 "$BIN" --no-save --seq 6 --heads 2 --kv-heads 1
check "home: the menu is up" tmux_wait $S "Decode"
tmux_keys $S 8
check "home -> Decode: the home's configuration" tmux_wait $S "MQA, 2 query heads, 1 kv head"
check "home -> Decode: 3 of its 6 tokens prefilled" tmux_wait $S "prefill: the 3 prompt tokens"
tmux_keys $S q q q
check "screen: q quits" tmux_gone $S
# one byte per element is "1 byte", in both commands that say it
check "kv: fp8 is 1 byte per element" grep -q "(1 byte per element)" <("$BIN" kv --preset llama-3-8b --dtype fp8)
check "decode: fp8 is 1 byte per element" grep -q "(1 byte per element)" <("$BIN" decode --plain --preset llama-3-8b --context 8192 --dtype fp8)
finish
