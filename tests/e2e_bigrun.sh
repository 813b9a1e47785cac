#!/usr/bin/env bash
# e2e_bigrun.sh - the largest configuration the form accepts, in a real
# terminal (tmux): `walk --seq 1024 --d-model 1024` shows a frame and the
# "computing ..." line at once instead of a blank screen, Esc cancels back to
# the previous run, Ctrl-C ends it, and the terminal is restored every time.
# Nothing here is timed: each wait polls the screen up to a deadline.
. "$(dirname "$0")/e2e_lib.sh"
E2E_TMUX_SOCKET="mhaviz-bigrun-$$"
TENTHS=${E2E_TENTHS:-600} # deadlines, in tenths of a second (ASan on a busy machine)
S=bigrun
n=0

# start ARGS...: a new session running `mhaviz ARGS`, then the exit code (the
# old ones stay until the end: killing the last would stop the server while
# the next one connects)
start() {
  n=$((n + 1))
  S=bigrun$n
  tmux_start "$S" 80 24 sh -c "trap '' INT; echo BEFORE-MHAVIZ; LANG=C.UTF-8 LC_ALL=C.UTF-8 '$BIN' $*; echo EXIT=\$?; sleep 600"
}
shows() { tmux_wait "$S" "$1" "$TENTHS"; }
absent() { ! tmux_screen "$S" | grep -qF -- "$1"; }
# restored CODE: the program ended with CODE and the shell's screen is back
restored() {
  shows "EXIT=" && tmux_screen "$S" | grep -qx "EXIT=$1" &&
    [ "$(e2e_tmux display -p -t "$S" '#{alternate_on}')" = 0 ] &&
    tmux_screen "$S" | grep -qF BEFORE-MHAVIZ
}
BIG="walk --no-save --no-animation --seq 1024 --d-model 1024"

# Esc typed before the first frame: it is read once the frame is out, while
# the big run still computes, and cancels it (deterministic: the key waits
# in the terminal, the run takes far longer than the first frame)
start "$BIG"
tmux_keys "$S" Escape
check "Esc while computing: cancelled, the previous run kept" shows "cancelled: still seq 4, d_model 8"
check "the frame is there" shows "step 0/10"
check "no computing line after the cancel" absent "computing seq"
tmux_keys "$S" q
check "q after the cancel: exit 0, terminal restored" restored 0

# the computing line at once, then the run itself
start "$BIG"
check "the computing line appears" shows "computing seq 1024, d_model 1024"
check "the frame is drawn meanwhile" shows "step 0/10"
check "the run comes in" shows "now seq 1024, d_model 1024"
check "the computing line is gone" absent "computing seq"
tmux_keys "$S" Space
check "keys work on the big run" shows "step 1/10"
# R (a new seed) recomputes at the cap: aside again; Ctrl-C ends it
tmux_keys "$S" R
check "R at the cap computes aside" shows "computing seq 1024, d_model 1024"
tmux_keys "$S" C-c
check "Ctrl-C while computing: dies of SIGINT, terminal restored" restored 130

# Ctrl-C during the first run (not before it: the shell's trap leaves SIGINT
# ignored until mhaviz installs its handler)
start "$BIG"
check "computing at start" shows "computing seq 1024"
tmux_keys "$S" C-c
check "Ctrl-C while computing the first run: dies of SIGINT, terminal restored" restored 130

# q while computing quits at once (the run is cancelled, not waited for)
start "$BIG"
tmux_keys "$S" q
check "q while computing: exit 0, terminal restored" restored 0

finish
