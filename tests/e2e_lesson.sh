#!/usr/bin/env bash
# e2e_lesson.sh - lessons end to end: `lesson --check` on every lesson and on
# the bad corpus, then lesson 2 in a real terminal (tmux): page through it,
# quit, start again, and the finished pages are shown.  Waits poll the screen
# with a deadline; nothing depends on a fixed sleep.
set -u
BIN=$(realpath "${MHAVIZ_BIN:?set MHAVIZ_BIN to the mhaviz binary}")
MODE=${MODE:-plain}
TIMEOUT=${E2E_TIMEOUT:-20}
BASE="mhaviz-e2e-lesson-$$-$RANDOM"
RUNS=0
SOCK="$BASE-0"
TMP=$(mktemp -d)
PASS=0
FAIL=0
cd "$(dirname "$0")/.."

T() { tmux -L "$SOCK" -f /dev/null "$@"; }
cleanup() {
    for i in $(seq 0 "$RUNS"); do tmux -L "$BASE-$i" kill-server 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT

ok() { PASS=$((PASS + 1)); }
bad() {
    FAIL=$((FAIL + 1))
    echo "FAIL: $*"
    echo "---- screen ----"
    T capture-pane -p -t main 2>/dev/null | sed 's/^/| /'
    echo "----------------"
}

# --- lesson --check ---------------------------------------------------------------
for f in lessons/*.lesson; do
    if "$BIN" lesson --check "$f" >"$TMP/out" 2>&1; then ok; else bad "lesson --check $f: $(cat "$TMP/out")"; fi
done
for f in tests/lessons-bad/*.lesson; do
    "$BIN" lesson --check "$f" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    # exit 2 and the first line is file:line: message
    if [ "$rc" = 2 ] && head -n1 "$TMP/err" | grep -qE "^$f:[0-9]+: "; then ok
    else bad "lesson --check $f: exit $rc, stderr: $(head -c 300 "$TMP/err")"; fi
done
# The TUI refuses a pipe with a clear message.
"$BIN" lesson 2 >"$TMP/out" 2>"$TMP/err" </dev/null
rc=$?
if [ "$rc" = 2 ]; then ok; else bad "lesson 2 without a terminal: exit $rc"; fi

# --- the numbers on a page are the numbers `mhaviz export` gives ------------------
# export_tuple ARGS -- TENSOR FIELD: "(32, 8, 4, 1)" from the JSON.
export_tuple() {
    local args=() t f
    while [ "$1" != "--" ]; do args+=("$1"); shift; done
    t=$2 f=$3
    "$BIN" export "${args[@]}" | python3 -c 'import json,sys; t=json.load(sys.stdin)["tensors"][sys.argv[1]][sys.argv[2]]; print("(" + ", ".join(map(str,t)) + ")")' "$t" "$f"
}
# page_has LESSON PAGE TEXT
page_has() {
    "$BIN" lesson --frames "$1" --page "$2" | tr '\n' ' ' | tr -s ' ' | grep -qF -- "$3"
}
s=$(export_tuple -- Q_split strides)
if page_has 2 3 "strides $s"; then ok; else bad "lesson 2 page 3 does not show export's Q_split strides $s"; fi
s=$(export_tuple -- Q_heads strides)
if page_has 3 1 "Q_heads (1, 2, 4, 4) $s"; then ok; else bad "lesson 3 page 1 does not show export's Q_heads strides $s"; fi
s=$(export_tuple --d-model 16 --heads 4 --kv-heads 2 -- K_expand strides)
if page_has 6 4 "strides $s"; then ok; else bad "lesson 6 page 4 does not show export's K_expand strides $s"; fi
s=$(export_tuple --d-model 16 --heads 4 --kv-heads 2 -- K_heads shape)
if page_has 6 2 "K_heads is $s"; then ok; else bad "lesson 6 page 2 does not show export's K_heads shape $s"; fi
b=$("$BIN" export | python3 -c 'import json,sys; print(sum(s["bytes_copied"] for s in json.load(sys.stdin)["steps"]))')
if page_has 1 7 "The answer: $b."; then ok; else bad "lesson 1 page 7 does not show export's $b bytes copied"; fi

# --- lesson 2 in tmux --------------------------------------------------------------
STATE="$TMP/state"
# Each run gets its own tmux server: a new session on a server that is still
# shutting down fails with "server exited unexpectedly".
run() {
    T kill-server 2>/dev/null
    RUNS=$((RUNS + 1))
    SOCK="$BASE-$RUNS"
    local cmd="trap '' INT; env XDG_STATE_HOME=$STATE LANG=C.UTF-8 TERM=xterm-256color $BIN $*; echo EXIT=\$?; sleep 600"
    T new-session -d -s main -x 80 -y 24 "sh -c \"$cmd\""
}
screen() { T capture-pane -p -t main 2>/dev/null; }
wait_for() {
    local end=$((SECONDS + TIMEOUT))
    while :; do
        screen | grep -qF -- "$1" && return 0
        [ "$SECONDS" -ge "$end" ] && return 1
        sleep 0.05
    done
}
keys() { T send-keys -t main "$@"; }

run lesson 2
if wait_for "2. Heads are views  1/7  The candy bar"; then ok; else bad "lesson 2 did not open"; fi
keys Space
if wait_for "2/7  d_model = heads x d_head"; then ok; else bad "Space did not turn the page"; fi
keys Space   # the question of page 2: shows the answer
if wait_for "d_model / heads"; then ok; else bad "the answer was not shown"; fi
keys Space
if wait_for "3/7  Strides of the split"; then ok; else bad "page 3 not reached"; fi
keys Tab
if wait_for "Tab text"; then ok; else bad "Tab did not show the picture"; fi
keys Tab
keys q
if wait_for "EXIT=0"; then ok; else bad "q did not quit with exit 0"; fi
if grep -qxF "02-heads 1,2" "$STATE/mhaviz/progress"; then ok; else bad "progress file: $(cat "$STATE/mhaviz/progress" 2>&1)"; fi

# Restart: the menu shows pages 1 and 2 done, and the lesson resumes at page 3.
run lesson
if wait_for "Heads are views"; then ok; else bad "lesson menu did not open"; fi
if screen | grep -qF "■■····· 2/7"; then ok; else bad "menu does not show 2/7 pages of lesson 2 finished"; fi
keys 2
if wait_for "3/7  Strides of the split"; then ok; else bad "lesson 2 did not resume at page 3"; fi
keys q
if wait_for "Lessons"; then ok; else bad "q did not go back to the menu"; fi
keys q
if wait_for "EXIT=0"; then ok; else bad "q from the menu did not quit"; fi

# A corrupt progress file: reported once, kept as .bad, the program runs.
printf 'not a progress file\n' >"$STATE/mhaviz/progress"
run lesson
if wait_for "progress file was corrupt"; then ok; else bad "corrupt progress not reported"; fi
keys q
if wait_for "EXIT=0"; then ok; else bad "did not quit after a corrupt progress file"; fi
if [ -f "$STATE/mhaviz/progress.bad" ]; then ok; else bad "no progress.bad kept"; fi

# --no-save: nothing written.
rm -rf "$STATE"
run lesson 1 --no-save
if wait_for "1/7"; then ok; else bad "lesson 1 --no-save did not open"; fi
keys Space
if wait_for "2/7"; then ok; else bad "page 2 of lesson 1 not reached"; fi
keys q
if wait_for "EXIT=0"; then ok; else bad "lesson 1 --no-save did not quit"; fi
if [ ! -e "$STATE/mhaviz/progress" ]; then ok; else bad "--no-save wrote a progress file"; fi

# A typed exercise in a real terminal: lesson 1 page 3 asks for Q_heads' shape;
# a wrong answer waits, the export's shape is right.
shape=$(export_tuple -- Q_heads shape)
run lesson 1 --no-save
if wait_for "1/7"; then ok; else bad "lesson 1 did not open"; fi
keys Space Space
if wait_for "Type your answer, then Enter."; then ok; else bad "page 3 does not ask for a typed answer"; fi
keys -l "(9, 9)"
keys Enter
if wait_for "Not yet ("; then ok; else bad "a wrong answer was not refused"; fi
keys BSpace BSpace BSpace BSpace BSpace BSpace
keys -l "$shape"
keys Enter
if wait_for "Right: $shape."; then ok; else bad "the right shape $shape was not accepted"; fi
keys q
if wait_for "EXIT=0"; then ok; else bad "q after the exercise did not quit"; fi

# A do exercise: lesson 2 page 5 waits for H, then confirms with 4 heads.
run lesson 2 --no-save
if wait_for "1/7"; then ok; else bad "lesson 2 did not open (do exercise)"; fi
keys G PgUp PgUp
if wait_for "press H until heads is 4 (now 2)"; then ok; else bad "page 5 does not wait for H"; fi
keys H
if wait_for "Done."; then ok; else bad "H did not finish the exercise"; fi
keys q
if wait_for "EXIT=0"; then ok; else bad "q after the do exercise did not quit"; fi

# Every `mhaviz ...` command a lesson or quiz bank tells the learner to run
# works as written (exit 0), apart from the interactive ones.
grep -oh '`mhaviz [^`]*`' lessons/*.lesson lessons/*.quiz | tr -d '`' | sort -u >"$TMP/cmds"
while read -r cmd; do
    case "$cmd" in # the TUI ones need a terminal: those are driven above
    *--plain* | *--check* | *--list* | *--frames*) ;;
    "mhaviz walk"* | "mhaviz lesson"* | "mhaviz quiz"* | mhaviz) continue ;;
    esac
    # shellcheck disable=SC2086 # the command's words, as the lesson wrote them
    set -- $cmd
    shift
    if "$BIN" "$@" </dev/null >"$TMP/out" 2>&1; then ok; else bad "the lessons say to run '$cmd', which fails: $(head -c 200 "$TMP/out")"; fi
done <"$TMP/cmds"
if [ -s "$TMP/cmds" ]; then ok; else bad "no mhaviz command found in the lessons (the grep is broken)"; fi

echo "e2e_lesson ($MODE): $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
