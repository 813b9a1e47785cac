#!/usr/bin/env bash
# e2e_store.sh - what a run keeps in the state dir survives the others and
# the faults around it:
#   - two playground sessions at once (the play screen and play --plain on a
#     terminal, both in tmux) keep every statement in play_history;
#   - quiz --plain fed through a FIFO, then SIGINT, SIGTERM or SIGHUP: every
#     answer given is in quiz-history, and it dies of the signal;
#   - a stalled lock holder (flock(1)): the run's answers are kept in a
#     journal, the message names the lock file, the next save adds them;
#   - the names in the messages: a symlinked lock, the .bad copy chosen.
. "$(dirname "$0")/e2e_lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
export LSAN_OPTIONS="suppressions=$HERE/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
ST=$XDG_STATE_HOME/mhaviz

# --- two playground sessions at once: 3 statements each, interleaved -------------
penv=(env TERM=xterm-256color LANG=C.UTF-8 "XDG_STATE_HOME=$XDG_STATE_HOME"
    "ASAN_OPTIONS=${ASAN_OPTIONS:-}" "UBSAN_OPTIONS=${UBSAN_OPTIONS:-}" "LSAN_OPTIONS=$LSAN_OPTIONS")
a=storeA$$ b=storeB$$
tmux_start "$a" 100 30 "${penv[@]}" sh -c "'$BIN' play; echo EXIT=\$?; sleep 600"
tmux_start "$b" 100 30 "${penv[@]}" sh -c "'$BIN' play --plain; echo EXIT=\$?; sleep 600"
tmux_wait "$a" "Type a PyTorch statement" 100 || fail "the play screen opens" "$(tmux_screen "$a")"
tmux_wait "$b" ">>>" 100 || fail "play --plain opens" "$(tmux_screen "$b")"
for i in 1 2 3; do
    tmux_keys "$a" -l "a$i = torch.arange($((i + 10)))"
    tmux_keys "$a" Enter
    tmux_wait "$a" "($((i + 10)),)" 100 || fail "screen statement $i" "$(tmux_screen "$a")"
    tmux_keys "$b" -l "b$i = torch.arange($((i + 20)))"
    tmux_keys "$b" Enter
    tmux_wait "$b" "($((i + 20)),)" 100 || fail "plain statement $i" "$(tmux_screen "$b")"
done
tmux_keys "$a" q
tmux_keys "$b" C-d
tmux_wait "$a" "EXIT=0" 100 || fail "the play screen quits" "$(tmux_screen "$a")"
tmux_wait "$b" "EXIT=0" 100 || fail "play --plain quits" "$(tmux_screen "$b")"
kept=$(grep -cE '^[ab][123] = torch.arange' "$ST/play_history" 2>/dev/null)
check "two playground sessions, 3 statements each: 6 of 6 kept (kept $kept)" test "$kept" = 6
check "  ... in the order they were typed" test "$(grep -oE '^[ab][123]' "$ST/play_history" | tr -d '\n')" = a1b1a2b2a3b3
e2e_tmux kill-session -t "$a" 2>/dev/null
e2e_tmux kill-session -t "$b" 2>/dev/null

# asked: the answers recorded in quiz-history (the sum of its topic lines' asked)
asked() { awk '$1 == "topic" { n += $3 } END { print n + 0 }' "$ST/quiz-history" 2>/dev/null || echo 0; }

# --- quiz --plain through a FIFO, then a signal: 10 answers given, 10 saved ----------
for sig in INT TERM HUP; do
    rm -f "$ST/quiz-history" "$ST"/quiz-history.journal.*
    fifo=$tmp/answers.$sig
    mkfifo "$fifo"
    # a script's background job starts with INT ignored: reset it, as a shell's foreground is
    env --default-signal=INT "$BIN" quiz --plain --count 11 --seed 7 <"$fifo" >"$tmp/quiz.out" \
        2>"$tmp/quiz.err" &
    pid=$!
    (sleep 60 && kill -KILL "$pid") >/dev/null 2>&1 & # a guard: a run that ignores the signal
    guard=$!
    exec 3>"$fifo"
    for i in $(seq 10); do echo 1 >&3; done
    for ((i = 0; i < 300; i++)); do grep -q '^\[11/11\]' "$tmp/quiz.out" && break; sleep 0.1; done
    kill -"$sig" "$pid"
    wait "$pid" 2>/dev/null # (no "Hangup" notice from bash)
    st=$?
    pkill -P "$guard" sleep 2>/dev/null # the guard's own sleep, then the guard
    kill "$guard" 2>/dev/null
    exec 3>&-
    rm -f "$fifo"
    n=$(asked)
    check "quiz --plain, 10 answers, then SIG$sig: 10 of 10 saved (saved $n)" test "$n" = 10
    check "  ... and it dies of SIG$sig (status $st)" test "$st" = $((128 + $(kill -l "$sig")))
done

# --- a stalled lock holder: the answers wait in a journal, the next save adds them ----
rm -f "$ST/quiz-history" "$ST"/quiz-history.journal.*
# the holder: a process that takes the lock and sleeps on it (killing it frees the lock)
(exec 9>"$ST/lock" && flock 9 && exec sleep 60) &
holder=$!
for ((i = 0; i < 50; i++)); do flock -n "$ST/lock" true || break; sleep 0.1; done
printf '1\n1\n1\n1\n1\n' | timeout 60 "$BIN" quiz --plain --count 5 --seed 3 >"$tmp/quiz.out" 2>"$tmp/quiz.err"
rc=$?
kill "$holder"
wait "$holder" 2>/dev/null
check "stalled lock: the run still exits 0 (exit $rc)" test "$rc" = 0
check "  ... one line naming the lock file ($(head -c 300 "$tmp/quiz.err"))" \
    grep -qF "mhaviz: $ST/lock: held by another mhaviz for too long" "$tmp/quiz.err"
check "  ... and where the answers are kept" grep -qF "answers are kept in $ST/quiz-history.journal." "$tmp/quiz.err"
echo 1 | "$BIN" quiz --plain --count 1 --seed 4 >/dev/null 2>"$tmp/quiz.err"
n=$(asked)
check "  ... the next run adds them: 6 of 6 saved (saved $n)" test "$n" = 6
check "  ... and removes the journal" test -z "$(ls "$ST" | grep journal)"

# --- the messages name what they mean -------------------------------------------------
rm -f "$ST/lock"
ln -s "$tmp/elsewhere" "$ST/lock"
echo 1 | "$BIN" quiz --plain --count 1 --seed 4 >/dev/null 2>"$tmp/quiz.err"
check "a symlinked lock: the message names the lock ($(head -c 200 "$tmp/quiz.err"))" \
    grep -qF "mhaviz: $ST/lock: " "$tmp/quiz.err"
rm -f "$ST/lock"
printf 'garbage\n' >"$ST/quiz-history"
printf 'old\n' >"$ST/quiz-history.bad"
echo 1 | "$BIN" quiz --plain --count 1 --seed 4 >/dev/null 2>"$tmp/quiz.err"
check "a second corrupt history goes to quiz-history.bad.2" test -f "$ST/quiz-history.bad.2"
check "  ... and the message says .bad.2 ($(head -c 300 "$tmp/quiz.err"))" \
    grep -qF "kept as quiz-history.bad.2" "$tmp/quiz.err"
check "  ... never just .bad" not grep -qF "kept as quiz-history.bad " "$tmp/quiz.err"

finish
