#!/usr/bin/env bash
# e2e_tui.sh - the interactive program in a real terminal: tmux runs the
# binary in a pane, send-keys types, capture-pane reads the screen.
#
# Every wait polls the screen with a deadline (the ASan build on a loaded
# machine is slow); nothing depends on a fixed sleep.  Each run is started as
#   sh -c 'mhaviz ...; echo EXIT=$?'
# so the exit code is read from the pane after the program is gone, and tmux's
# #{alternate_on} tells whether the program left the alternate screen.
set -u
BIN=$(realpath "${MHAVIZ_BIN:?set MHAVIZ_BIN to the mhaviz binary}")
MODE=${MODE:-plain}
TIMEOUT=${E2E_TIMEOUT:-20}
SOCK_BASE="mhaviz-e2e-$$-$RANDOM"
RUNS=0
SOCK="$SOCK_BASE-0"
TMP=$(mktemp -d)
# ncurses leaks inside a failed newterm (bad TERM); see the file.
HERE=$(cd "$(dirname "$0")" && pwd)
export LSAN_OPTIONS="suppressions=$HERE/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
PASS=0
FAIL=0

T() { tmux -L "$SOCK" -f /dev/null "$@"; }
cleanup() {
    T kill-server 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT

ok() {
    PASS=$((PASS + 1))
    [ -z "${E2E_VERBOSE:-}" ] || echo "ok $PASS"
}
bad() {
    FAIL=$((FAIL + 1))
    echo "FAIL: $*"
    echo "---- screen ----"
    T capture-pane -p -t main 2>/dev/null | sed 's/^/| /'
    echo "----------------"
}

# run COLS ROWS ENV... -- ARGS...: a fresh pane running the binary.  The
# shell ignores SIGINT so Ctrl-C reaches only mhaviz and the shell lives on
# to report its exit code.
run() {
    local cols=$1 rows=$2
    shift 2
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    T kill-server 2>/dev/null
    RUNS=$((RUNS + 1))
    SOCK="$SOCK_BASE-$RUNS" # a fresh server: the old one may still be shutting down
    local cmd="trap '' INT; echo BEFORE-MHAVIZ; env ${envs[*]} $BIN $*; echo EXIT=\$?; sleep 600"
    T new-session -d -s main -x "$cols" -y "$rows" "$cmd"
}

screen() { T capture-pane -p -t main; }

# wait_for TEXT: true once the pane shows TEXT (fixed string), within TIMEOUT s.
wait_for() {
    local end=$((SECONDS + TIMEOUT))
    while :; do
        screen | grep -qF -- "$1" && return 0
        [ "$SECONDS" -ge "$end" ] && return 1
        sleep 0.05
    done
}

# wait_gone TEXT: true once the pane no longer shows TEXT.
wait_gone() {
    local end=$((SECONDS + TIMEOUT))
    while :; do
        screen | grep -qF -- "$1" || return 0
        [ "$SECONDS" -ge "$end" ] && return 1
        sleep 0.05
    done
}

# wait_still MS: true once the screen has not changed for MS milliseconds.
wait_still() {
    local end=$((SECONDS + TIMEOUT)) prev cur since
    prev=$(screen)
    since=$(date +%s%N)
    while [ "$SECONDS" -lt "$end" ]; do
        sleep 0.05
        cur=$(screen)
        if [ "$cur" != "$prev" ]; then
            prev=$cur
            since=$(date +%s%N)
        elif [ $((($(date +%s%N) - since) / 1000000)) -ge "$1" ]; then
            return 0
        fi
    done
    return 1
}

expect() { # expect WHAT TEXT
    if wait_for "$2"; then ok; else bad "$1: '$2' not shown"; fi
}

keys() { T send-keys -t main "$@"; }

# The program exited with code $2 and the terminal is back on the shell.
expect_exit() {
    local what=$1 code=$2
    if wait_for "EXIT="; then ok; else bad "$what: did not exit"; return; fi
    if screen | grep -qx "EXIT=$code"; then ok; else bad "$what: exit code is not $code"; fi
    if [ "$(T display -p -t main '#{alternate_on}')" = 0 ]; then ok; else
        bad "$what: still on the alternate screen"
    fi
    if screen | grep -qF "BEFORE-MHAVIZ"; then ok; else bad "$what: the shell's screen is not back"; fi
    if screen | grep -qF "step "; then bad "$what: the frame is still shown after exit"; else ok; fi
}

mhaviz_pid() { pgrep -P "$(T display -p -t main '#{pane_pid}')" -n; }

UTF8=(LANG=C.UTF-8 LC_ALL=C.UTF-8)

# ---- the walkthrough at 80x24: every step, forward and back ------------------
run 80 24 "${UTF8[@]}" -- walk --no-animation
expect "walk opens" "step 0/10"
if [ "$(T display -p -t main '#{alternate_on}')" = 1 ]; then ok; else bad "not on the alternate screen"; fi
for n in 1 2 3 4 5 6 7 8 9 10; do
    keys Space
    expect "next to step $n" "step $n/10"
done
keys Space
expect "past the last step" "the last step"
for n in 9 8 7 6 5 4 3 2 1 0; do
    keys Left
    expect "back to step $n" "step $n/10"
done
# the other navigation keys
keys G; expect "G" "step 10/10"
keys g; expect "g opens the step prompt" "go to step _"
keys Enter; expect "g Enter: the first step" "step 0/10"
keys G g 7 Enter; expect "g 7 Enter" "step 7/10"
keys g 1 0 Enter; expect "g 1 0 Enter" "step 10/10"
keys g Escape; expect "g Esc cancels" "step 10/10"
keys End; expect "End" "step 10/10"
keys Home; expect "Home" "step 0/10"
keys PgDn; expect "PgDn" "step 1/10"
keys l; expect "l" "step 2/10"
keys j; expect "j" "step 3/10"
keys Enter; expect "Enter" "step 4/10"
keys PgUp; expect "PgUp" "step 3/10"
keys h; expect "h" "step 2/10"
keys k; expect "k" "step 1/10"
keys BSpace; expect "Backspace" "step 0/10"
keys 8; expect "digit typed" "go to step 8"
keys Enter; expect "digits + Enter" "step 8/10"

# inspect mode takes the arrows
keys 2 Enter; expect "jump to split" "step 2/10"
keys i; expect "inspect on" "i/Esc leave"
keys Right Down l j; expect "inspect moves the cursor" "offset = 0·32 + 2·8 + 0·4 + 2·1 = 18"
if screen | grep -qF "step 2/10"; then ok; else bad "inspect: the arrows changed the step"; fi
keys Escape; expect "inspect off" "step 2/10"

# the big-head softmax toggle
keys 5 Enter; expect "softmax step" "step 5/10"
before=$(screen)
keys m
end=$((SECONDS + TIMEOUT))
while [ "$(screen)" = "$before" ] && [ "$SECONDS" -lt "$end" ]; do sleep 0.05; done
if [ "$(screen)" != "$before" ]; then ok; else bad "m: the softmax screen did not change"; fi
keys m
end=$((SECONDS + TIMEOUT))
while [ "$(screen)" != "$before" ] && [ "$SECONDS" -lt "$end" ]; do sleep 0.05; done
if [ "$(screen)" = "$before" ]; then ok; else bad "m twice: not back to the per-head softmax"; fi

# help, generated from the key table
keys '?'; expect "help opens" "mhaviz keys"
expect "help lists next" "next (step)"
keys q; expect "help closes" "step 5/10"

# the configuration form refuses an invalid value, keeps the last valid state
keys c; expect "form opens" "Configuration"
keys Down Down Down 3; expect "form checks live" "not divisible by 3"
keys Enter; expect "form refuses" "refused:"
keys 4 Enter; expect "form applies" "heads 4"
expect "back on the walk" "step 5/10"
keys H; expect "quick key H" "heads 8"

# resize: too small, then big, then back
T resize-window -t main -x 50 -y 15
expect "small terminal" "enlarge to 80x24 (now 50x15)"
T resize-window -t main -x 200 -y 60
expect "big terminal" "step 5/10"
if screen | grep -qF "enlarge"; then bad "enlarge message left after growing"; else ok; fi
T resize-window -t main -x 80 -y 24
expect "back to 80x24" "step 5/10"
keys C-l; expect "Ctrl-L redraw" "step 5/10"

keys q
expect_exit "q" 0

# ---- cursor keys in both forms: CSI (ESC [ C) and SS3 (ESC O C), as raw bytes ----
# tmux's own arrows follow the terminfo entry; some terminals and multiplexers
# send the other form, which must not read as Esc (Esc quits the walkthrough).
run 80 24 "${UTF8[@]}" -- walk --no-animation
expect "walk for raw arrows" "step 0/10"
keys -H 1b 5b 43; expect "CSI Right (ESC [ C)" "step 1/10"
keys -H 1b 4f 43; expect "SS3 Right (ESC O C)" "step 2/10"
keys -H 1b 5b 44; expect "CSI Left (ESC [ D)" "step 1/10"
keys -H 1b 5b 46; expect "CSI End (ESC [ F)" "step 10/10"
keys -H 1b 5b 48; expect "CSI Home (ESC [ H)" "step 0/10"
keys -H 1b 4f 46; expect "SS3 End (ESC O F)" "step 10/10"
keys -H 1b 4f 48; expect "SS3 Home (ESC O H)" "step 0/10"
keys i; expect "inspect for raw arrows" "i/Esc leave"
keys -H 1b 5b 42 1b 5b 43 1b 4f 43; expect "CSI/SS3 Down and Right move the cursor" "x[0, 1, 2] = 0.50, offset = 0·32 + 1·8 + 2·1 = 10"
keys Escape; expect "Esc still leaves inspect" "step 0/10"
keys q
expect_exit "q after raw arrows" 0

# ---- the home menu: every entry opens and q comes back -----------------------------
run 80 24 "${UTF8[@]}" XDG_STATE_HOME="$TMP/state" -- --no-animation --no-save
expect "home opens" "Walkthrough"
entries=$(screen | sed -n 's/^ *\([1-9]\)  [A-Z].*/\1/p')
if [ "$(echo "$entries" | wc -w)" -ge 2 ]; then ok; else bad "home lists fewer than 2 entries"; fi
n=$(screen | sed -n 's/^ *\([1-9]\)  Inspect.*/\1/p')
keys "$n"; expect "Inspect opens with the inspect cursor and its arithmetic" "offset = "
keys q; expect "q leaves Inspect for home" "multi-head attention, the way"
for n in $entries; do
    keys "$n"
    if wait_gone "multi-head attention, the way"; then ok; else bad "home entry $n did not open"; fi
    keys q
    expect "back home from entry $n" "multi-head attention, the way"
done
keys 1; expect "home opens the walk" "step 0/10" # 1 selects the first entry
keys q; expect "q goes back home" "multi-head attention"
keys Up Enter; expect "home opens help (the last entry)" "mhaviz keys" # Up wraps from the first
keys Escape; expect "Esc goes back home" "Walkthrough"
keys q
if wait_for "EXIT="; then ok; else bad "home q: did not exit"; fi
expect_exit "home q" 0

# ---- an animation runs and ends by itself -----------------------------------------
run 80 24 "${UTF8[@]}" -- walk --step 1
expect "walk at step 1" "step 1/10"
keys Space
expect "animated step reached" "step 2/10"
if wait_still 300; then ok; else bad "the animation did not end"; fi
keys q
expect_exit "q after an animation" 0

# ---- autoplay steps by itself; p stops it ------------------------------------------
run 80 24 "${UTF8[@]}" -- walk --no-animation --autoplay 1
expect "autoplay: step 1 by itself" "step 1/10"
expect "autoplay: step 2 by itself" "step 2/10"
keys p; expect "p stops autoplay" "autoplay off"
keys q; expect_exit "autoplay" 0

# ---- blank holds autoplay: the next key brings back the same slide -------------------
run 80 24 "${UTF8[@]}" -- walk --no-animation --autoplay 2
expect "autoplay at step 0" "step 0/10"
keys b
if wait_gone "step 0/10"; then ok; else bad "b did not blank the screen"; fi
sleep 5 # longer than two autoplay steps
if screen | grep -qF "step "; then bad "the blank screen shows a step"; else ok; fi
keys x
expect "after the blank: the same slide" "step 0/10"
expect "after the blank: autoplay goes on" "step 1/10"
keys q; expect_exit "blank + autoplay" 0

# ---- a clicker key during the copy animation goes to the next step ------------------
run 80 24 "${UTF8[@]}" -- walk --step 7
expect "walk at step 7" "step 7/10"
keys Space PgDn # PgDn arrives while step 8 animates
expect "PgDn during the animation: step 9" "step 9/10"
keys 7 Enter Space PgUp
expect "PgUp during the animation: step 7" "step 7/10"
keys q; expect_exit "clicker during an animation" 0

# ---- signals restore the terminal ------------------------------------------------
run 80 24 "${UTF8[@]}" -- walk
expect "walk for Ctrl-C" "step 0/10"
keys C-c
expect_exit "Ctrl-C" 130

for sig in TERM HUP; do
    run 80 24 "${UTF8[@]}" -- walk
    expect "walk for SIG$sig" "step 0/10"
    pid=$(mhaviz_pid)
    if [ -n "$pid" ]; then kill -"$sig" "$pid"; else bad "no pid for SIG$sig"; fi
    code=$((128 + $(kill -l "$sig")))
    expect_exit "kill -$sig" "$code"
done

# ---- terminals and locales ---------------------------------------------------------
run 200 24 TERM=dumb -- walk
expect "TERM=dumb refused" "mhaviz: terminal type 'dumb' cannot move the cursor"
if wait_for "EXIT=2"; then ok; else bad "TERM=dumb: exit code is not 2"; fi

run 200 24 TERM=xyz -- walk
expect "TERM=xyz refused" "mhaviz: unknown terminal type 'xyz' (set TERM, e.g. TERM=xterm-256color)"
if wait_for "EXIT=2"; then ok; else bad "TERM=xyz: exit code is not 2"; fi

run 80 24 -u TERM -- walk
expect "TERM unset refused" "mhaviz: TERM is not set"
if wait_for "EXIT=2"; then ok; else bad "TERM unset: exit code is not 2"; fi

# colour by default, none with NO_COLOR=1 (capture-pane -e shows the SGR codes)
colours() { T capture-pane -p -e -t main | grep -cE $'\e\\[[0-9;]*(3[0-7]|4[0-7]|38;5;[0-9]+|48;5;[0-9]+)[;m]'; }
run 80 24 "${UTF8[@]}" -- walk --step split --no-animation
expect "colour run" "step 2/10"
if [ "$(colours)" -gt 0 ]; then ok; else bad "no colour by default"; fi
keys q; expect_exit "colour run" 0
run 80 24 "${UTF8[@]}" NO_COLOR=1 -- walk --step split --no-animation
expect "NO_COLOR run" "step 2/10"
if [ "$(colours)" -eq 0 ]; then ok; else bad "NO_COLOR=1: colours drawn"; fi
keys q; expect_exit "NO_COLOR" 0
run 80 24 "${UTF8[@]}" -- walk --step split --no-animation --color=never
expect "--color=never run" "step 2/10"
if [ "$(colours)" -eq 0 ]; then ok; else bad "--color=never: colours drawn"; fi
keys q; expect_exit "--color=never" 0

run 80 24 "${UTF8[@]}" NO_COLOR=1 -- walk --step split --no-animation --color=always
expect "--color=always run" "step 2/10"
if [ "$(colours)" -gt 0 ]; then ok; else bad "--color=always: no colours (it wins over NO_COLOR)"; fi
keys q; expect_exit "--color=always" 0
run 80 24 "${UTF8[@]}" TERM=vt100 -- walk --step split --no-animation
expect "a terminal without colours" "step 2/10"
if [ "$(colours)" -eq 0 ]; then ok; else bad "TERM=vt100: colours drawn"; fi
keys q # vt100 has no alternate screen: the frame stays, only the exit code tells
if wait_for "EXIT=0"; then ok; else bad "TERM=vt100: exit code is not 0"; fi

# a non-UTF-8 locale gets ASCII glyphs
nonascii() { screen | LC_ALL=C grep -c $'[\x80-\xff]'; }
run 80 24 "${UTF8[@]}" -- walk --no-animation
expect "UTF-8 run" "step 0/10"
if [ "$(nonascii)" -gt 0 ]; then ok; else bad "UTF-8 locale: no Unicode glyphs at all"; fi
keys q; expect_exit "UTF-8 run" 0
run 80 24 LANG=C LC_ALL=C -- walk --no-animation
expect "LANG=C run" "step 0/10"
if [ "$(nonascii)" -eq 0 ]; then ok; else bad "LANG=C: non-ASCII bytes on screen"; fi
keys Space Space; expect "LANG=C steps" "step 2/10"
keys q; expect_exit "LANG=C" 0
run 80 24 "${UTF8[@]}" -- walk --no-animation --ascii
expect "--ascii run" "step 0/10"
if [ "$(nonascii)" -eq 0 ]; then ok; else bad "--ascii: non-ASCII bytes on screen"; fi
keys q; expect_exit "--ascii" 0

# ---- not a terminal ------------------------------------------------------------------
for args in "walk" ""; do
    # shellcheck disable=SC2086
    "$BIN" $args >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    if [ "$rc" = 2 ]; then ok; else bad "'mhaviz $args' to a file: exit $rc, not 2"; fi
    if grep -qF "not a terminal" "$TMP/err" && grep -qF "mhaviz frames" "$TMP/err"; then ok; else
        bad "'mhaviz $args' to a file: message: $(cat "$TMP/err")"
    fi
    if [ -s "$TMP/out" ]; then bad "'mhaviz $args' to a file wrote to stdout"; else ok; fi
done
"$BIN" walk --heads 3 >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" = 2 ] && grep -qF "mhaviz: --heads 3" "$TMP/err"; then ok; else bad "walk --heads 3: exit $rc: $(cat "$TMP/err")"; fi
"$BIN" walk --color=rainbow >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" = 2 ] && grep -qF "mhaviz: --color" "$TMP/err"; then ok; else bad "walk --color=rainbow: exit $rc"; fi

echo "e2e_tui ($MODE): $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
