#!/bin/sh
# one-function.sh PERFGATE - a benchmark that is (nearly) all one function,
# which gets slower, is reported with that function named, in the stored
# comparison and after `--confirm`, in the text, the JSON and the Markdown
# Hotspots table; an unchanged benchmark names nothing.
# A real C program spends ~96% of its time in checksum_block() and ~3% in
# pad() (two LCG loops, noinline); head does 1.4x the work in both, so
# every function's self share stays where it was (the share test can
# confirm neither) while checksum_block's own time holds most of the
# growth. Once the report said "confirmed regression ... no hotspot
# confirmed in N sampled pairs" and its Hotspots table had no row.
# Exit 0 when all hold.
set -eu
# shellcheck source=tests/confirm/lib.sh
. "$(dirname "$0")/lib.sh"
scratch
cd "$dir"
sh "$here/init-repo.sh"
mkdir -p src bench
printf 'bench/bin/\n.perfgate/\n' >.gitignore
cat >src/w.c <<'C'
#include <stdio.h>
#include "n.h"
__attribute__((noinline)) unsigned long checksum_block(unsigned long x, long n)
{
        for (long i = 0; i < n; i++)
                x = x * 6364136223846793005UL + 1442695040888963407UL;
        return x;
}
__attribute__((noinline)) unsigned long pad(unsigned long x, long n)
{
        for (long i = 0; i < n; i++)
                x = x * 2862933555777941757UL + 3037000493UL;
        return x;
}
int main(void)
{
        unsigned long x = checksum_block(1, N);
        x += pad(x, N / 32);
        printf("%lu\n", x);
        return 0;
}
C
printf '#define N 50000000L\n' >src/n.h
cat >bench/perfgate.json <<'JSON'
{
  "build": "mkdir -p bench/bin && cc -O1 -g -fno-omit-frame-pointer -o bench/bin/w src/w.c",
  "defaults": { "repeat": 7, "warmup": 1 },
  "benchmarks": [{"name": "w", "argv": ["bin/w"]}]
}
JSON
build() { sh -c "$(jq -r .build bench/perfgate.json)"; }
git add -A
git commit -qm base
build
"$pg" run bench/ -q
"$pg" baseline save >/dev/null

# the control first: head changes nothing the benchmark runs
git checkout -q -b same
echo '/* a comment */' >>src/w.c
git commit -qam same
build
"$pg" run bench/ -q
rc=0
"$pg" compare main --json same.json --markdown same.md >same.txt 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat same.txt >&2; fail "unchanged: exit $rc, expected 0"; }
if grep -q "grew" same.txt same.md ||
        jq -e '[.benchmarks[].hotspots.functions[]? | select(.kind == "grew (own time)")] |
                length > 0' same.json >/dev/null; then
        cat same.txt same.md >&2
        fail "unchanged: a function is named as grew"
fi
echo "ok unchanged: $(grep -E '^[a-z]+ +w ' same.txt)"

git checkout -q main
git checkout -q -b head
printf '#define N 70000000L\n' >src/n.h
git commit -qam head
build
"$pg" run bench/ -q

# the stored comparison: regression, or inconclusive on a loaded runner;
# either way checksum_block is named by its own time
rc=0
"$pg" compare main --json stored.json --markdown stored.md >stored.txt 2>&1 || rc=$?
[ "$rc" -le 1 ] || { cat stored.txt >&2; fail "stored: exit $rc"; }
grep -Eq '^    checksum_block .*\) grew \(own time\)$' stored.txt ||
        { cat stored.txt >&2; fail "stored: checksum_block not named as grew (own time)"; }
grep -q '| w | checksum&#95;block |.*| grew (own time) |' stored.md ||
        { cat stored.md >&2; fail "stored: no Markdown Hotspots row for checksum_block"; }
jq -e '.benchmarks[] | select(.name == "w") | any(.hotspots.functions[];
        .function == "checksum_block" and .kind == "grew (own time)")' stored.json >/dev/null ||
        { jq '.benchmarks[]' stored.json >&2; fail "stored: JSON"; }
echo "ok stored: $(grep -E '^[a-z]+ +w ' stored.txt)"

rc=0
"$pg" compare main --confirm --confirm-budget 16 --json c.json --markdown c.md >c.txt 2>c.err ||
        rc=$?
[ "$rc" -eq 1 ] || { cat c.txt c.err >&2; fail "--confirm: exit $rc, expected 1"; }
grep -q "confirmed regression" c.txt || { cat c.txt >&2; fail "--confirm: not confirmed"; }
# named by its share (if the pairs happened to confirm that) or by its own time
grep -Eq 'confirmed hotspot `?checksum_block|`?checksum_block`? grew with the benchmark: own time' \
        c.txt || { cat c.txt >&2; fail "--confirm: checksum_block not named"; }
grep -q "no hotspot confirmed" c.txt && { cat c.txt >&2; fail "--confirm: no hotspot confirmed"; }
grep -q '| w | checksum&#95;block |.*| grew (own time) |' c.md ||
        { cat c.md >&2; fail "--confirm: no Markdown Hotspots row for checksum_block"; }
jq -e '.benchmarks[] | select(.name == "w") | .verdict == "regression" and
        any(.confirm.hotspots[]; .function == "checksum_block" and (.grew or .confirmed))' \
        c.json >/dev/null || { jq '.benchmarks[]' c.json >&2; fail "--confirm: JSON"; }
echo "ok --confirm: $(grep -Eo '(confirmed hotspot|`?checksum_block`? grew with)[^;]*' c.txt | head -n 1)"
