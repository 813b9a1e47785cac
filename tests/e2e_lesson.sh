#!/usr/bin/env bash
# e2e_lesson.sh - lessons end to end: `lesson --check` on every lesson and on
# the bad corpus, then lesson 2 in a real terminal (tmux): page through it,
# quit, start again, and the finished pages are shown.  Waits poll the screen
# with a deadline (20 s); nothing depends on a fixed sleep.
. "$(dirname "$0")/e2e_lib.sh"
cd "$(dirname "$0")/.."
STATE=$XDG_STATE_HOME
# The sessions run on a tmux server of this script's own (see e2e_lib.sh).
E2E_TMUX_SOCKET="e2e-lesson-$$"

# --- lesson --check ---------------------------------------------------------------
for f in lessons/*.lesson; do
    if "$BIN" lesson --check "$f" >"$tmp/out" 2>&1; then ok "lesson --check $f"; else fail "lesson --check $f" "$(cat "$tmp/out")"; fi
done
for f in tests/lessons-bad/*.lesson; do
    "$BIN" lesson --check "$f" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    # exit 2 and the first line is file:line: message
    if [ "$rc" = 2 ] && head -n1 "$tmp/err" | grep -qE "^$f:[0-9]+: "; then ok "lesson --check $f: exit 2, file:line:"
    else fail "lesson --check $f" "exit $rc (want 2), stderr: $(head -c 300 "$tmp/err")"; fi
done
# The TUI refuses a pipe with a clear message.
"$BIN" lesson 2 >"$tmp/out" 2>"$tmp/err" </dev/null
check "lesson 2 without a terminal: exit 2" test $? = 2

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
check "lesson 2 page 3 shows export's Q_split strides $s" page_has 2 3 "strides $s"
s=$(export_tuple -- Q_heads strides)
check "lesson 3 page 1 shows export's Q_heads strides $s" page_has 3 1 "Q_heads (1, 2, 4, 4) $s"
s=$(export_tuple --d-model 16 --heads 4 --kv-heads 2 -- K_expand strides)
check "lesson 6 page 4 shows export's K_expand strides $s" page_has 6 4 "strides $s"
s=$(export_tuple --d-model 16 --heads 4 --kv-heads 2 -- K_heads shape)
check "lesson 6 page 2 shows export's K_heads shape $s" page_has 6 2 "K_heads is $s"
b=$("$BIN" export | python3 -c 'import json,sys; print(sum(s["bytes_copied"] for s in json.load(sys.stdin)["steps"]))')
check "lesson 1 page 7 shows export's $b bytes copied" page_has 1 7 "The answer: $b."

# Lesson 10's answers are the commands' own numbers: kv --json (MLA, paged) and
# decode --window (the slot token 9 lands in).
fmt() { python3 -c 'import sys; print("{:,}".format(int(sys.argv[1])))' "$1"; }
kvj() { "$BIN" kv "$@" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); exec("print(" + sys.argv[1] + ")")' "$PY"; }
PY='d["bytes_per_token"]' b=$(fmt "$(kvj --preset deepseek-v3 --dtype bf16)")
check "lesson 10 page 6 shows kv --json's MLA $b B a token" page_has 10 6 "The answer: $b."
PY='d["paged"]["total_blocks"]' b=$(kvj --preset llama-3-8b --paged --lengths 100,700,2000 --shared-prefix 40)
check "lesson 10 page 3 shows kv --paged's pool of $b blocks" page_has 10 3 "The answer: $b."
PY='d["paged"]["contiguous"]["waste_bytes"]' b=$(fmt "$(kvj --preset llama-3-8b --dtype bf16 --paged --lengths 100,700,2000 --context 4096)")
check "lesson 10 page 2 shows kv --paged's contiguous waste $b B" page_has 10 2 "that is $b bytes"
b=$("$BIN" decode --plain --window 4 --seq 10 | sed -n 's/.*token 9 -> slot \([0-9]*\) .*/\1/p')
check "lesson 10 page 4 shows decode --window's slot $b for token 9" page_has 10 4 "The answer: $b."

# --- lesson 2 in tmux --------------------------------------------------------------
# run ARGS...: `mhaviz ARGS` in a new 80x24 session $S; the shell prints EXIT=rc
# when it ends. Earlier sessions stay (asleep) so the server never exits between runs.
RUNS=0
run() {
    RUNS=$((RUNS + 1))
    S=run$RUNS
    local cmd="trap '' INT; env XDG_STATE_HOME=$STATE LANG=C.UTF-8 TERM=xterm-256color $BIN $*; echo EXIT=\$?; sleep 600"
    tmux_start "$S" 80 24 sh -c "$cmd"
}
keys() { tmux_keys "$S" "$@"; }
# see NAME TEXT: ok once TEXT is on the screen (20 s at most); if not, the screen as '# |' lines
see() {
    if tmux_wait "$S" "$2" 200; then ok "$1"; else
        fail "$1" "'$2' not on screen"
        tmux_screen "$S" | sed 's/^/# | /'
    fi
}

