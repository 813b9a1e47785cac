# e2e_lib.sh - what every end-to-end script shares: source it first.
#
#   . "$(dirname "$0")/e2e_lib.sh"
#   check "frames exits 0" test "$rc" = 0      # runs the command; ok/not ok
#   ok "name" / fail "name" "why"              # when the test is written out
#   tmux_start NAME COLS ROWS CMD...; tmux_keys NAME keys...; tmux_wait NAME TEXT; tmux_screen NAME
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
e2e_cleanup() {
  local s
  for s in "${e2e_tmux_sessions[@]}"; do tmux kill-session -t "$s" 2>/dev/null; done
  rm -rf "$tmp"
}
trap e2e_cleanup EXIT

ok() { e2e_pass=$((e2e_pass + 1)); echo "ok - $1"; }
fail() { e2e_fail=$((e2e_fail + 1)); echo "not ok - $1${2:+: $2}"; }
# check NAME CMD...: ok when CMD succeeds
check() { local name=$1; shift; if "$@"; then ok "$name"; else fail "$name"; fi; }

# tmux_start NAME COLS ROWS CMD...: a detached session running CMD
tmux_start() {
  local name=$1 cols=$2 rows=$3; shift 3
  tmux new-session -d -s "$name" -x "$cols" -y "$rows" "$@" && e2e_tmux_sessions+=("$name")
}
tmux_keys() { local name=$1; shift; tmux send-keys -t "$name" "$@"; }
tmux_screen() { tmux capture-pane -p -t "$1" 2>/dev/null; }
# tmux_wait NAME TEXT [TENTHS]: 0 once TEXT is on screen (default 5 s)
tmux_wait() {
  local i
  for ((i = 0; i < ${3:-50}; i++)); do
    tmux_screen "$1" | grep -qF -- "$2" && return 0
    sleep 0.1
  done
  return 1
}

finish() {
  echo "$e2e_name${MODE:+ ($MODE)}: $e2e_pass passed, $e2e_fail failed"
  [ "$e2e_fail" = 0 ]
  exit $?
}
