#!/bin/sh
# cpus.sh PERFGATE - `perfgate compare --confirm` pins both sides of the
# paired runs to as many CPUs as the benchmark's stored runs kept busy
# (cpus-utilized rounded up), not to one: a runtime that sizes itself to the
# affinity mask (Go's GOMAXPROCS, OpenMP) must run as it did in the stored
# runs. Real programs report what they were given: "threads" spins in two
# pthreads and "single" in one, each appending its sched_getaffinity CPU
# count to a file on every run; "gomaxprocs" (only where `go` is installed)
# spins in two goroutines and appends runtime.GOMAXPROCS(0). Every paired
# run of threads and gomaxprocs must see min(2, CPUs available) CPUs, every
# one of single 1; the text report says "pinned to CPUs 0-1" (or "CPU N"),
# the JSON has them in "cpus"; --confirm-cpus 1 pins threads to one CPU, and
# so does its perfgate.json "confirm_cpus": 1 (0 is refused, exit 2).
set -eu
# shellcheck source=tests/confirm/lib.sh
. "$(dirname "$0")/lib.sh"
avail=$(nproc)
want2=$((avail < 2 ? avail : 2))

scratch
mkdir "$dir/repo" "$dir/out"
cd "$dir/repo"
git init -q -b main .
git config user.name t
git config user.email t@t
git config commit.gpgsign false
mkdir src bench
build="cc -O1 -o bench/threads src/threads.c -pthread && cc -O1 -o bench/single src/single.c"
benches='{"name": "threads", "argv": ["./threads", "'"$dir"'/out/threads"]},
    {"name": "single", "argv": ["./single", "'"$dir"'/out/single"]}'
printf 'bench/threads\nbench/single\nbench/gomaxprocs\n.perfgate/\n' >.gitignore
if command -v go >/dev/null 2>&1; then
        # a private build cache: HOME may not be writable; no toolchain download
        export GOCACHE="$dir/gocache" GOTOOLCHAIN=local GOFLAGS= GO111MODULE=off
        build="$build && go build -o bench/gomaxprocs src/gomaxprocs.go"
        benches="$benches"',
    {"name": "gomaxprocs", "argv": ["./gomaxprocs", "'"$dir"'/out/gomaxprocs"]}'
        cat >src/gomaxprocs.go <<'GO'
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
)

var sink [2]uint64

func main() {
	var wg sync.WaitGroup
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func(g int) {
			x := uint64(1)
			for i := 0; i < 40000000; i++ {
				x = x*6364136223846793005 + 1
			}
			sink[g] = x
			wg.Done()
		}(g)
	}
	wg.Wait()
	f, err := os.OpenFile(os.Args[1], os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		panic(err)
	}
	fmt.Fprintln(f, runtime.GOMAXPROCS(0))
	f.Close()
}
GO
else
        echo "note: no go here: the GOMAXPROCS part is skipped"
