#!/bin/sh
# check-man.sh PERFGATE MANDIR - the man pages generated from --help:
# MANDIR/man1/perfgate.1.gz and perfgate-<command>.1.gz for every command
# `perfgate help` lists, each found by `man -w`, formatted by man(1) without
# a single groff warning, naming the command's summary and every option its
# --help prints, with the exact version of the binary in the footer, and no
# Markdown backtick left in the text (a `code` span of the help is set bold;
# only EXAMPLES, shell taken verbatim from the docs, may hold one).
set -u
pg=$1 mandir=$(cd "$2" && pwd) || exit 1
fail=0
err() { echo "check-man: FAIL: $*" >&2; fail=1; }
command -v man >/dev/null 2>&1 || { echo "check-man: man(1) is missing (ci/install-deps.sh test installs man-db)" >&2; exit 1; }
version=$("$pg" --version | sed 's/^perfgate //')
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

check_page() { # NAME SUMMARY HELP-ARGS...
        name=$1 summary=$2; shift 2
        page="$mandir/man1/$name.1.gz"
        [ -f "$page" ] || { err "$page is missing"; return; }
        found=$(MANPATH="$mandir" man -w "$name" 2>/dev/null)
        [ "$found" = "$page" ] || err "man -w $name: '$found', not $page"
        LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$page" >/dev/null 2>"$scratch/warn"
        [ -s "$scratch/warn" ] && err "$name.1: groff warnings: $(cat "$scratch/warn")"
        LC_ALL=C MANWIDTH=200 man -l "$page" 2>/dev/null | col -b >"$scratch/text"
        grep -q "^ *$name - $summary" "$scratch/text" || err "$name.1: NAME is not '$name - $summary'"
        grep -q "perfgate $version" "$scratch/text" || err "$name.1: footer lacks 'perfgate $version'"
        sed '/^EXAMPLES/,/^[A-Z]/d' "$scratch/text" | grep -n '`' >"$scratch/ticks" &&
                err "$name.1 shows Markdown backticks: $(head -n 3 "$scratch/ticks")"
        for o in $("$pg" "$@" | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
                grep -q -- "$o" "$scratch/text" || err "$name.1 does not mention $o (it is in 'perfgate $*')"
        done
}

cmds=$("$pg" help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p')
[ -n "$cmds" ] || err "perfgate help lists no commands"
check_page perfgate "[a-zA-Z]" help
for c in $cmds; do
        summary=$("$pg" help | sed -n "s/^  $c  *//p" | head -n 1)
        check_page "perfgate-$c" "$summary" help "$c"
        LC_ALL=C MANWIDTH=200 man -l "$mandir/man1/perfgate.1.gz" 2>/dev/null | col -b | grep -q "perfgate-$c(1)" ||
                err "perfgate.1: SEE ALSO lacks perfgate-$c(1)"
done
n=$(find "$mandir/man1" -name 'perfgate*.1.gz' | wc -l)
[ "$n" -eq $(($(echo "$cmds" | wc -w) + 1)) ] || err "$n pages in $mandir/man1, want one per command and perfgate.1"
[ $fail = 0 ] && echo "man pages in $mandir: perfgate(1) and $(echo "$cmds" | wc -w) command pages, in step with --help"
exit $fail
