#!/usr/bin/env bash
# e2e_tmux_own.sh - e2e_lib.sh's tmux sessions run on a server of the
# script's own.  make test runs two scripts at a time, and others use tmux on
# the same machine: a session of the same name on the default server (as
# e2e_files.sh met "duplicate session: files-fifo" from another worktree's
# run) must neither stop ours from starting nor be the one we read, and our
# panes get this script's environment, not a server's started by someone else.
. "$(dirname "$0")/e2e_lib.sh"
sess=mhaviz-own-$$
trap 'tmux kill-session -t "$sess" 2>/dev/null; e2e_cleanup' EXIT
if tmux new-session -d -s "$sess" -x 80 -y 24 "echo THEIRS; sleep 60" 2>/dev/null; then
  tmux_start "$sess" 80 24 sh -c 'echo "OURS state=$XDG_STATE_HOME"; sleep 60'
  check "a session named as one on the default server starts" tmux_wait "$sess" "OURS"
  check "  ... with this script's XDG_STATE_HOME" tmux_wait "$sess" "OURS state=$XDG_STATE_HOME"
  check "  ... and the default server's session is untouched" \
    eval 'tmux capture-pane -p -t "$sess" | grep -q THEIRS'
else
  echo "# skipped: tmux could not start a session on its default server"
fi
finish
