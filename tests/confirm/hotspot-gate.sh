#!/bin/sh
# hotspot-gate.sh PERFGATE - `perfgate compare --confirm` tests a hotspot
# that regressed in the stored comparison also when `hotspots.gate` made
# that comparison's verdict "regression". A real C program runs f() then
# g() (two LCG loops, noinline); head shifts work from g to f (f 1.5x,
# g 0.5x, the same total), so the paired task-clock finds no regression
# and only the sampled pairs can tell. With the gate on, `--confirm` and
# `--confirm=all` must exit 1 naming f confirmed (they once ran no sampled
# pairs and cleared it on task-clock alone, exit 0); with the gate off,
# `--confirm` must do the same, as it always did. Exit 0 when all hold.
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
__attribute__((noinline)) unsigned long f(unsigned long x, long n)
{
        for (long i = 0; i < n; i++)
                x = x * 6364136223846793005UL + 1442695040888963407UL;
        return x;
}
__attribute__((noinline)) unsigned long g(unsigned long x, long n)
{
        for (long i = 0; i < n; i++)
                x = x * 2862933555777941757UL + 3037000493UL;
        return x;
}
int main(void)
{
        unsigned long x = f(1, NF);
        x += g(x, NG);
        printf("%lu\n", x);
        return 0;
}
C
printf '#define NF 60000000L\n#define NG 60000000L\n' >src/n.h
# $1: the value of hotspots.gate
config() {
        cat <<JSON
{
  "build": "mkdir -p bench/bin && cc -O1 -g -fno-omit-frame-pointer -o bench/bin/w src/w.c",
  "defaults": { "repeat": 5, "warmup": 1 },
  "compare": { "hotspots": { "gate": $1 } },
  "benchmarks": [{"name": "w", "argv": ["bin/w"]}]
}
JSON
}
config true >bench/perfgate.json
config false >bench/nogate.json
build() { sh -c "$(jq -r .build bench/perfgate.json)"; }
git add -A
git commit -qm base
build
"$pg" run bench/ -q
"$pg" baseline save >/dev/null
git checkout -q -b head
printf '#define NF 90000000L\n#define NG 30000000L\n' >src/n.h
git commit -qam head
build
"$pg" run bench/ -q

rc=0
"$pg" compare main >stored.txt 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "hotspot 'f' grew" stored.txt ||
        { cat stored.txt >&2; fail "stored comparison: exit $rc, expected 1 with hotspot 'f' grew"; }

# $1: a name for the files; the rest: compare's extra arguments
confirm() {
        name=$1
        shift
        rc=0
        "$pg" compare main "$@" --confirm-budget 16 --json "$name.json" >"$name.out" 2>"$name.err" ||
                rc=$?
        [ "$rc" -eq 1 ] ||
                { cat "$name.out" "$name.err" >&2; fail "$name: exit $rc, expected 1 (f confirmed)"; }
        grep -q "hotspot 'f' grew, confirmed by paired runs" "$name.out" ||
                { cat "$name.out" >&2; fail "$name: the report does not name f confirmed"; }
        jq -e '.benchmarks[] | select(.name == "w") | .verdict == "regression" and
                .confirm.hotspot_gated and
                any(.confirm.hotspots[]; .function == "f" and .confirmed)' "$name.json" \
                >/dev/null || { jq '.benchmarks[]' "$name.json" >&2; fail "$name: JSON"; }
        echo "ok $name: $(grep -o "hotspot 'f' grew, confirmed[^)]*)" "$name.out" | head -n 1)"
}
confirm gate --confirm
confirm gate-all --confirm=all
confirm nogate --confirm --config bench/nogate.json
