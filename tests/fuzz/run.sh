#!/usr/bin/env bash
# run.sh - `make fuzz` / `make fuzz-short`: runs each libFuzzer target
# (.build/fuzz/fuzz_NAME) for SECONDS, seeded from the real files, the bad
# corpora, tests/fuzz/seeds/NAME/ and tests/fuzz/regress/NAME/.  The corpus
# it grows is kept in .build/fuzz/corpus/NAME/ for the next run.  Prints one
# line per target (runs, executions per second, corpus size) and exits 1 if
# any target found something: the input is in .build/fuzz/findings/.
#
# usage: bash tests/fuzz/run.sh SECONDS NAME...
#        bash tests/fuzz/run.sh runs=N NAME...   N inputs each from seed 1: the
#        same inputs on every machine (CI's pass, so it cannot fail by chance)
set -u
cd "$(dirname "$0")/../.."
SECONDS_EACH=$1
shift
B=.build/fuzz
mkdir -p "$B/findings"

# seeds NAME: the real files that NAME reads, one per line
seeds() {
    case $1 in
    lesson) ls lessons/*.lesson tests/lessons-bad/* ;;
    expand) ls lessons/*.lesson ;;
    quiz_read | quiz_bank) ls lessons/*.quiz tests/quiz-bad/* ;;
    presets) ls assets/*.presets ;;
    esac
    ls -d tests/fuzz/seeds/"$1"/* tests/fuzz/regress/"$1"/* 2>/dev/null
}

# expand: every {expression} of the lessons and quiz banks, one per file
expressions() {
    local i=0 e
    grep -oh '{[a-z_]*[^}]*}' lessons/*.lesson lessons/*.quiz | sort -u | while read -r e; do
        i=$((i + 1))
        printf '%s' "$e" >"$1/expr-$i"
    done
}

case $SECONDS_EACH in
runs=*) budget="-runs=${SECONDS_EACH#runs=} -seed=1" label=$SECONDS_EACH ;;
*) budget="-max_total_time=$SECONDS_EACH" label=${SECONDS_EACH}s ;;
esac
failed=()
for name in "$@"; do
    seed=$B/seed/$name corpus=$B/corpus/$name
    rm -rf "$seed"
    mkdir -p "$seed" "$corpus"
    seeds "$name" | while read -r f; do cp "$f" "$seed/$(basename "$(dirname "$f")")-$(basename "$f")"; done
    [ "$name" != expand ] || expressions "$seed"
    dict=
    [ ! -f "tests/fuzz/$name.dict" ] || dict=-dict=tests/fuzz/$name.dict
    log=$B/$name.log
    # shellcheck disable=SC2086
    # shellcheck disable=SC2086
    "$B/fuzz_$name" $budget -max_len=8192 -timeout=10 -rss_limit_mb=1024 \
        -print_final_stats=1 -artifact_prefix="$B/findings/$name-" $dict "$corpus" "$seed" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    size=$(find "$corpus" -type f | wc -l)
    if [ "$rc" = 0 ]; then
        printf 'fuzz %-10s %s: %9s runs, %6s exec/s, corpus %5d, no finding\n' "$name" \
            "$label" "${runs:-?}" "${eps:-?}" "$size"
    else
        printf 'fuzz %-10s FINDING (exit %s): %s\n' "$name" "$rc" \
            "$(grep -m1 -E 'ERROR|runtime error|invariant failed|Test unit written' "$log")"
        grep -E 'Test unit written|^SUMMARY' "$log" | sed 's/^/    /'
        failed+=("$name")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: findings in: ${failed[*]} (inputs in $B/findings/, logs in $B/NAME.log)"
    exit 1
fi
