#!/usr/bin/env bash
# e2e_quiz.sh - mhaviz quiz end to end: --plain with piped answers, EOF,
# seeds, --check, bad flags, --review and --no-save; the TUI quiz in tmux.
. "$(dirname "$0")/e2e_lib.sh"
T=$tmp
trap 'tmux -L "mhq$$" kill-server 2>/dev/null; e2e_cleanup' EXIT
bad() { fail "$@"; }
expect() { # expect DESC FILE PATTERN: grep -E must find PATTERN in FILE
    if grep -qE -- "$3" "$2"; then ok "$1"; else bad "$1 (no /$3/ in $2)"; sed 's/^/    /' "$2" | head -40; fi
}

# The answers of a session, read from the session itself: skip everything
# (an empty line per question) and collect "the answer is X." lines.
N=12
yes '' | head -n $N | "$BIN" quiz --plain --count $N --seed 7 --no-save > "$T/skip.out" 2> "$T/skip.err"
rc=$?
[ $rc -eq 0 ] && ok "skipping every question exits 0" || bad "skip run exit $rc"
expect "skips are not answers" "$T/skip.out" "^No questions answered, $N skipped\.$"
expect "a skip is reported as one" "$T/skip.out" "^  [a-z]+ +0/0, [0-9]+ skipped$"
sed -n 's/^Skipped: the answer is \(.*\)\.$/\1/p' "$T/skip.out" > "$T/answers.raw"
[ "$(wc -l < "$T/answers.raw")" -eq $N ] && ok "every question revealed its answer" || bad "answers: $(wc -l < "$T/answers.raw")"
# A choice that ends its sentence (curated ones do: "...the cache).") gets no
# second full stop after it.
yes '' | head -n 60 | "$BIN" quiz --plain --topic concepts --count 60 --seed 7 --no-save > "$T/stop.out" 2>&1
expect "curated answers end in their own full stop" "$T/stop.out" "^Skipped: the answer is [a-f]\) .*[^.]\.$"
if grep -nE '[^.]\.\.$' "$T/stop.out" > "$T/stop.bad"; then bad "a double full stop: $(head -n 3 "$T/stop.bad")"
else ok "no line ends in a double full stop"; fi
# A multiple-choice KV question answered with the number of its choice
# ("2147483648" for "c) 2.00 GiB (2,147,483,648 bytes)"), as on the quiz screen.
# The first seed whose first kvcache question is one (a curated question may
# come first: which one depends on the bank).
for kvseed in 1 2 3 4 5 6 7 8; do
    echo | "$BIN" quiz --plain --topic kvcache --count 1 --seed $kvseed --no-save > "$T/kvskip.out" 2>&1
    kvbytes=$(sed -n 's/^Skipped: the answer is [a-f]) .*(\([0-9,]*\) bytes)\.$/\1/p' "$T/kvskip.out" | tr -d ,)
    [ -n "$kvbytes" ] && break
done
if [ -n "$kvbytes" ]; then
    echo "$kvbytes" | "$BIN" quiz --plain --topic kvcache --count 1 --seed $kvseed --no-save > "$T/kvnum.out" 2>&1
    expect "a choice's number answers it ($kvbytes)" "$T/kvnum.out" "^Right\.$"
else bad "no KV choice with bytes in kvcache seeds 1-8: $(grep -m1 '^Skipped' "$T/kvskip.out")"; fi
# A letter for multiple choice ("b) text" -> "b"); shapes in the three spellings.
i=0
while IFS= read -r a; do
    case "$a" in
    [a-f]\)*) echo "${a%%)*}" ;;
    \(*\))
        inner=${a#(}; inner=${inner%)}
        case $((i % 3)) in
        0) echo "$a" ;;
        1) echo "${inner// /}" ;;
        2) echo "[${inner//,/}]" ;;
        esac ;;
    *) echo "$a" ;;
    esac
    i=$((i + 1))
