#!/usr/bin/env bash
# e2e_walkplace.sh - the walkthrough remembers its step and configuration:
# quit `mhaviz walk --heads 4` at step 7, open the walkthrough again from the
# home menu and it is at step 7 with 4 heads; `mhaviz walk` from the command
# line still starts where its flags say; --no-save leaves the place alone.
. "$(dirname "$0")/e2e_lib.sh"
export E2E_TMUX_SOCKET="e2e-walkplace-$$"
S=wp
fresh_state
ST=$XDG_STATE_HOME/mhaviz
# a pane that outlives mhaviz, to see its exit code
start() { tmux_start $S 80 24 sh -c "LANG=C.UTF-8 TERM=xterm-256color '$BIN' $*; echo EXIT=\$?; sleep 600"; }
stop() { e2e_tmux kill-session -t $S 2>/dev/null; sleep 0.2; }

start walk --no-animation --heads 4
check "walk --heads 4 opens at step 0" tmux_wait $S "step 0/10"
tmux_keys $S Space Space Space Space Space Space Space
check "seven steps on: step 7" tmux_wait $S "step 7/10"
tmux_keys $S q
check "q quits the walkthrough" tmux_wait $S "EXIT=0"
stop
check "the place is saved in the state dir" grep -qx "step 7" "$ST/walk"
check "  ... with its configuration" grep -qx "heads 4" "$ST/walk"

start --no-animation
check "home opens" tmux_wait $S "Walkthrough"
tmux_keys $S 1
check "home -> Walkthrough: at step 7" tmux_wait $S "step 7/10"
check "  ... with 4 heads: (1, 4, 4, 2) back to tokens" tmux_wait $S "(1, 4, 4, 2)"
check "  ... and says so" tmux_wait $S "continued at step 7"
tmux_keys $S Space
check "one more step" tmux_wait $S "step 8/10"
tmux_keys $S q
check "q: back home" tmux_wait $S "multi-head attention, the way"
tmux_keys $S 1
check "reopened: step 8" tmux_wait $S "step 8/10"
tmux_keys $S q q
check "q q quits" tmux_wait $S "EXIT=0"
stop

start walk --no-animation
check "mhaviz walk: where its flags say (step 0)" tmux_wait $S "step 0/10"
check "  ... with 2 heads: the default" not grep -q "continued" <(tmux_screen $S)
tmux_keys $S Space Space Space
check "step 3" tmux_wait $S "step 3/10"
tmux_keys $S q
check "q quits" tmux_wait $S "EXIT=0"
stop
check "closing it saved step 3" grep -qx "step 3" "$ST/walk"

cp "$ST/walk" "$tmp/walk.before"
start walk --no-animation --no-save --heads 1
check "walk --no-save" tmux_wait $S "step 0/10"
tmux_keys $S Space Space
check "step 2" tmux_wait $S "step 2/10"
tmux_keys $S q
check "q quits" tmux_wait $S "EXIT=0"
stop
check "--no-save leaves the place alone" cmp -s "$ST/walk" "$tmp/walk.before"

# a corrupt place: kept aside, the walkthrough opens at step 0 and says so
echo "step seven" >"$ST/walk"
start --no-animation
check "home opens" tmux_wait $S "Walkthrough"
tmux_keys $S 1
check "a corrupt place: step 0" tmux_wait $S "step 0/10"
check "  ... and the warning" tmux_wait $S "kept as walk.bad"
tmux_keys $S q q
check "q q quits" tmux_wait $S "EXIT=0"
stop
check "the corrupt file is kept" grep -qx "step seven" "$ST/walk.bad"

finish
