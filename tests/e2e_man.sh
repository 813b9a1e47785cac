#!/usr/bin/env bash
# e2e_man.sh - the man page (assets/mhaviz.1) lists every command, every flag
# of every command's --help, every environment variable the source reads,
# every state file and every exit status.  (The keys: tests/check_man.c.)
. "$(dirname "$0")/e2e_lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
MAN=${MHAVIZ_MAN:-$HERE/../assets/mhaviz.1}
SRC=$HERE/../src

# the page as text a grep can read: \- is -, font changes gone
page=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$MAN")
has() { grep -qF -- "$1" <<<"$page"; }

commands=$("$BIN" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
check "mhaviz --help lists commands" test -n "$commands"
for c in $commands; do
    check "man: command $c" grep -qE "^\.B $c( |$)" "$MAN"
done

flags=$( { "$BIN" --help; for c in $commands; do "$BIN" "$c" --help; done; } |
    grep -oE -- '--[a-z][a-z-]+' | sort -u)
check "the --help texts list flags" test "$(wc -w <<<"$flags")" -gt 20
for f in $flags; do
    check "man: flag $f" has "$f"
done

# the commands with a deck: each flag of their --help in their own entry (the
# shared configuration flags are under OPTIONS), and the deck's keys
shared=$("$BIN" frames --help | sed -n '/^Configuration:/,$p' | grep -oE -- '--[a-z][a-z-]+')
for c in frames lesson; do
    entry=$(sed -n "/^\.B $c\( \|$\)/,/^\.\(TP\|SH\)/p" "$MAN" | sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g')
    for f in $("$BIN" "$c" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
        [ "$f" = --help ] || grep -qxF -- "$f" <<<"$shared" && continue
        check "man: $c's entry has $f" grep -qF -- "$f" <<<"$entry"
    done
done
entry=$(sed -n '/^\.B frames$/,/^\.\(TP\|SH\)/p' "$MAN")
for k in $("$BIN" frames --help | sed -n '/html (a deck/,/)/p' | grep -oE 'Right|Left|PgDn|PgUp|Space|Home|End|Enter| b | f ' | tr -d ' '); do
    check "man: the deck's key $k (frames --help) in frames' entry, bold" grep -qF -- "\\fB$k\\fR" <<<"$entry"
done

# every quiz topic (the one table, as the --topic error lists it) in quiz's entry
topics=$("$BIN" quiz --topic no-such-topic 2>&1 | sed -n "s/.*unknown topic '[^']*' (\(.*\) or all).*/\1/p" | tr -d ',')
check "quiz --topic's error lists the topics" test "$(wc -w <<<"$topics")" -ge 10
entry=$(sed -n '/^\.B quiz$/,/^\.\(TP\|SH\)/p' "$MAN" | sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g')
for t in $topics; do
    check "man: quiz topic $t in quiz's entry" grep -qw -- "$t" <<<"$entry"
    check "quiz --help: topic $t" grep -qw -- "$t" <<<"$("$BIN" quiz --help | sed -n '/--topic/,/--count/p')"
done

for v in $(grep -rhoE 'getenv\("[A-Z_]+"\)' "$SRC" | sed 's/getenv("\(.*\)")/\1/' | sort -u); do
    check "man: environment variable $v" grep -qE "^\.B $v" "$MAN"
done

for f in $(grep -rhoE '#define [A-Z_]+_FILE "[a-z-]+"' "$SRC" | sed 's/.*"\(.*\)"/\1/' | sort -u); do
    check "man: state file $f" has "mhaviz/$f"
done

status=$(sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$MAN")
for code in "0 on success" "1 on a runtime failure" "2 on a usage error" "128 + N"; do
    check "man: exit status '$code'" grep -qF -- "$code" <<<"$status"
done
if command -v man >/dev/null 2>&1; then
    check "man: renders without warnings" \
        test -z "$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$MAN" 2>&1 >/dev/null)"
fi
finish
