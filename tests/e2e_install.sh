#!/usr/bin/env bash
# e2e_install.sh - `make install DESTDIR=... PREFIX=/usr` from a copy of the
# source tree installs a stripped binary and the man page; the installed
# binary works from / once the copy is moved away (lessons, quiz banks and
# presets are built in); `make uninstall` removes exactly those two files.
#
# It makes its own plain binary in the copy, so under MODE=asan it has
# nothing more to say and is skipped.  The copy starts with the objects the
# binary under test was linked from (make test has just built them; the same
# sources, their times kept), so its make links and installs them instead of
# compiling every file again (20 s of CPU); without them it builds them all.
. "$(dirname "$0")/e2e_lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
if [ "${MODE:-plain}" = asan ]; then
    echo "# skipped under ASan: the test builds and installs its own plain binary"
    finish
fi

mkdir -p "$tmp/tree" "$tmp/dest/usr/bin" "$tmp/home"
cp -a "$HERE/../Makefile" "$HERE/../src" "$HERE/../lessons" "$HERE/../assets" "$tmp/tree/"
echo "not ours" >"$tmp/dest/usr/bin/other-tool" # a file install must not touch
objs=$(dirname "$BIN")
if [ -f "$objs/content.o" ] && [ -f "$objs/cmd/main.o" ]; then
    mkdir -p "$tmp/tree/.build"
    (cd "$objs" && cp -a --parents -t "$tmp/tree/.build" content.c content.o \
        $(cd "$HERE/../src" && ls -d */ | sed 's,/$,,'))
fi
make -C "$tmp/tree" -j2 install DESTDIR="$tmp/dest" PREFIX=/usr >"$tmp/log" 2>&1
check "make install DESTDIR=... PREFIX=/usr" test $? = 0 || sed 's/^/  | /' "$tmp/log"

inst=$tmp/dest/usr/bin/mhaviz
files=$(cd "$tmp/dest" && find . -type f | sort | tr '\n' ' ')
want="./usr/bin/mhaviz ./usr/bin/other-tool ./usr/share/man/man1/mhaviz.1 "
check "installed: the binary and the man page, nothing else" test "$files" = "$want"
check "installed binary is executable" test -x "$inst"
if command -v readelf >/dev/null 2>&1; then
    check "installed binary is stripped (no .symtab)" \
        eval "! readelf -S '$inst' | grep -qF .symtab"
fi
echo "# sizes: $(stat -c %s "$tmp/tree/.build/mhaviz") B built, $(stat -c %s "$inst") B installed"

mv "$tmp/tree" "$tmp/moved" # the source tree is gone from where it was built
run() { (cd / && env -i PATH=/usr/bin:/bin HOME="$tmp/home" "$inst" "$@"); }
out=$(run frames --step split 2>&1)
check "from /: frames" grep -qF "step 2/10" <<<"$out"
out=$(run lesson --list 2>&1)
check "from /: lesson --list (built-in lessons)" grep -qF "01-pipeline" <<<"$out"
out=$(run lesson --frames 2 --page 1 2>&1)
check "from /: lesson --frames 2" grep -qF "Heads are views" <<<"$out"
out=$(run quiz --plain --count 2 --seed 1 --no-save </dev/null 2>&1)
check "from /: quiz --plain (built-in bank)" grep -qF "of 2 questions" <<<"$out"
out=$(run kv --list 2>&1)
check "from /: kv --list (built-in presets)" grep -qF "gpt2-small" <<<"$out"
out=$(run export --seq 2 2>&1)
check "from /: export" grep -qF "\"tensors\"" <<<"$out"
check "from /: --version" eval "run --version | grep -q '^mhaviz '"
if command -v man >/dev/null 2>&1; then
    out=$(MANWIDTH=80 man -l "$tmp/dest/usr/share/man/man1/mhaviz.1" 2>&1)
    check "installed man page renders" grep -qF "multi-head attention" <<<"$out"
fi

make -C "$tmp/moved" uninstall DESTDIR="$tmp/dest" PREFIX=/usr >"$tmp/log" 2>&1
check "make uninstall" test $? = 0
files=$(cd "$tmp/dest" && find . -type f | sort | tr '\n' ' ')
check "uninstall removed exactly what install put there" test "$files" = "./usr/bin/other-tool "
finish
