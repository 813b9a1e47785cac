#!/usr/bin/env bash
# bench_export.sh - time of `mhaviz export` (compute + JSON, written to
# /dev/null) for seq = d_model = 32, 64, ..., 512 with 8 heads: median and
# range (min-max) of RUNS runs, the size of the JSON, and how the median grows
# from one size to the next (x2 in seq and d_model: about x4 for the S*S*H
# scores and the S*D*D projections, x8 once the D*D*S matmuls dominate).
#
# With a second binary (an older build), each size runs both, alternating run
# by run so that a busy machine slows both alike, and prints new/old.
#
# usage: bash tests/bench_export.sh [BIN [OLD_BIN]]   (default .build/mhaviz)
#   RUNS=N (default 5), SIZES="32 64" to choose.
#   Old build: git archive BASE | tar -x -C /tmp/base && make -C /tmp/base
set -eu
BIN=${1:-${MHAVIZ_BIN:-.build/mhaviz}}
OLD=${2:-}
RUNS=${RUNS:-5}
SIZES=${SIZES:-32 64 128 256 512}

now_ns() { date +%s%N; }

# time_us BIN N: microseconds of one export at seq = d_model = N
time_us() {
    local t0 t1
    t0=$(now_ns)
    "$1" export --seq "$2" --d-model "$2" --heads 8 >/dev/null
    t1=$(now_ns)
    echo $(((t1 - t0) / 1000))
}

# stats US...: "median min max" in ms
stats() {
    printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 }
        END { printf "%.1f %.1f %.1f", v[int((NR + 1) / 2)] / 1000, v[1] / 1000, v[NR] / 1000 }'
}

printf 'mhaviz export: compute + JSON to /dev/null, heads 8, %d runs each\n' "$RUNS"
if [ -n "$OLD" ]; then
    printf '%5s %11s %9s %15s | %11s %9s %15s | %7s\n' "seq=D" "JSON bytes" "median" "range" \
        "old bytes" "old med" "old range" "new/old"
else
    printf '%5s %11s %9s %15s %7s\n' "seq=D" "JSON bytes" "median" "range" "growth"
fi
prev=""
for n in $SIZES; do
    new=() old=()
    for _ in $(seq "$RUNS"); do
        new+=("$(time_us "$BIN" "$n")")
        [ -z "$OLD" ] || old+=("$(time_us "$OLD" "$n")")
    done
    read -r med lo hi <<<"$(stats "${new[@]}")"
    bytes=$("$BIN" export --seq "$n" --d-model "$n" --heads 8 | wc -c)
    if [ -n "$OLD" ]; then
        read -r omed olo ohi <<<"$(stats "${old[@]}")"
        obytes=$("$OLD" export --seq "$n" --d-model "$n" --heads 8 | wc -c)
        printf '%5d %11d %7s ms %15s | %11d %6s ms %15s | %7s\n' "$n" "$bytes" "$med" \
            "$lo-$hi" "$obytes" "$omed" "$olo-$ohi" \
            "$(awk -v a="$med" -v b="$omed" 'BEGIN { printf "%.2fx", a / b }')"
    else
        growth=-
        [ -z "$prev" ] || growth=$(awk -v a="$med" -v b="$prev" 'BEGIN { printf "x%.1f", a / b }')
        printf '%5d %11d %7s ms %15s %7s\n' "$n" "$bytes" "$med" "$lo-$hi" "$growth"
    fi
    prev=$med
done
