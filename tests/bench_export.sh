#!/usr/bin/env bash
# bench_export.sh - time of `mhaviz export` (compute + JSON, written to
# /dev/null) for seq = d_model = 8, 16, ..., 512 with 8 heads: the median of
# 3 runs, the size of the JSON, and how the time grows from one size to the
# next (x2 in seq and d_model: about x4 for the S*S*H scores and the S*D*D
# projections, x8 once the D*D*S matmuls dominate).
#
# usage: bash tests/bench_export.sh [BIN]     (default .build/mhaviz)
set -eu
BIN=${1:-${MHAVIZ_BIN:-.build/mhaviz}}
RUNS=3

now_ns() { date +%s%N; }

# median of the arguments
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

printf 'mhaviz export: compute + JSON to /dev/null, median of %d runs, heads 8\n' "$RUNS"
printf '%6s %8s %12s %10s %8s\n' "seq" "d_model" "JSON bytes" "ms" "growth"
prev=""
for n in 8 16 32 64 128 256 512; do
    times=()
    for _ in $(seq "$RUNS"); do
        t0=$(now_ns)
        "$BIN" export --seq "$n" --d-model "$n" --heads 8 >/dev/null
        t1=$(now_ns)
        times+=($(( (t1 - t0) / 1000 )))   # microseconds
    done
    us=$(median "${times[@]}")
    bytes=$("$BIN" export --seq "$n" --d-model "$n" --heads 8 | wc -c)
    if [ -n "$prev" ] && [ "$prev" -gt 0 ]; then
        growth=$(awk -v a="$us" -v b="$prev" 'BEGIN { printf "x%.1f", a / b }')
    else
        growth="-"
    fi
    printf '%6d %8d %12d %10.1f %8s\n' "$n" "$n" "$bytes" "$(awk -v u="$us" 'BEGIN { print u / 1000 }')" "$growth"
    prev=$us
done