fi
cat >bench/perfgate.json <<JSON
{
  "build": "$build",
  "defaults": { "repeat": 5, "warmup": 0 },
  "benchmarks": [
    $benches
  ]
}
JSON
# spin(): about 40 ms of multiplicative congruential steps
cat >src/spin.h <<'C'
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
static unsigned long long spin(unsigned long long n)
{
        volatile unsigned long long x = 1;
        for (unsigned long long i = 0; i < n; i++)
                x = x * 6364136223846793005ull + 1;
        return x;
}
/* append this process's affinity CPU count to @path */
static void report(const char *path)
{
        cpu_set_t s;
        FILE *f = fopen(path, "a");
        if (!f || sched_getaffinity(0, sizeof(s), &s) != 0)
                exit(3);
        fprintf(f, "%d\n", CPU_COUNT(&s));
        if (fclose(f) != 0)
                exit(3);
}
C
cat >src/threads.c <<'C'
#include "spin.h" /* first: it defines _GNU_SOURCE */
#include <pthread.h>
static void *worker(void *arg)
{
        (void) arg;
        spin(40000000);
        return NULL;
}
int main(int argc, char **argv)
{
        pthread_t t[2];
        for (int i = 0; i < 2; i++)
                if (pthread_create(&t[i], NULL, worker, NULL) != 0)
                        return 2;
        for (int i = 0; i < 2; i++)
                pthread_join(t[i], NULL);
        report(argc > 1 ? argv[1] : "/dev/null");
        return 0;
}
C
cat >src/single.c <<'C'
#include "spin.h"
int main(int argc, char **argv)
{
        spin(40000000);
        report(argc > 1 ? argv[1] : "/dev/null");
        return 0;
}
C
git add -A
git commit -qm base
sh -c "$build"
"$pg" run bench/ -q --no-profile
uptime
# The stored cpus-utilized (task-clock / wall time) of each run, as an idle
# 2-CPU machine records it (two spinning threads: 1.9-2.0; one: at most
# 1.0). Measured here it depends on the load of the machine running the
# tests: the threads wait for a CPU while the wall clock runs (on this
# project's shared VM, loaded by other jobs: 0.16-0.19 for threads), and
# what is under test is what --confirm makes of the stored value.
set_used() {
        jq --argjson v "$2" '.metrics["cpus-utilized"].values |= map($v)' \
                ".perfgate/results/$1.json" >used.tmp
        mv used.tmp ".perfgate/results/$1.json"
}
set_used threads 1.96
set_used single 0.99
[ ! -f .perfgate/results/gomaxprocs.json ] || set_used gomaxprocs 1.93
"$pg" baseline save >/dev/null

# every line of $dir/out/$1 is $2 (and there are at least 18: two warmups
# and 8 pairs)
all_are() {
        n=$(wc -l <"$dir/out/$1")
        other=$(grep -cvx "$2" "$dir/out/$1" || true)
        [ "$n" -ge 18 ] && [ "$other" -eq 0 ] ||
                { sort "$dir/out/$1" | uniq -c >&2; fail "$1: $n runs, $other not seeing $2 CPUs$3"; }
}

rm -f "$dir/out/"*
rc=0
"$pg" compare main --confirm=all --confirm-budget 8 --json v.json >out.txt 2>err.txt || rc=$?
[ "$rc" -le 1 ] || { cat out.txt err.txt >&2; fail "compare --confirm exit $rc"; }
cat out.txt
used() { jq -c '.metrics["cpus-utilized"].values' ".perfgate/results/$1.json"; }
all_are threads "$want2" " (stored cpus-utilized: $(used threads))"
all_are single 1 " (stored cpus-utilized: $(used single))"
if command -v go >/dev/null 2>&1; then
        all_are gomaxprocs "$want2" " (GOMAXPROCS; stored cpus-utilized: $(used gomaxprocs))"
fi
s=$([ "$want2" -gt 1 ] && echo s || true)
grep -q "^perfgate: confirming 'threads'.*pinned to CPU$s [0-9]" err.txt ||
        { cat err.txt >&2; fail "progress does not say which CPUs threads was pinned to"; }
# the benchmark's confirmation line follows its verdict line
confirm_line() { grep -A3 "^[a-z]* *$1 " out.txt | grep "confirmed\|unconfirmed" | head -1; }
confirm_line threads | grep -q ", pinned to CPU$s [0-9]" ||
        { cat out.txt >&2; fail "the report does not say threads was pinned to $want2 CPUs"; }
confirm_line single | grep -q ", pinned to CPU [0-9]" ||
        { cat out.txt >&2; fail "the report does not say single was pinned to one CPU"; }