done < "$T/answers.raw" > "$T/answers"

"$BIN" quiz --plain --count $N --seed 7 --no-save < "$T/answers" > "$T/right.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "all right: exit 0" || bad "all right: exit $rc"
expect "all right: full score" "$T/right.out" "^Score: $N/$N \(100%\)"
expect "all right: nothing to revisit" "$T/right.out" "nothing to revisit"
[ "$(grep -c '^Right\.' "$T/right.out")" -eq $N ] && ok "each answer marked right" || bad "right count"

# Same seed, same questions; another seed, other questions.
diff <(grep -v '^answer>' "$T/skip.out" | grep -E '^\[[0-9]+/' ) <(grep -E '^\[[0-9]+/' "$T/right.out") > /dev/null \
    && ok "same seed, same topics in the same order" || bad "seed not reproducible"
yes '' | head -n $N | "$BIN" quiz --plain --count $N --seed 7 --no-save > "$T/skip2.out" 2>&1
cmp -s "$T/skip.out" "$T/skip2.out" && ok "same seed, byte-identical session" || bad "same seed differs"
yes '' | head -n $N | "$BIN" quiz --plain --count $N --seed 8 --no-save > "$T/skip3.out" 2>&1
cmp -s "$T/skip.out" "$T/skip3.out" && bad "seed 8 equals seed 7" || ok "another seed, another session"

# Half wrong: odd questions answered with a wrong-but-valid answer.
awk 'NR % 2 == 0 { print; next }
     /^[a-f]$/ { print ($0 == "a" ? "b" : "a"); next }
     /^[0-9]+$/ { print $0 + 1; next }
     { print "999999" }' "$T/answers" > "$T/half"
"$BIN" quiz --plain --count $N --seed 7 --no-save < "$T/half" > "$T/half.out" 2>&1
expect "half wrong: half the score" "$T/half.out" "^Score: $((N / 2))/$N \(50%\)"
expect "wrong answers show the right one" "$T/half.out" "^Wrong: .*the answer is"
expect "feedback has the engine's working" "$T/half.out" "^Working:"

# One line answers one question: a line that is no answer is wrong and says
# why (never asked again, so a piped transcript stays in step); an empty line
# is a skip, counted apart from the score.
{ echo '(2, 8'; echo '???'; printf '\001\n'; sed -n 4p "$T/answers"; echo; } > "$T/garbage"
"$BIN" quiz --plain --count $N --seed 7 --no-save < "$T/garbage" > "$T/garbage.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "garbage answers: exit 0" || bad "garbage exit $rc"
expect "garbage is wrong, saying why" "$T/garbage.out" "^Wrong: could not read '\(2, 8' as [a-z]"
expect "control bytes are shown escaped (\\x01)" "$T/garbage.out" "^Wrong: could not read '\\\\x01' as "
[ "$(grep -c '^answer>' "$T/garbage.out")" -eq 6 ] && ok "one line per question (5 lines, then end of input)" \
    || bad "answer prompts: $(grep -c '^answer>' "$T/garbage.out")"
expect "the 4th line answers the 4th question" "$T/garbage.out" "^Score: 1/4 \(25%\), 1 skipped$"
expect "input end after 5 questions" "$T/garbage.out" "^Input ended after 5 of $N questions\.$"
# A wrong-but-readable number says what was typed.
n1=$(grep -n -m1 '^[0-9][0-9]*$' "$T/answers" | cut -d: -f1)
if [ -n "$n1" ]; then
    { head -n $((n1 - 1)) "$T/answers"; echo $(( $(sed -n "${n1}p" "$T/answers") + 1 )); } > "$T/typed"
    "$BIN" quiz --plain --count $N --seed 7 --no-save < "$T/typed" > "$T/typed.out" 2>&1
    expect "a wrong number shows what was typed" "$T/typed.out" "^Wrong: you typed [0-9]+; the answer is [0-9]+\.$"
fi

