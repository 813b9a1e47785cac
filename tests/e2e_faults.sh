#!/usr/bin/env bash
# e2e_faults.sh - the terminal fault matrix: the real binary on a pty of its
# own (tests/ptyrun.py: a small job-control shell, so Ctrl-C, Ctrl-\ and
# Ctrl-Z reach it as from bash), hit with signals on every kind of screen, a
# stop and continue, a storm of resizes, every kind of TERM, NO_COLOR, LANG=C,
# and stdin or stdout not a terminal.
#
# Every row checks the exit status (a signal kills the program by that signal,
# as the shell expects), the terminal restored (`stty -g` the same before and
# after, the alternate screen left, the cursor shown) and what was shown.
# ptyrun waits on the output with a deadline; nothing sleeps a fixed time to
# let the program get somewhere.
. "$(dirname "$0")/e2e_lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
# ncurses' own leaks (a failed newterm; mousemask under TERM=linux): see the file
export LSAN_OPTIONS="suppressions=$HERE/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
ERR=$tmp/stderr
REPORT=

# row NAME WANT [ptyrun options] -- ARGS...: one run of `mhaviz ARGS`; ok when
# the status is WANT (exit:N or signal:N), every wait saw its text and the
# terminal is restored (after the run, and while stopped for a tstp).
# $REPORT holds ptyrun's report for further checks.
row() {
    local name=$1 want=$2 opts=() why=""
    shift 2
    while [ "$1" != "--" ]; do opts+=("$1"); shift; done
    shift
    REPORT=$(python3 "$HERE/ptyrun.py" --env LANG=C.UTF-8 --env LC_ALL=C.UTF-8 --stderr "$ERR" \
        "${opts[@]}" -- "$BIN" "$@")
    grep -qx "status=$want" <<<"$REPORT" || why+=" $(grep '^status=' <<<"$REPORT"), not $want;"
    grep -q '^stty=differs' <<<"$REPORT" && why+=" stty -g differs after the run;"
    grep -q '^alt=kept' <<<"$REPORT" && why+=" alternate screen not left;"
    grep -q '^cursor=hidden' <<<"$REPORT" && why+=" cursor left hidden;"
    grep -q '^stopped=no' <<<"$REPORT" && why+=" Ctrl-Z did not stop it;"
    grep -q '^stopped_stty=differs' <<<"$REPORT" && why+=" stopped: stty -g differs;"
    grep -q '^stopped_alt=kept' <<<"$REPORT" && why+=" stopped: alternate screen not left;"
    grep -q '^stopped_cursor=hidden' <<<"$REPORT" && why+=" stopped: cursor hidden;"
    while read -r w; do why+=" not shown: '${w#wait=fail:}';"; done < <(grep '^wait=fail:' <<<"$REPORT")
    if [ -z "$why" ]; then ok "$name"; else fail "$name" "$why"; fi
}
# field KEY: KEY's value in $REPORT
field() { sed -n "s/^$1=//p" <<<"$REPORT"; }

# ---- signals: INT and QUIT typed (^C, ^\), TERM and HUP sent, on four screens --
declare -A SEND=([INT]='send:\x03' [QUIT]='send:\x1c' [TERM]='kill:TERM' [HUP]='kill:HUP')
for sig in INT QUIT TERM HUP; do
    n=$(kill -l "$sig")
    row "SIG$sig at the home menu" "signal:$n" --do wait:Walkthrough --do "${SEND[$sig]}" \
        -- --no-save
    row "SIG$sig mid-animation" "signal:$n" --do "wait:step 1/10" --do 'send: ' \
        --do sleep:0.05 --do "${SEND[$sig]}" -- walk --step 1
    row "SIG$sig mid-quiz (an answer half typed)" "signal:$n" --do wait:Topic --do 'send:\r' \
        --do 'wait:answer>' --do send:1 --do "${SEND[$sig]}" -- quiz --seed 1
    row "SIG$sig in a lesson" "signal:$n" --do "wait:The pipeline end to end" \
        --do "${SEND[$sig]}" -- lesson 1
