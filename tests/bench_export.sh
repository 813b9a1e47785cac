#!/usr/bin/env bash
# bench_export.sh - time of `mhaviz export` (compute + JSON, written to
# /dev/null) for seq = d_model = 32, 64, ..., 512 with 8 heads: median and
# range (min-max) of RUNS runs' wall time, the median CPU time (user + sys),
# the size of the JSON, and how the median grows
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

# time_ms BIN N: "wall cpu" in ms of one export at seq = d_model = N (cpu =
# user + sys: what the run cost, less shaken than wall time on a busy machine)
time_ms() {
    local TIMEFORMAT='%R %U %S' t
    t=$({ time "$1" export --seq "$2" --d-model "$2" --heads 8 >/dev/null; } 2>&1)
    awk '{ printf "%.1f %.1f", $1 * 1000, ($2 + $3) * 1000 }' <<<"$t"
}

# stats MS...: "median min max" of the arguments
stats() {
    printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 }
        END { printf "%.1f %.1f %.1f", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

printf 'mhaviz export: compute + JSON to /dev/null, heads 8, %d runs each; ms\n' "$RUNS"
if [ -n "$OLD" ]; then
    printf '%5s %11s %8s %14s %7s | %8s %16s %7s | %8s\n' "seq=D" "JSON bytes" "wall" \
        "range" "cpu" "old wall" "old range" "old cpu" "new/old"
else
    printf '%5s %11s %8s %14s %7s %7s\n' "seq=D" "JSON bytes" "wall" "range" "cpu" "growth"
fi
prev=""
for n in $SIZES; do
    nw=() nc=() ow=() oc=()
    for _ in $(seq "$RUNS"); do
        read -r w c <<<"$(time_ms "$BIN" "$n")"
        nw+=("$w") nc+=("$c")
        [ -z "$OLD" ] || { read -r w c <<<"$(time_ms "$OLD" "$n")"; ow+=("$w") oc+=("$c"); }
    done
    read -r med lo hi <<<"$(stats "${nw[@]}")"
    read -r cpu _ _ <<<"$(stats "${nc[@]}")"
    bytes=$("$BIN" export --seq "$n" --d-model "$n" --heads 8 | wc -c)
    if [ -n "$OLD" ]; then
        read -r omed olo ohi <<<"$(stats "${ow[@]}")"
        read -r ocpu _ _ <<<"$(stats "${oc[@]}")"
        printf '%5d %11d %8s %14s %7s | %8s %16s %7s | %s wall, %s cpu\n' "$n" "$bytes" "$med" \
            "$lo-$hi" "$cpu" "$omed" "$olo-$ohi" "$ocpu" \
            "$(awk -v a="$med" -v b="$omed" 'BEGIN { printf "%.2fx", a / b }')" \
            "$(awk -v a="$cpu" -v b="$ocpu" 'BEGIN { printf "%.2fx", b ? a / b : 0 }')"
    else
        growth=-
        [ -z "$prev" ] || growth=$(awk -v a="$med" -v b="$prev" 'BEGIN { printf "x%.1f", a / b }')
        printf '%5d %11d %8s %14s %7s %7s\n' "$n" "$bytes" "$med" "$lo-$hi" "$cpu" "$growth"
    fi
    prev=$med
done
