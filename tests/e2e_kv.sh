#!/usr/bin/env bash
# e2e_kv.sh - `mhaviz kv` from the outside: --json agrees with an independent
# computation from the cited config values (tests/ref_kv.py: every preset at
# several contexts and dtypes, --paged against issue 19's formulas for random
# lengths, block sizes and shared prefixes), the figures the issue names, and
# one-line exit-2 errors naming the flag for every kind of bad --paged input.
#
# $MHAVIZ_BIN is the binary to drive; $MODE is plain or asan.
. "$(dirname "$0")/e2e_lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

# --- every figure against the reference ----------------------------------------
if python3 "$HERE/ref_kv.py" "$BIN" >"$tmp/ref" 2>&1; then ok "kv --json agrees with ref_kv.py ($(tail -1 "$tmp/ref"))"; else
    fail "kv --json against ref_kv.py" "$(head -c 1500 "$tmp/ref")"; fi

# --- the issue's numbers, as a reader sees them ---------------------------------
capture "$BIN" kv --preset deepseek-v3 --dtype bf16
check "kv: DeepSeek-V3 61 x (512 + 64) x 2 = 70,272 B/token" grep -q "per token  = 61 x (512 + 64) x 2 = 70,272 bytes" "$tmp/out"
check "kv: DeepSeek-V3's own row is MLA" grep -q "^MLA (this model)" "$tmp/out"
capture "$BIN" kv --preset gemma-3-27b --dtype bf16 --context 131072
check "kv: Gemma 3 27B 10 global + 52 windowed layers" grep -q "(10 x 131,072 + 52 x 1,024 layer-tokens)" "$tmp/out"
capture "$BIN" kv --preset gpt-oss-120b
check "kv: gpt-oss-120b 18 of 36 layers windowed at 128" grep -q "sliding window 128: 18 of 36 layers" "$tmp/out"
capture "$BIN" kv --preset llama-3-8b --paged --lengths 100,37,25 --shared-prefix 20
check "kv --paged: 10 blocks, ref count 3" grep -q "1 full block stored once, ref count 3" "$tmp/out"
check "kv --paged: the pool line" grep -q "^pool: 10 blocks" "$tmp/out"
capture "$BIN" kv --preset llama-3-8b --json
if [ "$rc" = 0 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["paged"] is None' "$tmp/out"; then
    ok "kv --json: valid JSON, paged null without --paged"; else fail "kv --json" "rc $rc"; fi
capture "$BIN" kv --list
check "kv --list: deepseek-v3's kind is MLA" grep -qE "^deepseek-v3 .* MLA$" "$tmp/out"

# --- bad input: exit 2, one line naming the flag, nothing on stdout -------------
usage_error "--block-size 0" kv --preset llama-3-8b --paged --lengths 10 --block-size 0
usage_error "--lengths" kv --preset llama-3-8b --paged --lengths 10,0
usage_error "--lengths" kv --preset llama-3-8b --paged --lengths 0
usage_error "--lengths" kv --preset llama-3-8b --paged --lengths 10,x
usage_error "--lengths" kv --preset llama-3-8b --paged --lengths 10,
usage_error "--shared-prefix 20" kv --preset llama-3-8b --paged --lengths 10,30 --shared-prefix 20
usage_error "--context 8192" kv --preset llama-3-8b --paged --lengths 9000
usage_error "--lengths needs --paged" kv --preset llama-3-8b --lengths 10
usage_error "--shared-prefix needs --paged" kv --preset llama-3-8b --shared-prefix 3
usage_error "--paged needs --lengths" kv --preset llama-3-8b --paged
usage_error "--batch" kv --preset llama-3-8b --paged --lengths 4 --batch 2
usage_error "--kv-heads" kv --preset deepseek-v3 --kv-heads 8
usage_error "--block-size" kv --preset llama-3-8b --paged --lengths 4 --block-size -1
finish