done
left=$(find "$XDG_STATE_HOME" -name '*.tmp*' 2>/dev/null | wc -l)
check "no temp file left in the state dir after the signals" test "$left" = 0

# ---- Ctrl-Z, then fg: the terminal is the shell's while stopped, ours again after
row "Ctrl-Z then fg in the walkthrough" exit:0 --do "wait:step 0/10" --do tstp --do fg \
    --do "wait:step 0/10" --do 'send: \x0c' --do "wait:step 1/10" --do send:q \
    -- walk --no-animation
row "Ctrl-Z then fg in a lesson" exit:0 --do "wait:The pipeline end to end" --do tstp \
    --do fg --do "wait:The pipeline end to end" --do send:q --do send:q -- lesson 1

# ---- 200 resizes between 20x5 and 250x80, then 80x24: alive, redrawn, q works
row "200 resizes between 20x5 and 250x80" exit:0 --do "wait:step 0/10" --do resizes:200 \
    --do resize:80x24 --do 'send:\x0c' --do "wait:step 0/10" --do send:q -- walk --no-animation
row "200 resizes at the home menu" exit:0 --do wait:Walkthrough --do resizes:200 \
    --do resize:100x30 --do 'send:\x0c' --do wait:Walkthrough --do send:q -- --no-save

# ---- TERM: the usable ones draw and quit cleanly, the others are refused -----
for term in xterm-256color xterm linux vt100 screen; do
    # under ASan, TERM=linux needs full stacks for its lsan.supp entry (see there)
    row "TERM=$term" exit:0 --env "TERM=$term" --do "wait:step 0/10" --do send:q \
        --env "ASAN_OPTIONS=${ASAN_OPTIONS:-}:fast_unwind_on_malloc=0" -- walk --no-animation
done
row "TERM unset refused" exit:2 --unset TERM -- walk
check "TERM unset: the message says so" grep -qF "mhaviz: TERM is not set" "$ERR"
row "TERM=dumb refused" exit:2 --env TERM=dumb -- walk
check "TERM=dumb: the message says so" grep -qF "terminal type 'dumb' cannot move the cursor" "$ERR"
row "TERM unknown refused" exit:2 --env TERM=mhaviz-no-such-term -- walk
check "TERM unknown: the message says so" \
    grep -qF "unknown terminal type 'mhaviz-no-such-term'" "$ERR"
check "TERM unknown: nothing sent to the terminal" test "$(field bytes)" = 0

# ---- colour and locale ---------------------------------------------------------
row "colour by default" exit:0 --do "wait:step 2/10" --do send:q -- walk --step split --no-animation
check "colour by default: colour SGRs sent" test "$(field colours)" -gt 0
row "NO_COLOR=1" exit:0 --env NO_COLOR=1 --do "wait:step 2/10" --do send:q \
    -- walk --step split --no-animation
check "NO_COLOR=1: no colour SGR" test "$(field colours)" = 0
check "UTF-8: box-drawing glyphs sent" test "$(field highbytes)" -gt 0
row "LANG=C" exit:0 --env LANG=C --env LC_ALL=C --do "wait:step 2/10" --do send:q \
    -- walk --step split --no-animation
check "LANG=C: only ASCII sent" test "$(field highbytes)" = 0

# ---- not a terminal ----------------------------------------------------------------
row "stdin not a terminal" exit:2 --stdin-null -- walk
check "stdin not a terminal: the message names stdin" grep -qF "mhaviz: stdin is not a terminal" "$ERR"
check "stdin not a terminal: nothing sent to the terminal" test "$(field bytes)" = 0
row "stdout not a terminal" exit:2 --stdout-null -- --no-save
check "stdout not a terminal: the message names stdout" \
    grep -qF "mhaviz: stdout is not a terminal" "$ERR"

finish