# EOF mid-quiz: the partial score, exit 0.
head -n 3 "$T/answers" | "$BIN" quiz --plain --count $N --seed 7 --no-save > "$T/eof.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "EOF mid-quiz exits 0" || bad "EOF exit $rc"
expect "EOF: end of input noted" "$T/eof.out" "^\(end of input\)"
expect "EOF: partial count" "$T/eof.out" "^Input ended after 3 of $N questions\."
expect "EOF: partial score" "$T/eof.out" "^Score: 3/3 \(100%\)"
"$BIN" quiz --plain --count 3 --seed 7 --no-save < /dev/null > "$T/eof0.out" 2>&1 && ok "empty stdin exits 0" || bad "empty stdin"
expect "empty stdin: nothing answered" "$T/eof0.out" "^No questions answered\."

# Topics: every question of the chosen topic.
"$BIN" quiz --plain --topic offsets --count 4 --seed 3 --no-save < /dev/null > "$T/topic.out" 2>&1
expect "topic offsets asks offsets" "$T/topic.out" "^\[1/4\] offsets"
expect "offset question names the element" "$T/topic.out" "Which storage offset"
# Issue #19's topics: each asks its own questions, answered right by its key.
for t in paged window mla; do
    "$BIN" quiz --plain --topic $t --count 3 --seed 11 --no-save < /dev/null > "$T/$t.out" 2>&1
    expect "topic $t asks $t" "$T/$t.out" "^\[1/3\] $t"
done
expect "paged asks about blocks" "$T/paged.out" "block"
expect "window asks about the rolling buffer" "$T/window.out" "rolling buffer"
expect "mla quotes kv_lora_rank" "$T/mla.out" "kv_lora_rank 512"

# History: misses are saved (atomically, in the state dir) and --review asks them.
head -n 4 "$T/half" | "$BIN" quiz --plain --count 4 --seed 7 > "$T/save.out" 2>&1
[ -s "$XDG_STATE_HOME/mhaviz/quiz-history" ] && ok "history written" || bad "no history file"
expect "history counts topics" "$XDG_STATE_HOME/mhaviz/quiz-history" "^topic [a-z]+ [0-9]+ [0-9]+$"
expect "history keeps misses" "$XDG_STATE_HOME/mhaviz/quiz-history" "^miss 1 "
first_missed=$(sed -n '/^\[1\/4\]/,/^answer>/p' "$T/save.out" | sed -n 2p)
"$BIN" quiz --plain --review --no-save < /dev/null > "$T/review.out" 2>&1
expect "review says what it does" "$T/review.out" "^mhaviz quiz: reviewing the 2 questions you missed most"
grep -qF -- "$first_missed" "$T/review.out" && ok "review asks a missed question" || bad "review lacks: $first_missed"
before=$(cat "$XDG_STATE_HOME/mhaviz/quiz-history")
head -n 2 "$T/answers" | "$BIN" quiz --plain --count 2 --seed 7 --no-save > /dev/null 2>&1
[ "$before" = "$(cat "$XDG_STATE_HOME/mhaviz/quiz-history")" ] && ok "--no-save leaves the history alone" || bad "--no-save wrote"
XDG_STATE_HOME="$T/fresh" "$BIN" quiz --plain --review < /dev/null > "$T/review0.out" 2>&1
expect "review with no history" "$T/review0.out" "^Nothing to review yet"

