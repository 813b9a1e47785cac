#!/usr/bin/env bash
# e2e_torch_listings.sh - every listing the quiz shows runs in PyTorch as
# written, with the shapes and strides its "The engine ran" lines claim
# (tests/ref_listings.py: pipeline listings, decode listings, bugs programs,
# over 6 seeds of 40 questions of each topic that shows code).  Skips when
# /usr/bin/python3 has no torch (Debian python3-torch).
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"

if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    if out=$(/usr/bin/python3 "$HERE/ref_listings.py" "$BIN" --seeds 6 --count 40 2>&1); then
        ok "quiz listings run in PyTorch: $(tail -1 <<<"$out")"
    else
        fail "quiz listings in PyTorch" "$(grep -v '^#   ' <<<"$out" | head -20)"
    fi
    printf '%s\n' "$out" | grep '^# [a-z]*:' || true
else
    echo "# skip: /usr/bin/python3 has no torch (Debian python3-torch) to run the listings in"
fi
finish