run lesson 2
see "lesson 2 opens on page 1" "2. Heads are views  1/7  The candy bar"
keys Space
see "Space turns the page" "2/7  d_model = heads x d_head"
keys Space   # the question of page 2 waits for a typed answer: Space says so
see "Space on a typed question says what it waits for" "Not yet: type the answer"
keys Space   # the second Space shows the answer (revealed, not solved)
see "Space again shows the answer" "d_model / heads"
keys Space
see "Space reaches page 3" "3/7  Strides of the split"
keys Tab
see "Tab shows the picture" "Tab text"
keys Tab
keys q
see "q quits with exit 0" "EXIT=0"
if grep -qxF "02-heads 1,2" "$STATE/mhaviz/progress"; then ok "progress records pages 1,2 of lesson 2"; else
    fail "progress records pages 1,2 of lesson 2" "progress file: $(cat "$STATE/mhaviz/progress" 2>&1)"; fi

# Restart: the menu shows pages 1 and 2 done, and the lesson resumes at page 3.
run lesson
see "the lesson menu opens" "Heads are views"
# Page 2's answer was revealed (Space), not solved: □, and it is not counted.
check "the menu shows page 1 solved, page 2 revealed" grep -qF "■□····· 1/7 solved" <<<"$(tmux_screen "$S")"
keys 2
see "lesson 2 resumes at page 3" "3/7  Strides of the split"
keys q
see "q goes back to the menu" "Lessons"
keys q
see "q from the menu quits" "EXIT=0"

# A corrupt progress file: reported once, kept as .bad, the program runs.
printf 'not a progress file\n' >"$STATE/mhaviz/progress"
run lesson
see "a corrupt progress file is reported" "progress file was corrupt"
keys q
see "q quits after a corrupt progress file" "EXIT=0"
check "the corrupt file is kept as progress.bad" test -f "$STATE/mhaviz/progress.bad"

# --no-save: nothing written.
rm -rf "$STATE"
run lesson 1 --no-save
see "lesson 1 --no-save opens" "1/7"
keys Space
see "Space reaches page 2 of lesson 1" "2/7"
keys q
see "lesson 1 --no-save quits" "EXIT=0"
check "--no-save writes no progress file" test ! -e "$STATE/mhaviz/progress"

# A typed exercise in a real terminal: lesson 1 page 3 asks for Q_heads' shape;
# a wrong answer waits, the export's shape is right.
shape=$(export_tuple -- Q_heads shape)
run lesson 1 --no-save
see "lesson 1 opens (typed exercise)" "1/7"
keys Space Space
see "page 3 asks for a typed answer" "Type your answer, then Enter."
keys -l "héllo"
keys BSpace
see "multibyte editing: héllo, Backspace, héll" "> héll_"
keys C-u
keys -l "(9, 9)"
keys Enter
see "a wrong answer is refused" "Not yet: "
keys BSpace BSpace BSpace BSpace BSpace BSpace
keys -l "$shape"
keys Enter
see "the right shape $shape is accepted" "Right: $shape."
keys q
see "q after the typed exercise quits" "EXIT=0"

# A do exercise: lesson 2 page 5 waits for H, then confirms with 4 heads.
run lesson 2 --no-save
see "lesson 2 opens (do exercise)" "1/7"
keys G PgUp PgUp
see "page 5 waits for H" "press H until heads is 4 (now 2)"
keys H
see "H finishes the exercise" "Done."
keys q
see "q after the do exercise quits" "EXIT=0"

# Every `mhaviz ...` command a lesson or quiz bank tells the learner to run
# works as written (exit 0), apart from the interactive ones.
grep -oh '`mhaviz [^`]*`' lessons/*.lesson lessons/*.quiz | tr -d '`' | sort -u >"$tmp/cmds"
while read -r cmd; do
    case "$cmd" in # the TUI ones need a terminal: those are driven above
    *--plain* | *--check* | *--list* | *--frames*) ;;
    "mhaviz walk"* | "mhaviz lesson"* | "mhaviz quiz"* | mhaviz) continue ;;
    esac
    # shellcheck disable=SC2086 # the command's words, as the lesson wrote them
    set -- $cmd
    shift
    if "$BIN" "$@" </dev/null >"$tmp/out" 2>&1; then ok "the lessons say to run '$cmd': it works"; else
        fail "the lessons say to run '$cmd'" "it fails: $(head -c 200 "$tmp/out")"; fi
done <"$tmp/cmds"
check "the lessons name mhaviz commands (the grep works)" test -s "$tmp/cmds"

finish
