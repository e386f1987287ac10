#!/bin/sh
# measured-nothing.sh PERFGATE - a benchmark whose head does (almost) no
# work stays inconclusive under `perfgate compare --confirm`: the stored
# comparison calls its task-clock "not comparable" (10x less time, most
# likely other work: docs/compare.md, order of magnitude), and the paired
# runs run the same empty head, so they cannot tell either. A real C
# program does 200M LCG rounds on main and 1 in head; `compare --confirm
# --strict` must exit 1 with the verdict inconclusive, never improvement
# (it once became an improvement, exit 0). Exit 0 when all hold.
set -eu
# shellcheck source=tests/confirm/lib.sh
. "$(dirname "$0")/lib.sh"
scratch
cd "$dir"
sh "$here/init-repo.sh"
mkdir -p src bench
printf 'bench/bin/\n.perfgate/\n' >.gitignore
# $1: LCG rounds
write() {
        cat >src/w.c <<C
#include <stdio.h>
int main(void)
{
        unsigned long x = 1;
        for (long i = 0; i < $1L; i++)
                x = x * 6364136223846793005UL + 1442695040888963407UL;
        printf("%lu\n", x);
        return 0;
}
C
}
cat >bench/perfgate.json <<'JSON'
{
  "build": "mkdir -p bench/bin && cc -O1 -o bench/bin/w src/w.c",
  "defaults": { "repeat": 5, "warmup": 1 },
  "benchmarks": [{"name": "w", "argv": ["bin/w"]}]
}
JSON
build() { sh -c "$(jq -r .build bench/perfgate.json)"; }
write 200000000
git add -A
git commit -qm base
build
"$pg" run bench/ -q
"$pg" baseline save >/dev/null
git checkout -q -b head
write 1
git commit -qam head
build
"$pg" run bench/ -q

rc=0
"$pg" compare main --strict >stored.txt 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "less time than the baseline" stored.txt ||
        { cat stored.txt >&2; fail "stored comparison: exit $rc, expected 1 (--strict, not comparable)"; }
rc=0
"$pg" compare main --confirm --strict --confirm-budget 16 --json v.json >out.txt 2>err.txt || rc=$?
[ "$rc" -eq 1 ] || { cat out.txt err.txt >&2; fail "--confirm --strict: exit $rc, expected 1"; }
jq -e '.benchmarks[] | select(.name == "w") | .verdict == "inconclusive"' v.json >/dev/null ||
        { jq '.benchmarks[]' v.json >&2; fail "JSON: verdict is not inconclusive"; }
if grep -q "improvement" out.txt; then
        cat out.txt >&2
        fail "the report calls it an improvement"
fi
rc=0
"$pg" compare main --confirm --confirm-budget 16 >out2.txt 2>err2.txt || rc=$?
[ "$rc" -eq 0 ] || { cat out2.txt err2.txt >&2; fail "--confirm without --strict: exit $rc, expected 0"; }
echo "ok: $(grep -m1 '^inconclusive' out.txt)"
