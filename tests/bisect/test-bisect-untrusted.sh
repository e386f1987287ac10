#!/bin/sh
# test-bisect-untrusted.sh - `perfgate bisect` on what a repository itself
# controls (docs/limits.md, "Names" and "Links and shared directories"):
#  - the first bad commit's subject holds ESC, BEL, CR and a bidi override:
#    printed with control bytes as \xNN, \r and the override as \u202e, so
#    nothing reaches the terminal raw; exit 1;
#  - a `.perfgate` symbolic link committed in the project: the build cache
#    (.perfgate/builds) is refused, not followed, exit 2 naming the link, and
#    the link's target stays empty;
#  - --benchmark naming no benchmark of BAD's perfgate.json: exit 2 before
#    anything is built.
# Usage: test-bisect-untrusted.sh PERFGATE
set -u
pg=$1
fail=0
err() { echo "test-bisect-untrusted: FAIL: $*" >&2; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp" TZ=UTC LC_ALL=C GIT_CONFIG_NOSYSTEM=1

# a repository of two commits: the second makes the benchmark about 3x slower
mkdir -p "$tmp/r/bench" && cd "$tmp/r" || exit 1
git init -q -b main . && git config user.name t && git config user.email t@t &&
        git config commit.gpgsign false
printf 'bench/spin\n.perfgate/\n' >.gitignore
cat >bench/perfgate.json <<'JSON'
{
  "build": "cc -O1 -o bench/spin spin.c",
  "benchmarks": [{"name": "spin", "argv": ["./spin"]}]
}
JSON
spin() {
        printf '#include <stdio.h>\nint main(void) { unsigned long long x = 1;\n' >spin.c
        printf 'for (long i = 0; i < %s; i++) x = x * 6364136223846793005ull + 1;\n' "$1" >>spin.c
        printf 'printf("%%llu\\n", x & 1); return 0; }\n' >>spin.c
}
spin 4000000
git add -A && git commit -qm good
spin 12000000
git add -A && git commit -qm "$(printf 'slow \033]0;PWN\007\033[2J cr\rX \342\200\256rtl')"
o=$tmp/out.txt e=$tmp/err.txt
"$pg" bisect --floor 5 main~1 main >"$o" 2>"$e"
rc=$?
cat "$e" "$o"
[ $rc -eq 1 ] || err "bisect exit $rc, want 1"
grep -q '^first bad commit: [0-9a-f]\{40\} slow \\x1b\]0;PWN\\x07\\x1b\[2J cr\\rX \\u202ertl$' "$o" ||
        err "the subject is not shown escaped"
if LC_ALL=C grep -q "$(printf '[\033\007\r]')" "$o"; then err "a raw control byte reached stdout"; fi

# 2. --benchmark naming no benchmark of BAD's perfgate.json: refused before any build
"$pg" bisect --benchmark nope main~1 main >"$o" 2>"$e"
rc=$?
cat "$e" "$o"
[ $rc -eq 2 ] || err "bisect --benchmark nope: exit $rc, want 2"
grep -q "no benchmark 'nope' in 'bench/perfgate.json' at BAD [0-9a-f]\{12\} (it has: spin)" "$e" ||
        err "the missing benchmark is not named"
grep -q "building" "$e" && err "something was built before the benchmark was checked"

# 3. a committed .perfgate link: refused before any build, nothing written through it
mkdir "$tmp/victim"
rm -rf .perfgate && ln -s "$tmp/victim" .perfgate
printf 'bench/spin\n' >.gitignore
git add -A && git commit -qm 'link .perfgate'
"$pg" bisect --floor 5 main~2 main >"$o" 2>"$e"
rc=$?
cat "$e" "$o"
[ $rc -eq 2 ] || err "bisect with a .perfgate link: exit $rc, want 2"
grep -q "/.perfgate' is a symbolic link" "$e" || err "the link is not named"
[ -z "$(ls -A "$tmp/victim")" ] || err "something was written through the .perfgate link"
exit $fail
