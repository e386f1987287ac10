#!/bin/sh
# check-docs.sh PERFGATE SOURCE_DIR - the man-style pages under docs/ stay in
# step with --help: each command has docs/<cmd>.md with SYNOPSIS, OPTIONS,
# EXIT STATUS and EXAMPLES sections, every long option `perfgate help CMD`
# prints is documented on its page, and every option the page documents is
# in --help. Also: `perfgate help`, `perfgate --version`, unknown commands,
# and tests/README.md naming every cmocka test in its directory's row.
set -u
pg=$1; src=$2; fail=0
err() { echo "check-docs: $*" >&2; fail=1; }

"$pg" --version | grep -Eq '^perfgate [0-9]+\.[0-9]+\.[0-9]+([+~][0-9A-Za-z.+~]+)?$' || err "--version output"
"$pg" help >/dev/null || err "'perfgate help' failed"
"$pg" no-such-command >/dev/null 2>&1; [ $? -eq 2 ] || err "unknown command must exit 2"
if [ -w /dev/full ]; then
  "$pg" help >/dev/full 2>/dev/null; [ $? -eq 4 ] || err "output lost to a full disk must exit 4"
fi
cmds=$("$pg" help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}')
[ -n "$cmds" ] || err "no commands listed by 'perfgate help'"
for c in $cmds; do
  page="$src/docs/$c.md"
  if [ ! -f "$page" ]; then err "docs/$c.md is missing"; continue; fi
  for s in SYNOPSIS OPTIONS "EXIT STATUS" EXAMPLES; do
    grep -qi "^## $s" "$page" || err "docs/$c.md has no '## $s' section"
  done
  help=$("$pg" help "$c") || { err "'perfgate help $c' failed"; continue; }
  [ "$help" = "$("$pg" "$c" --help)" ] || err "'perfgate help $c' differs from '$c --help'"
  for o in $(printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z0-9-]+' | grep -vx -- '--help' | sort -u); do
    grep -q -- "$o" "$page" || err "docs/$c.md does not document $o (it is in --help)"
  done
  for o in $(sed -n '/^## [Oo][Pp][Tt][Ii][Oo][Nn][Ss]/,/^## /p' "$page" | grep -oE -- '--[a-z][a-z0-9-]+' | grep -vx -- '--help' | sort -u); do
    printf '%s\n' "$help" | grep -q -- "$o" || err "docs/$c.md documents $o but --help does not"
  done
done
# tests/README.md lists every cmocka test in its directory's row
for t in "$src"/tests/*/test_*.c; do
  d=$(basename "$(dirname "$t")"); n=$(basename "$t" .c)
  grep -E "^\| \`$d/\`" "$src/tests/README.md" | grep -q "\`$n\`" ||
    err "tests/README.md does not list $n in the $d/ row"
done
[ $fail -eq 0 ] && echo "docs in step with --help for: $(echo $cmds)"
exit $fail
