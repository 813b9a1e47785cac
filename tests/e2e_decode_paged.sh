#!/usr/bin/env bash
# e2e_decode_paged.sh - `mhaviz decode --paged`: the paged Decode screen at
# batch 2 in tmux (80x24 and 200x60: the pool, blocks handed out in turn to
# the two sequences, the block tables, the gather, every row the full causal
# pass's), the --plain run's tables against kv --paged's count, and the
# usage errors of the flags.
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
finish