jq -e --argjson n "$want2" '[.benchmarks[] | {key: .name, value: (.confirm.cpus | length)}] |
        from_entries | .threads == $n and .single == 1 and (.gomaxprocs // $n) == $n' v.json \
        >/dev/null || { jq -c '.benchmarks[] | [.name, .confirm.cpus, .confirm.cpu]' v.json >&2;
                        fail "JSON cpus"; }
# and the report validates against the verdict schema (where ajv is installed:
# tests/node/install.sh)
ajv="$here/../node/node_modules/.bin/ajv"
if [ -x "$ajv" ]; then
        "$ajv" validate --spec=draft7 -s "$here/../golden/compare/verdict.schema.json" -d v.json ||
                fail "the JSON report does not validate against verdict.schema.json"
fi

# the override: one CPU for every benchmark
rm -f "$dir/out/"*
rc=0
"$pg" compare main --confirm=all --confirm-budget 8 --confirm-cpus 1 >out.txt 2>err.txt || rc=$?
[ "$rc" -le 1 ] || { cat out.txt err.txt >&2; fail "compare --confirm-cpus 1 exit $rc"; }
all_are threads 1 " with --confirm-cpus 1"
# more CPUs than are allowed: pinned to all of them, and said so (stderr,
# the report's confirmation line, the JSON note)
rm -f "$dir/out/"*
rc=0
many=$((avail + 1))
"$pg" compare main --confirm=all --confirm-budget 8 --confirm-cpus "$many" --json many.json \
        >out.txt 2>err.txt || rc=$?
[ "$rc" -le 1 ] || { cat out.txt err.txt >&2; fail "compare --confirm-cpus $many exit $rc"; }
all_are threads "$avail" " with --confirm-cpus $many"
s=$([ "$avail" -gt 1 ] && echo "s are" || echo " is")
clamped="--confirm-cpus $many: only $avail CPU$s allowed here (CPUs* [0-9][-,0-9]*); pinned to"
grep -q "^perfgate: warning: 'threads': $clamped" err.txt ||
        { cat err.txt >&2; fail "--confirm-cpus $many: stderr does not say it was clamped"; }
confirm_line threads | grep -q -e "$clamped" ||
        { cat out.txt >&2; fail "--confirm-cpus $many: the report does not say it was clamped"; }
jq -r '.benchmarks[] | select(.name == "threads") | .confirm.note' many.json | grep -q "^$clamped" ||
        { jq -c '.benchmarks[].confirm' many.json >&2; fail "--confirm-cpus $many: JSON note"; }
rc=0
"$pg" compare main --confirm --confirm-cpus 0 >out.txt 2>err.txt || rc=$?
[ "$rc" -eq 2 ] && grep -q "\-\-confirm-cpus '0' is not a number of CPUs" err.txt ||
        { cat err.txt >&2; fail "--confirm-cpus 0: exit $rc, expected 2 with a message"; }

# perfgate.json's "confirm_cpus" (what a CI job, whose command line is the
# script's, can set): one CPU for threads alone
jq '(.benchmarks[] | select(.name == "threads")) += {"confirm_cpus": 1}' bench/perfgate.json \
        >cfg.tmp
cp bench/perfgate.json cfg.orig
mv cfg.tmp bench/perfgate.json
rm -f "$dir/out/"*
rc=0
"$pg" compare main --confirm=all --confirm-budget 8 >out.txt 2>err.txt || rc=$?
[ "$rc" -le 1 ] || { cat out.txt err.txt >&2; fail "compare with confirm_cpus 1 exit $rc"; }
all_are threads 1 " with \"confirm_cpus\": 1"
all_are single 1 " (no confirm_cpus)"
# a bad count is refused, naming the key
jq '.defaults.confirm_cpus = 0' cfg.orig >bench/perfgate.json
rc=0
"$pg" compare main --confirm >out.txt 2>err.txt || rc=$?
[ "$rc" -eq 2 ] && grep -q 'confirm_cpus.*must be a whole number of CPUs from 1 to 4096' err.txt ||
        { cat err.txt >&2; fail "\"confirm_cpus\": 0: exit $rc, expected 2 with a message"; }
mv cfg.orig bench/perfgate.json
echo "ok: threads pinned to $want2 CPUs, single to 1, threads to 1 by \"confirm_cpus\""
