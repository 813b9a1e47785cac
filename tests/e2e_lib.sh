# e2e_lib.sh - what every end-to-end script shares: source it first.
#
#   . "$(dirname "$0")/e2e_lib.sh"
#   check "frames exits 0" test "$rc" = 0      # runs the command; ok/not ok
#   check "no colour" not grep -q "$esc" FILE  # ... or its failure
#   ok "name" / fail "name" "why"              # when the test is written out
#   tmux_start NAME COLS ROWS CMD...; tmux_keys NAME keys...; tmux_wait NAME TEXT; tmux_screen NAME; tmux_gone NAME
#   fresh_state                                # a new empty XDG_STATE_HOME from here on
#   capture CMD...; usage_error NEEDLE ARGS...; full_disk ARGS...   # command-line checks
#   py_queue OUT ARG...; py_batch PY SCRIPT; py_passed OUT  # one python for many cases
#   finish                                     # prints the count, exits 1 on any failure
#
# Every line of output is "ok - name" or "not ok - name: why", so a failure is
# found with grep '^not ok'.
set -u
BIN=${MHAVIZ_BIN:?set MHAVIZ_BIN to the mhaviz binary}
case "$BIN" in /*) ;; *) BIN=$PWD/$BIN ;; esac
tmp=$(mktemp -d)
export XDG_STATE_HOME=$tmp/state
e2e_name=$(basename "$0" .sh)
e2e_pass=0
e2e_fail=0
e2e_tmux_sessions=()
# The sessions run on a tmux server of this script's own (tmux -L NAME, no
# config), started with its environment (XDG_STATE_HOME, ASAN_OPTIONS):
# scripts run side by side (make test runs two at a time) and other users'
# sessions on the default server never share a session name or a server's
# environment.  E2E_TMUX_SOCKET=NAME before tmux_start names another one.
E2E_TMUX_SOCKET=${E2E_TMUX_SOCKET:-mhaviz-$e2e_name-$$}
e2e_tmux() { tmux ${E2E_TMUX_SOCKET:+-L "$E2E_TMUX_SOCKET" -f /dev/null} "$@"; }
e2e_cleanup() {
  local s
  for s in "${e2e_tmux_sessions[@]}"; do e2e_tmux kill-session -t "$s" 2>/dev/null; done
  # a server of our own: end it and remove its socket file, which tmux leaves behind
  if [ -n "${E2E_TMUX_SOCKET:-}" ]; then
    e2e_tmux kill-server 2>/dev/null
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$E2E_TMUX_SOCKET"
  fi
  rm -rf "$tmp"
}
trap e2e_cleanup EXIT

# python3 as the interpreter itself, found once: on a machine whose python3 is
# a version manager's shim (pyenv's is a shell script that finds the version
# and execs it) each call paid ~0.1 s of CPU before Python started.  The same
# interpreter runs; only the script's own calls go straight to it.
if e2e_python3=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) &&
  [ -x "$e2e_python3" ] && [ "$e2e_python3" != "$(command -v python3)" ]; then
  python3() { "$e2e_python3" "$@"; }
fi

ok() { e2e_pass=$((e2e_pass + 1)); echo "ok - $1"; }
fail() { e2e_fail=$((e2e_fail + 1)); echo "not ok - $1${2:+: $2}"; }
# check NAME CMD...: ok when CMD succeeds
check() { local name=$1; shift; if "$@"; then ok "$name"; else fail "$name"; fi; }
# not CMD...: succeeds when CMD fails, for check: check "no escapes" not grep -q "$esc" FILE
not() { ! "$@"; }

# tmux_start NAME COLS ROWS CMD...: a detached session running CMD.  A server
# of our own stays up when its sessions end (exit-empty off, until cleanup
# kills it): a session that ends must not take the server down while the next
# one connects ("server exited unexpectedly").
# The session gets this script's XDG_STATE_HOME (-e) even on a server that
# another script started: what it remembers (progress, the walkthrough's
# place) stays in this script's state dir.
tmux_start() {
  local name=$1 cols=$2 rows=$3; shift 3
  [ -z "${E2E_TMUX_SOCKET:-}" ] || e2e_tmux start-server \; set-option -g exit-empty off 2>/dev/null
  e2e_tmux new-session -d -s "$name" -x "$cols" -y "$rows" -e "XDG_STATE_HOME=$XDG_STATE_HOME" "$@" &&
    e2e_tmux_sessions+=("$name")
}
# fresh_state: a new empty state dir for what follows, so a test never sees
# what an earlier one remembered (a walkthrough's step, a lesson's page).
e2e_states=0
fresh_state() {
  e2e_states=$((e2e_states + 1))
  export XDG_STATE_HOME=$tmp/state.$e2e_states
}
tmux_keys() { local name=$1; shift; e2e_tmux send-keys -t "$name" "$@"; }
tmux_screen() { e2e_tmux capture-pane -p -t "$1" 2>/dev/null; }
# tmux_wait NAME TEXT [TENTHS]: 0 once TEXT is on screen (default 5 s)
tmux_wait() {
  local i
  for ((i = 0; i < ${3:-50}; i++)); do
    tmux_screen "$1" | grep -qF -- "$2" && return 0
    sleep 0.1
  done
  return 1
}
# tmux_gone NAME [TENTHS]: 0 once session NAME has ended (default 5 s), so
# the next tmux_start may take its name
tmux_gone() {
  local i
  for ((i = 0; i < ${2:-50}; i++)); do
    e2e_tmux has-session -t "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  return 1
}

# capture CMD...: runs CMD under a 60 s guard (a hang is rc 124); sets $rc,
# stdout in $tmp/out, stderr in $tmp/err
capture() {
  timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}
# usage_error NEEDLE ARGS...: `mhaviz ARGS` is refused as bad usage: exit 2,
# nothing on stdout, one stderr line "mhaviz: ..." containing NEEDLE (fixed text)
usage_error() {
  local needle=$1 lines
  shift
  capture "$BIN" "$@"
  lines=$(wc -l <"$tmp/err")
  if [ "$rc" = 2 ] && [ "$lines" = 1 ] && [ ! -s "$tmp/out" ] &&
    grep -q '^mhaviz: ' "$tmp/err" && grep -qF -- "$needle" "$tmp/err"; then
    ok "mhaviz $*: exit 2, one line naming '$needle'"
  else
    fail "mhaviz $*" "exit $rc (want 2), $lines stderr lines (want 1), $(wc -c <"$tmp/out") B on stdout (want 0), stderr '$(head -c 300 "$tmp/err")' (want '$needle')"
  fi
}
# full_disk ARGS...: `mhaviz ARGS >/dev/full` (stdin from $FULL_DISK_IN, default
# /dev/null) is a run-time failure: exit 1, the one line cli_close_stdout says;
# nothing is checked where /dev/full is missing
full_disk() {
  [ -w /dev/full ] || return 0
  timeout 60 "$BIN" "$@" <"${FULL_DISK_IN:-/dev/null}" >/dev/full 2>"$tmp/err"
  rc=$?
  if [ "$rc" = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -qx 'mhaviz: write error: No space left on device' "$tmp/err"; then
    ok "mhaviz $* >/dev/full: exit 1, 'write error: No space left on device'"
  else
    fail "mhaviz $* >/dev/full" "exit $rc (want 1), stderr '$(head -c 200 "$tmp/err")'"
  fi
}

# py_queue OUT ARG...: one run of a Python script, `SCRIPT ARG...` with its
# output to the file OUT, queued for py_batch (no ARG holds a space).
# py_batch PY SCRIPT: runs the queued cases in one PY process (tests/pybatch.py:
# torch is imported once, not once a case), each afresh as __main__; empties
# the queue.  py_passed OUT: 0 when that case exited 0.
e2e_tests=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
py_queue() { echo "$*" >>"$tmp/py_cases"; }
py_batch() {
  [ -s "$tmp/py_cases" ] || return 0
  "$1" "$e2e_tests/pybatch.py" "$2" <"$tmp/py_cases"
  rm -f "$tmp/py_cases"
}
py_passed() { [ "$(cat "$1.rc" 2>/dev/null)" = 0 ]; }

finish() {
  echo "$e2e_name${MODE:+ ($MODE)}: $e2e_pass passed, $e2e_fail failed"
  [ "$e2e_fail" = 0 ]
  exit $?
}
