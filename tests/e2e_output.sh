#!/usr/bin/env bash
# e2e_output.sh - every command checks its stdout at exit: a write that fails
# (here /dev/full: ENOSPC) is one line "mhaviz: write error: No space left on
# device" and exit 1, whatever the command; a closed pipe stays SIGPIPE (141),
# silent, as every Unix filter does.
. "$(dirname "$0")/e2e_lib.sh"

FULL_DISK_IN=$tmp/in
: >"$tmp/in"
full_disk --help
full_disk --version
full_disk kv --list
full_disk kv --help
full_disk kv --preset llama-2-7b
full_disk lesson --list
full_disk lesson --check
full_disk lesson --frames 1
full_disk lesson --help
full_disk quiz --check
full_disk quiz --help
full_disk decode --plain
full_disk export
full_disk frames --step 2
full_disk play --help
printf 'a\n1\n\n' >"$tmp/in"
full_disk quiz --plain --count 3 --seed 1 --no-save
printf 'x = torch.arange(6)\nx.view(2, 3)\n' >"$tmp/in"
full_disk play --plain --no-save
full_disk play --json --no-save

# a pipe whose reader is gone: killed by SIGPIPE, nothing on stderr
pipe_closed() {
  python3 - "$BIN" "$@" <<'PY'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)  # no reader: the first write gets EPIPE / SIGPIPE
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
print(128 - p.returncode if p.returncode < 0 else p.returncode, len(p.stderr))
PY
}
for args in "--version" "kv --list" "lesson --frames 1"; do
  # shellcheck disable=SC2086
  got=$(pipe_closed $args)
  check "mhaviz $args into a closed pipe: SIGPIPE (141), silent (got '$got')" test "$got" = "141 0"
done
finish
