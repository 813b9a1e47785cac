#!/usr/bin/env bash
# e2e_decode_paged.sh - `mhaviz decode --paged`: the paged Decode screen at
# batch 2 in tmux (80x24 and 200x60: the pool, blocks handed out in turn to
# the two sequences, the block tables, the gather, every row the full causal
# pass's), the --plain run's tables against kv --paged's count, and the
# usage errors of the flags; the shared prefix (reference counts, the
# copy-on-write) in NO_COLOR and ASCII, and --layout choosing the pool's.
#
# $MHAVIZ_BIN is the binary to drive; $MODE is plain or asan.
. "$(dirname "$0")/e2e_lib.sh"
export E2E_TMUX_SOCKET=${E2E_TMUX_SOCKET:-mhaviz-paged-$$}

for size in "80 24" "200 60"; do
    # shellcheck disable=SC2086
    set -- $size
    S=paged$1
    tmux_start $S "$1" "$2" "$BIN" decode --no-save --paged --block-size 2 --batch 2 --kv-heads 2
    check "${1}x$2: the prefill hands out blocks 0 1 2 3 in turn" tmux_wait $S "new blocks 0 1 2 3" 100
    check "${1}x$2: the pool (8, 2, 2, 2), 4 of 8 blocks" tmux_wait $S "(8, 2, 2, 2) strides (8, 4, 2, 1): 4/8 blocks" 100
    check "${1}x$2: the two block tables interleave" tmux_wait $S "table s0 [0 2]  table s1 [1 3]" 100
    tmux_keys $S ' '
    check "${1}x$2: Space decodes token 4 into new blocks 4 5" tmux_wait $S "new blocks 4 5" 100
    check "${1}x$2: the gather through the tables" tmux_wait $S "gather K (2, 2, 5, 2) through the tables" 100
    check "${1}x$2: the row equals the causal pass" tmux_wait $S "rows 4..4 = the full causal pass at those rows (largest difference 0)" 100
    tmux_keys $S ' '
    check "${1}x$2: token 5 fills block 4: no new block" tmux_wait $S "no new block" 100
    tmux_keys $S q
done

# the shared prefix at batch 2: the prefix blocks with their reference
# counts, the copy-on-write at the first token past the prefix, every row
# still the full pass's; in NO_COLOR at 80x24 through 200x60, and --ascii
for run in "80 24 NO_COLOR=1" "120 40 NO_COLOR=1" "200 60 NO_COLOR=1" "80 24 LANG=C.UTF-8 --ascii"; do
    # shellcheck disable=SC2086
    set -- $run
    cols=$1 rows=$2 envvar=$3 ascii=${4:-}
    S=shared$cols$ascii
    # shellcheck disable=SC2086
    tmux_start $S "$cols" "$rows" env "$envvar" "$BIN" decode --no-save $ascii --paged --block-size 2 --batch 2 --kv-heads 2 --shared-prefix 3 --prompt 3
    what="${cols}x$rows ${ascii:-NO_COLOR}"
    check "$what: the prefix block, stored once" tmux_wait $S "blk 0 0  1  ref 2: prefix, stored once" 100
    check "$what: the partial block, shared until written" tmux_wait $S "ref 2: partial prefix, copied on write" 100
    check "$what: both tables point at them" tmux_wait $S "table s0 [0 1]  table s1 [0 1]" 100
    check "$what: x shares the prefix" tmux_wait $S 'x: the 2 sequences share tokens 0..2 ("the" .. "sat")' 100
    tmux_keys $S ' '
    check "$what: token 3 copies block 1 on write" tmux_wait $S "copy-on-write: blk 1 -> 2 (1 prefix token each, 32 B)" 100
    check "$what: sequence 0 now has its own copy" tmux_wait $S "table s0 [0 2]  table s1 [0 1]" 100
    check "$what: the row equals the causal pass" tmux_wait $S "rows 3..3 = the full causal pass at those rows (largest difference 0)" 100
    if [ -n "$ascii" ]; then
        tmux_screen $S >"$tmp/screen"
        check "$what: no byte past ASCII on screen" not env LC_ALL=C grep -q '[^ -~]' "$tmp/screen"
    fi
    tmux_keys $S q
done

