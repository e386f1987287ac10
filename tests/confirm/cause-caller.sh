#!/bin/sh
# cause-caller.sh PERFGATE - `perfgate compare --confirm` names the caller in
# the benchmark's own executable of a confirmed hotspot that is a libc
# function. A real C program, wordfreq (built by the project's "build"
# with gcc -O2, frame pointers), sorts pointers to 1 KiB records with
# glibc's qsort and its own comparator word_less(), which calls memcmp():
# base compares the 16 bytes after a prefix that all records share, head
# the whole record, so memcmp (glibc's __memcmp_<variant>) grows and
# word_less barely. Both sides are run with --call-graph dwarf: with frame
# pointers a sample in memcmp, a leaf that sets up no frame, loses
# word_less, and glibc's msort_with_tmp has none either. The report must
# name memcmp's confirmed growth with "(called from `word_less` in
# wordfreq)", and report.json its caller and caller_module. Exit 0 when
# all hold, 77 when perf cannot unwind with DWARF here.
set -eu
# shellcheck source=tests/confirm/lib.sh
. "$(dirname "$0")/lib.sh"
scratch
cd "$dir"
sh "$here/init-repo.sh"
mkdir -p src bench
printf 'bench/wordfreq\n.perfgate/\n' >.gitignore
cat >bench/perfgate.json <<'JSON'
{
  "build": "cc -O2 -g -fno-omit-frame-pointer -o bench/wordfreq src/wordfreq.c",
  "defaults": { "repeat": 5, "warmup": 0 },
  "benchmarks": [{"name": "wordfreq", "argv": ["./wordfreq"]}]
}
JSON
# FROM: where word_less starts comparing (records differ only in their last 16 bytes)
write() {
        cat >src/wordfreq.c <<C
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define N 20000
#define LEN 1024
#define FROM $1
static char recs[N][LEN];
static const char *ptrs[N];
static int __attribute__((noinline)) word_less(const void *a, const void *b)
{
        const char *x = *(const char *const *) a, *y = *(const char *const *) b;
        int r = memcmp(x + FROM, y + FROM, LEN - FROM); /* not a tail call: a frame */
        return (r > 0) - (r < 0);
}
int main(void)
{
        unsigned long s = 1, sum = 0;
        memset(recs, 'a', sizeof(recs));
        for (int round = 0; round < 8; round++) {
                for (int i = 0; i < N; i++) {
                        s = s * 6364136223846793005ul + 1442695040888963407ul;
                        memcpy(recs[i] + LEN - 16, &s, sizeof(s));
                        ptrs[i] = recs[i];
                }
                qsort(ptrs, N, sizeof(ptrs[0]), word_less);
                sum += (unsigned char) ptrs[0][LEN - 16];
        }
        printf("%lu\n", sum);
        return 0;
}
C
}
write 1008
build() { cc -O2 -g -fno-omit-frame-pointer -o bench/wordfreq src/wordfreq.c; }
git add -A
git commit -qm base
build
if ! "$pg" run bench/ -q --call-graph dwarf >run.out 2>&1; then
        if grep -qi "dwarf\|not supported\|not permitted" run.out; then
                echo "skip: perfgate run --call-graph dwarf is not possible here:"; cat run.out
                exit 77
        fi
        cat run.out >&2
        fail "perfgate run (base)"
fi
"$pg" baseline save >/dev/null
git checkout -q -b head
write 0
git commit -qam head
build
"$pg" run bench/ -q --call-graph dwarf

rc=0
"$pg" compare main --confirm --confirm-budget 16 --json v.json >out.txt 2>err.txt || rc=$?
[ "$rc" -eq 1 ] || { cat out.txt err.txt >&2; fail "exit $rc, expected 1 (confirmed regression)"; }
# shellcheck disable=SC2016  # the backticks are the report's code spans
grep -qE 'confirmed hotspot `__memcmp[^`]*` [^;]*\(called from `word_less` in wordfreq\)' out.txt ||
        { cat out.txt >&2; fail "memcmp's confirmed growth does not name word_less in wordfreq"; }
jq -e '[.benchmarks[] | select(.name == "wordfreq") | .confirm.hotspots[] |
         select(.confirmed and (.function | startswith("__memcmp")))][0] |
        .caller == "word_less" and (.caller_module | endswith("/bench/wordfreq"))' v.json \
        >/dev/null || { jq '.benchmarks[].confirm' v.json >&2; fail "JSON: no caller word_less"; }
echo "ok: $(grep -o 'confirmed hotspot [^;]*' out.txt)"
