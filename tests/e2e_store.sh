#!/usr/bin/env bash
# e2e_store.sh - what a run keeps in the state dir survives the others and
# the faults around it:
#   - two playground sessions at once (the play screen and play --plain on a
#     terminal, both in tmux) keep every statement in play_history;
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

finish