capture "$BIN" decode --plain --paged --block-size 3 --batch 3 --seq 7 --kv-heads 1
if [ "$rc" = 0 ] && grep -q "block table of sequence 2: 2 5 8" "$tmp/out" &&
    grep -q "pool: 9 blocks handed out (kv --paged: 9)" "$tmp/out" &&
    grep -q "largest difference 0$" "$tmp/out"; then
    ok "decode --plain --paged: tables, the pool as kv --paged counts it, rows equal"
else
    fail "decode --plain --paged" "exit $rc: $(tail -5 "$tmp/out" | head -c 400) $(head -c 200 "$tmp/err")"
fi
usage_error "--paged: needs --batch 2" decode --plain --paged
usage_error "--block-size 0" decode --plain --paged --batch 2 --block-size 0
usage_error "--block-size: needs --paged" decode --plain --block-size 4 --batch 2
usage_error "--paged: not with --window" decode --plain --paged --window 2 --batch 2

# --plain with a shared prefix: the copies, the reference counts, the pool
# as kv --paged --shared-prefix counts it, rows equal
capture "$BIN" decode --plain --paged --block-size 2 --batch 2 --kv-heads 2 --shared-prefix 3 --prompt 4
if [ "$rc" = 0 ] && grep -q "copy-on-write: block 1 -> 2 (1 prefix token, 32 B)" "$tmp/out" &&
    grep -q "reference counts: 0:2 1:1 2:1" "$tmp/out" &&
    grep -q "pool: 7 blocks handed out (kv --paged --shared-prefix: 7)" "$tmp/out" &&
    grep -q "(paged, the prefix shared): largest difference 0$" "$tmp/out"; then
    ok "decode --plain --shared-prefix 3: one copy-on-write, 7 blocks as kv --paged counts"
else
    fail "decode --plain --shared-prefix 3" "exit $rc: $(tail -6 "$tmp/out" | head -c 600) $(head -c 200 "$tmp/err")"
fi
# the same sequences through kv --paged itself (one layer of 2 kv heads of
# d_head 2 in fp32: decode's 32 B a token): the two agree
grep "^pool: " "$tmp/out" >"$tmp/pool"
capture "$BIN" kv --layers 1 --heads 4 --kv-heads 2 --d-head 2 --dtype fp32 --context 8 --paged --block-size 2 --lengths 8,8 --shared-prefix 3 --json
check "kv --paged --shared-prefix 3 --lengths 8,8: 7 blocks, 448 B reserved, as decode's pool" bash -c '
    python3 -c "import json,sys; p=json.load(open(sys.argv[1]))[\"paged\"]; print(\"pool: %d blocks handed out (kv --paged --shared-prefix: %d), %d B reserved, %d B used, %d B waste\" % (p[\"total_blocks\"], p[\"total_blocks\"], p[\"reserved_bytes\"], p[\"used_bytes\"], p[\"waste_bytes\"]))" "$1" | cmp -s - "$2"' _ "$tmp/out" "$tmp/pool"
# --layout with --paged: the pool's block layout follows it
capture "$BIN" decode --plain --paged --block-size 3 --batch 2 --kv-heads 2 --layout hf
check "--layout hf --paged: HND (blocks, KV, N, dh)" grep -q "one pool HND (blocks, KV, N, dh) .*" "$tmp/out"
check "--layout hf --paged: K and V each (6, 2, 3, 2)" grep -q "K and V each (6, 2, 3, 2)" "$tmp/out"
capture "$BIN" decode --plain --paged --block-size 3 --batch 2 --kv-heads 2
check "--paged alone: vLLM's NHD (blocks, N, KV, dh)" grep -q "K and V each (6, 3, 2, 2)" "$tmp/out"
usage_error "--shared-prefix 5: more than the prompt's 4 tokens" decode --plain --paged --batch 2 --shared-prefix 5
usage_error "--shared-prefix: needs --paged" decode --plain --batch 2 --shared-prefix 2
# the screen refuses it too, before it opens (a terminal is needed to get there)
S=sharedbad
tmux_start $S 100 10 sh -c '"$0" decode --no-save --paged --batch 2 --shared-prefix 9; echo "exit $?"; sleep 30' "$BIN"
check "decode --paged --shared-prefix 9 (the screen): more than the prompt" tmux_wait $S "mhaviz: --shared-prefix 9: more than the prompt's 4 tokens" 100
check "decode --paged --shared-prefix 9 (the screen): exit 2" tmux_wait $S "exit 2" 100
usage_error "--shared-prefix" decode --plain --paged --batch 2 --shared-prefix -1
finish