# --check: the built-in banks pass, the bad corpus fails with file:line.
"$BIN" quiz --check lessons/*.quiz > "$T/check.out" 2>&1 && ok "lessons/*.quiz pass --check" || bad "bank check failed"
expect "check counts questions" "$T/check.out" "^lessons/concepts.quiz: [0-9]+ questions ok"
"$BIN" quiz --check > "$T/check0.out" 2>&1 && ok "--check alone checks the built-in banks" || bad "built-in check"
expect "built-in banks listed" "$T/check0.out" "^lessons/code.quiz: [0-9]+ questions ok"
for f in tests/quiz-bad/*.quiz; do
    "$BIN" quiz --check "$f" > "$T/bad.out" 2>&1
    rc=$?
    if [ $rc -eq 2 ] && grep -qE "^${f//./\\.}:[0-9]+: " "$T/bad.out"; then ok "--check $f: exit 2, file:line"
    else bad "--check $f: exit $rc: $(cat "$T/bad.out")"; fi
done
"$BIN" quiz --check /nonexistent.quiz > "$T/nf.out" 2>&1; rc=$?
[ $rc -eq 1 ] && ok "--check of a missing file: exit 1 (I/O, as lesson --check)" || bad "missing file exit $rc"
printf 'a\0b\n' > "$T/nul.quiz"
"$BIN" quiz --check "$T/nul.quiz" > "$T/nul.out" 2>&1; rc=$?
[ $rc -eq 2 ] && ok "--check of a binary file: exit 2" || bad "binary exit $rc"

# Bad flags: one line naming the flag, exit 2.
for args in "--count 0" "--count 1001" "--count x" "--seed -1" "--topic nope" "--frobnicate" "--count"; do
    "$BIN" quiz --plain $args < /dev/null > "$T/flag.out" 2> "$T/flag.err"; rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l < "$T/flag.err")" -eq 1 ] && grep -q '^mhaviz: ' "$T/flag.err"; then ok "quiz $args: usage error"
    else bad "quiz $args: exit $rc: $(cat "$T/flag.err")"; fi
done
"$BIN" quiz < /dev/null > "$T/notty.out" 2> "$T/notty.err"; rc=$?
[ $rc -eq 2 ] && grep -q -- '--plain' "$T/notty.err" && ok "no terminal: points to --plain" || bad "notty exit $rc"
"$BIN" quiz --help > "$T/help.out" 2>&1 && expect "help lists the topics" "$T/help.out" "memory, rope, flash, paged, window, mla, concepts"

# --review with no missed question left but a topic below 100%: fresh
# questions of that topic, never "Nothing to revisit" (#11.5).
mkdir -p "$T/weak/mhaviz"
printf '# mhaviz quiz history v1\ntopic views 5 4\n' > "$T/weak/mhaviz/quiz-history"
XDG_STATE_HOME="$T/weak" "$BIN" quiz --plain --review --count 2 < /dev/null > "$T/weak.out" 2>&1
expect "review of a topic below 100% asks it" "$T/weak.out" "^\[1/2\] views"
if grep -qi "nothing to" "$T/weak.out"; then bad "review said nothing to do at 80%"; else ok "review: no 'nothing to' below 100%"; fi
expect "the report names the lesson" "$T/weak.out" "reread mhaviz lesson 3: Transpose and contiguity"

# --timed N: an answer after N seconds is wrong, whatever it says.
{ sleep 2; echo a; } | "$BIN" quiz --plain --timed 1 --count 1 --seed 2 --no-save > "$T/late.out" 2>&1
expect "--timed 1: a late answer is out of time" "$T/late.out" "^Wrong: out of time"
"$BIN" quiz --plain --timed 0 < /dev/null > /dev/null 2> "$T/t0.err"; rc=$?
[ $rc -eq 2 ] && grep -q -- "--timed" "$T/t0.err" && ok "--timed 0: usage error" || bad "--timed 0: exit $rc"

# Answers as people type them: a size, a torch.Size, a value that is no choice.
printf '2GiB\ntorch.Size([1, 8, 4, 64])\n' | "$BIN" quiz --plain --topic kvcache --count 2 --seed 4 --no-save > "$T/typed.out" 2>&1
if grep -q "could not read" "$T/typed.out"; then bad "a size or torch.Size was not read"; else ok "sizes and torch.Size are read"; fi
expect "a value that is no choice says so" "$T/typed.out" "is not one of the choices"

# The bugs topic: the wrong line moves around (not 5 or 6 most of the time).
yes '' | head -n 40 | "$BIN" quiz --plain --topic bugs --count 40 --seed 5 --no-save > "$T/bugs.out" 2>&1
top=$(grep -o "^Skipped: the answer is [0-9]*" "$T/bugs.out" | grep -o "[0-9]*$" | sort | uniq -c | sort -rn | head -1 | awk '{print $1}')
[ -n "$top" ] && [ "$top" -le 12 ] && ok "bugs: no line number answers more than 12 of 40 (top: $top)" || bad "bugs: one line answers $top of 40"

# The TUI quiz in tmux: answer three questions, see feedback, quit.
if ! command -v tmux > /dev/null; then
    echo "skip - TUI quiz in tmux (no tmux)"
else
    S="mhq$$"
    tm() { tmux -L "$S" "$@"; }
    screen() { tm capture-pane -p -t q; }
    wait_for() { # wait_for PATTERN: up to 5 s
        for _ in $(seq 50); do screen | grep -qE -- "$1" && return 0; sleep 0.1; done
        return 1
    }
    tm new-session -d -s q -x 100 -y 30 "XDG_STATE_HOME='$T/tui' $BIN quiz --count 5 --seed 7; echo EXITED \$?; sleep 30"
    if wait_for "Quiz: interview prep"; then ok "TUI: picker shown"; else bad "TUI: no picker"; screen; fi
    tm send-keys -t q Enter
    if wait_for "1/5"; then ok "TUI: first question"; else bad "TUI: no question"; screen; fi
    tm send-keys -t q -l "héllo"
    tm send-keys -t q BSpace
    if wait_for "answer> héll( |$)"; then ok "TUI: multibyte editing: héllo, Backspace, héll"; else bad "TUI: héll not shown"; screen; fi
    tm send-keys -t q C-u
    for k in 1 2 3; do
        a=$(sed -n "${k}p" "$T/answers")
        wait_for "$k/5" || bad "TUI: question $k not shown"
        tm send-keys -t q -l "$a"
        tm send-keys -t q Enter
        if wait_for "Right|Wrong"; then ok "TUI: feedback on answer $k"; else bad "TUI: no feedback $k"; screen; fi
        screen | grep -q "^ Right" && ok "TUI: answer $k right" || { bad "TUI: answer $k not right"; screen; }
        [ $k -lt 3 ] && tm send-keys -t q Enter
    done
    tm send-keys -t q q
    if wait_for "Score: 3/3"; then ok "TUI: summary after quitting"; else bad "TUI: no summary"; screen; fi
    tm send-keys -t q q
    if wait_for "EXITED 0"; then ok "TUI: quit, exit 0"; else bad "TUI: no clean exit"; screen; fi
    [ -s "$T/tui/mhaviz/quiz-history" ] && ok "TUI: scores saved" || bad "TUI: no history"
    tm kill-session -t q 2> /dev/null; sleep 0.2

    # --ascii --color=never are taken like the other TUI commands; --timed 2
    # counts down and then marks the question out of time.
    tm new-session -d -s q -x 80 -y 24 "XDG_STATE_HOME='$T/tui2' $BIN quiz --ascii --color=never --count 2 --seed 7 --timed 2; echo EXITED \$?; sleep 30"
    if wait_for "Quiz: interview prep"; then ok "TUI: --ascii --color=never accepted"; else bad "TUI: --ascii refused"; screen; fi
    tm send-keys -t q Enter
    if wait_for "0:0[12] left"; then ok "TUI: --timed 2 counts down"; else bad "TUI: no countdown"; screen; fi
    if wait_for "Out of time"; then ok "TUI: out of time at 0"; else bad "TUI: no time-out"; screen; fi
    tm send-keys -t q q
    tm send-keys -t q q
    if wait_for "EXITED 0"; then ok "TUI: timed quiz exits 0"; else bad "TUI: timed quiz did not exit"; screen; fi
fi

finish
