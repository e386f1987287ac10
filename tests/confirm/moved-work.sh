#!/bin/sh
# moved-work.sh PERFGATE - a confirmed hotspot gates `perfgate compare
# --confirm` only when its inclusive time grew beyond the floor too, not
# when its callees' work only moved into it. A real C program (gcc -O1,
# frame pointers): main calls f() and h(); f() runs a loop of its own and
# calls g() (noinline), which runs the same loop. Base: f 40M steps, g 80M,
# h 80M. "moved": f hand-inlines g's loop (f 120M steps, g not called, h
# 80M): f's own time grows by two thirds of the run, the run and f's
# inclusive time do not. Must exit 0, name f's growth as work moved into it,
# with "moved": true and no hotspot_gated in JSON. Control "grew": f itself
# does 40M more steps and h 40M fewer (run time flat): f's inclusive time
# grew too, so it gates: exit 1 with "hotspot 'f' grew" (checked when the
# sampled pairs ran). Exit 0 when both hold.
set -eu
# shellcheck source=tests/confirm/lib.sh
. "$(dirname "$0")/lib.sh"
scratch
cd "$dir"
sh "$here/init-repo.sh"
mkdir -p src bench
printf 'bench/work\n.perfgate/\n' >.gitignore
cat >bench/perfgate.json <<'JSON'
{
  "build": "cc -O1 -g -fno-omit-frame-pointer -o bench/work src/work.c",
  "defaults": { "repeat": 5, "warmup": 0 },
  "benchmarks": [{"name": "work", "argv": ["./work"]}]
}
JSON
# write F_OWN G_STEPS H_STEPS (millions of steps): G_STEPS 0 leaves g uncalled
write() {
        cat >src/work.c <<C
#include <stdio.h>
#define M 1000000L
static unsigned long step(unsigned long s, long n)
{
        for (long i = 0; i < n; i++)
                s = s * 6364136223846793005ul + 1442695040888963407ul;
        return s;
}
static unsigned long __attribute__((noinline)) g(unsigned long s, long n) { return step(s, n); }
static unsigned long __attribute__((noinline)) f(unsigned long s)
{
        s = step(s, $1 * M);
        if ($2)
                s = g(s, $2 * M);
        __asm__ volatile("" : "+r"(s)); /* not a tail call: f keeps its frame */
        return s;
}
static unsigned long __attribute__((noinline)) h(unsigned long s) { return step(s, $3 * M); }
int main(void)
{
        unsigned long s = f(1);
        s = h(s);
        printf("%lu\n", s);
        return 0;
}
C
}
build() { cc -O1 -g -fno-omit-frame-pointer -o bench/work src/work.c; }
write 40 80 80
git add -A
git commit -qm base
build
"$pg" run bench/ -q
"$pg" baseline save >/dev/null

git checkout -q -b moved
write 120 0 80
git commit -qam moved
build
"$pg" run bench/ -q
rc=0
"$pg" compare main --confirm --confirm-budget 16 --json m.json >m.txt 2>m.err || rc=$?
[ "$rc" -eq 0 ] || { cat m.txt m.err >&2; fail "moved: exit $rc, expected 0 (work moved into f)"; }
# shellcheck disable=SC2016  # the backticks are the report's code spans
grep -q 'work moved into `f` from its callees (inclusive time [-+][0-9.]* ms, within the floor)' m.txt ||
        { cat m.txt >&2; fail "moved: f's growth is not named as work moved into it"; }
jq -e '.benchmarks[] | select(.name == "work") | .confirm |
        (.hotspot_gated | not) and
        ([.hotspots[] | select(.function == "f" and .confirmed and .moved)] | length == 1)' \
        m.json >/dev/null || { jq '.benchmarks[].confirm' m.json >&2; fail "moved: JSON"; }

git checkout -q main
git checkout -q -b grew
write 80 80 40
git commit -qam grew
build
"$pg" run bench/ -q
rc=0
"$pg" compare main --confirm --confirm-budget 16 --json g.json >g.txt 2>g.err || rc=$?
if jq -e '.benchmarks[] | select(.name == "work") | .confirm.hotspots | length == 0' g.json \
        >/dev/null; then
        # the sampled pairs run whenever the stored comparison found a
        # hotspot regressed (docs/compare.md, Confirmation); only a stored
        # f that did not regress (its share's runs wandering on a loaded
        # machine) leaves the control without pairs
        jq -e '[.benchmarks[] | select(.name == "work") | (.hotspots.functions // [])[] |
                select(.kind == "regressed")] | length == 0' g.json >/dev/null ||
                { cat g.txt >&2; fail "grew: a stored hotspot regressed, yet no sampled pairs ran"; }
        echo "ok: moved: $(grep -o 'confirmed hotspot [^;]*' m.txt)"
        echo "control not exercised: no sampled pairs ($(jq -r '.benchmarks[0].confirm.stored_verdict' g.json) stored)"
        exit 0
fi
[ "$rc" -eq 1 ] || { cat g.txt g.err >&2; fail "grew: exit $rc, expected 1 (f's own work grew)"; }
grep -q "hotspot 'f' grew, confirmed by paired runs" g.txt ||
        { cat g.txt >&2; fail "grew: the reason does not name f"; }
jq -e '.benchmarks[] | select(.name == "work") | .confirm | .hotspot_gated and
        ([.hotspots[] | select(.function == "f" and .confirmed and (.moved | not))] | length == 1)' \
        g.json >/dev/null || { jq '.benchmarks[].confirm' g.json >&2; fail "grew: JSON"; }
echo "ok: moved: $(grep -o 'confirmed hotspot [^;]*' m.txt)"
echo "ok: grew: $(grep -o "hotspot 'f' grew[^;]*" g.txt | head -1)"
