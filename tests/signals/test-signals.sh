#!/usr/bin/env bash
# test-signals.sh PERFGATE STALL_SO [LIMITS] - SIGINT, SIGTERM and SIGHUP end
# every command with status 130 and "interrupted", leaving no temporary behind
# (README, "Exit status"; docs/limits.md, "Interrupted runs and partial
# files"):
#   1. flamegraph, diff, compare's reports, history --html: the signal lands
#      while a temporary exists (the shim holds the process at the fsync of
#      the first one, or at the site's first page): exit 130, no
#      <file>.tmp.* or .perfgate-site-* left,
#      the old output untouched;
#   2. baseline save signalled while libgit2 holds the data branch's ref
#      lock: the update completes, the lock is gone, exit 130, and the next
#      save works;
#   3. a SIGHUP inherited as ignored (nohup) stays ignored;
#   4. out of memory under an address-space limit: exit 4 with the
#      ulimit -v hint, no abort (134);
#   5. out of descriptors under a small ulimit -n: exit 4 and the hint to
#      raise it on every path;
#   6. two runs into one --out: the second is refused (exit 2) while the
#      first runs; the first keeps its log and its own failure message;
#      compare, show and baseline save refuse the half-written directory
#      (exit 2, naming the run's pid); a run waits for a reader to end;
#   7. compare --confirm signalled while it builds the base commit: exit
#      130, and the build (its own process group) is stopped with it; a
#      second compare --confirm in the same checkout meanwhile is refused;
#   8. past a file-size limit (ulimit -f; docker --ulimit fsize) every
#      writing command fails with exit 4 and "File too large", leaving no
#      temporary, instead of dying of SIGXFSZ (exit 153); a benchmark that
#      writes past it still dies of SIGXFSZ (exit 3).
#   9. a full disk (as root: a 1 MiB tmpfs filled with fallocate to leave
#      0 or a few KiB): flamegraph, compare's report, history --html and
#      run exit 4, say what was not saved and to free some space, leave no
#      temporary, and the previous file or site is untouched.
# LIMITS 0 skips 4 and 5 (a sanitizer build cannot run under those limits).
# The shim (tests/fixtures/signals/stall.c) creates a mark file when it holds
# the process; the test signals on the mark, never after a guessed sleep.
. "${PG_SOURCE_DIR:-$(dirname "$0")/../..}/tests/ci/lib.sh"

pg=${1:?usage: test-signals.sh PERFGATE STALL_SO}
shim=${2:?usage: test-signals.sh PERFGATE STALL_SO}
limits=${3:-1}
export PERFGATE_NO_UPDATE_CHECK=1
mark=$scratch/mark

. "$(dirname "${BASH_SOURCE[0]}")/stall-lib.sh"
leftovers() { find "$@" -name '*.tmp.*' -o -name '.perfgate-site-*' | sort; }

cd "$scratch" || exit 1
mkdir -p p/bench && cd p || exit 1
git init -q -b main .
printf '#!/bin/sh\ni=0; while [ $i -lt 3000 ]; do i=$((i+1)); done\n' >bench/spin
chmod +x bench/spin
printf '.perfgate/\nout/\nrep/\nsite/\n' >.gitignore
git add -A && git commit -qm one
"$pg" run -q --repeat 2 bench/spin 2>"$scratch/run.err" || {
        fail "perfgate run: $(cat "$scratch/run.err")"
        finish
}
mkdir -p out rep
printf 'main;a;b 30\nmain;a;c 20\nmain;d 10\n' >base.folded
printf 'main;a;b 40\nmain;a;c 10\nmain;e 15\n' >head.folded

# ---- 1. commands that write files ----------------------------------------
for sig in INT TERM HUP; do
        echo old >out/fg.svg
        stalled "$sig" PG_STALL_FSYNC=1 -- "$pg" flamegraph .perfgate/results/spin.json -o out/fg.svg
        check_eq "1. flamegraph, SIG$sig: exit 130" 130 "$st"
        check_grep "1. flamegraph, SIG$sig: says interrupted" "interrupted (SIG$sig)" "$scratch/err"
        check_eq "1. flamegraph, SIG$sig: no temporary left" "" "$(leftovers out)"
        check_eq "1. flamegraph, SIG$sig: the old file untouched" old "$(cat out/fg.svg)"
done
stalled TERM PG_STALL_FSYNC=1 -- "$pg" diff base.folded head.folded -o out/d.svg
check_eq "1. diff, SIGTERM: exit 130" 130 "$st"
check_eq "1. diff, SIGTERM: no temporary left, no output" "" "$(leftovers out; ls out/d.svg 2>/dev/null)"
for sig in TERM INT; do
        stalled "$sig" PG_STALL_FSYNC=1 -- "$pg" compare ./.perfgate/results --markdown rep/c.md \
                --json rep/c.json --junit rep/j.xml
        check_eq "1. compare reports, SIG$sig: exit 130" 130 "$st"
        check_eq "1. compare reports, SIG$sig: no temporary left" "" "$(leftovers rep)"
done

# ---- 2. baseline save inside the ref lock --------------------------------
"$pg" baseline save >"$scratch/save.out" 2>&1
check_eq "2. first save: exit 0" 0 $?
old_tip=$(git rev-parse perfgate-baselines)
git commit -q --allow-empty -m two
"$pg" run -q --repeat 2 bench/spin 2>/dev/null
for sig in TERM; do
        stalled "$sig" PG_STALL_OPEN=refs/heads/perfgate-baselines.lock -- "$pg" baseline save
        check_eq "2. save, SIG$sig in the ref lock: exit 130" 130 "$st"
        check_grep "2. save, SIG$sig: says interrupted" "interrupted (SIG$sig)" "$scratch/err"
        check_eq "2. save, SIG$sig: no lock left" "" "$(ls .git/refs/heads/*.lock 2>/dev/null)"
done
new_tip=$(git rev-parse perfgate-baselines)
check "2. the ref update finished before the exit" [ "$new_tip" != "$old_tip" ]
check_eq "2. the new tip files HEAD's baseline" "$(git rev-parse --short=12 HEAD)" \
        "$(git ls-tree -r --name-only perfgate-baselines | grep -o "$(git rev-parse HEAD)" | sort -u | cut -c1-12)"
check "2. git fsck is clean" git fsck --no-progress --no-dangling
git commit -q --allow-empty -m three
"$pg" run -q --repeat 2 bench/spin 2>/dev/null
"$pg" baseline save >"$scratch/save.out" 2>&1
check_eq "2. the next save works: exit 0" 0 $?

# ---- 1b. history --html --------------------------------------------------
for sig in TERM HUP; do
        stalled "$sig" PG_STALL_OPEN=/index.html -- "$pg" history --html site
        check_eq "1. history --html, SIG$sig: exit 130" 130 "$st"
        check_eq "1. history --html, SIG$sig: no partial site left" "" "$(leftovers . ; ls -d site 2>/dev/null)"
done

# ---- 3. nohup: an ignored SIGHUP stays ignored ---------------------------
rm -f "$mark"
(
        trap '' HUP
        exec env LD_PRELOAD="$shim" PG_STALL_MARK="$mark" PG_STALL_FSYNC=1 \
                "$pg" flamegraph .perfgate/results/spin.json -o out/fg.svg 2>"$scratch/err"
) &
pid=$!
for _ in $(seq 600); do [ -e "$mark" ] || sleep 0.05; done
kill -HUP "$pid"
kill -TERM "$pid"
wait "$pid"
check_eq "3. nohup: SIGHUP ignored, SIGTERM then exits 130" 130 $?
check_grep "3. nohup: it was SIGTERM that ended it" "interrupted (SIGTERM)" "$scratch/err"

if [ "$limits" = 1 ]; then
# ---- 4. out of memory ----------------------------------------------------
awk 'BEGIN { for (i = 0; i < 400000; i++) printf "main;fn_%d;leaf_%d %d\n", i, i % 977, i % 50 + 1 }' >big.folded
(
        ulimit -c 0 -v 65536
        exec "$pg" flamegraph big.folded -o out/big.svg 2>"$scratch/oom.err"
)
st=$?
check_eq "4. out of memory: exit 4, not an abort" 4 "$st"
check_grep "4. out of memory: names the limit to raise" "raise the address-space limit (ulimit -v, now 65536 KiB)" "$scratch/oom.err"
check_eq "4. out of memory: no temporary left" "" "$(leftovers out)"

# ---- 5. out of descriptors -----------------------------------------------
# Each limit stops `run` at another step (the control or ack pipe, the
# descriptors passed to the spawner, the counters): every failure says
# which limit to raise, none is an "Input/output error".
failed=0
for n in $(seq 5 19); do
        (
                ulimit -n "$n"
                exec "$pg" run -q --warmup 0 --repeat 1 --out "$scratch/nf$n" bench/spin
        ) 2>"$scratch/nf.err"
        st=$?
        [ "$st" -eq 0 ] && continue
        failed=$((failed + 1))
        check_eq "5. ulimit -n $n: exit 4" 4 "$st"
        # the error, then the hint (a failed write of the run's marker names
        # the file between them: "'.../.perfgate-run' was not created")
        check_grep "5. ulimit -n $n: says why" "Too many open files; " "$scratch/nf.err"
        check_grep "5. ulimit -n $n: names the limit" "; raise the open-file limit (ulimit -n)" "$scratch/nf.err"
done
check "5. small limits were refused ($failed of 15)" [ "$failed" -ge 3 ]
else
        echo "skip - 4 and 5 (resource limits): not with the sanitizers"
fi

# ---- 6. two runs into one --out ------------------------------------------
# The first run's benchmark says it started, then waits for $scratch/go: the
# second run is refused while the first holds the directory, and the first
# run's live log and its failure message stay its own.
mkdir -p b6
cat >b6/waiter <<EOS
#!/bin/sh
echo "first run, pid \$\$, started"
: >"$scratch/started"
while [ ! -e "$scratch/go" ]; do sleep 0.05; done
echo "first run ends"
kill -SEGV \$\$
EOS
chmod +x b6/waiter
# out6 already holds a result the run leaves alone (spin's): a reader sees
# it and not waiter's, a half-done set that compare would judge and pass.
mkdir -p out6 && cp .perfgate/results/spin.json out6/
"$pg" run -q --warmup 0 --repeat 1 --no-profile --out out6 b6/ 2>"$scratch/a.err" &
a=$!
for _ in $(seq 1200); do [ -e "$scratch/started" ] || sleep 0.05; done
"$pg" run -q --warmup 0 --repeat 1 --no-profile --timeout 20 --out out6 b6/ 2>"$scratch/b.err"
check_eq "6. a second run into the same --out: exit 2" 2 $?
check_grep "6. it says why and what to do" "another perfgate run (pid $a) is writing into 'out6' now" "$scratch/b.err"
check_grep "6. the first run's live log is still there" "first run, pid" out6/waiter.log
# the readers of a results directory refuse it while a run writes into it
# (they take a shared flock(2), the run holds an exclusive one)
"$pg" compare ./.perfgate/results --results out6 >"$scratch/r.out" 2>"$scratch/r.err"
check_eq "6. compare while a run writes its results: exit 2" 2 $?
check_grep "6. compare says a run is writing, and its pid" "a perfgate run (pid $a) is writing into 'out6' now" "$scratch/r.err"
"$pg" show out6 >"$scratch/r.out" 2>"$scratch/r.err"
check_eq "6. show meanwhile: exit 2" 2 $?
check_grep "6. show says why" "a perfgate run (pid $a) is writing into 'out6' now" "$scratch/r.err"
"$pg" baseline save --results out6 --branch pg-locks >"$scratch/r.out" 2>"$scratch/r.err"
check_eq "6. baseline save meanwhile: exit 2" 2 $?
check_grep "6. baseline save says why" "a perfgate run (pid $a) is writing into 'out6' now" "$scratch/r.err"
check_eq "6. and saves nothing" "" "$(git branch --list pg-locks)"
: >"$scratch/go"
wait "$a"
check_eq "6. the first run: its benchmark failed, exit 3" 3 $?
check_grep "6. the first run's message names its log" "its output is in 'out6/waiter.log'" "$scratch/a.err"
check_grep "6. that log holds the first run's whole output" "first run ends" out6/waiter.log
"$pg" compare ./.perfgate/results --results out6 >"$scratch/r.out" 2>"$scratch/r.err"
check_eq "6. compare once the run ended: exit 0" 0 $?
# a reader holding the directory (flock(1) -s, as compare loading it)
# delays a run, never refuses it
rm -f "$scratch/reading" "$scratch/read" "$scratch/started"
flock -s out6 sh -c ": >'$scratch/reading'; sleep 1; : >'$scratch/read'" &
r=$!
for _ in $(seq 200); do [ -e "$scratch/reading" ] || sleep 0.05; done
"$pg" run -q --warmup 0 --repeat 1 --no-profile --out out6 b6/ 2>"$scratch/c.err"
check_eq "6. a run waits for a reader, then runs (its benchmark fails: 3)" 3 $?
check_nogrep "6. and is not refused" "another perfgate" "$scratch/c.err"
wait "$r"
# the benchmark started once the reader was done ('read' is made just
# before flock(1) lets go), not alongside it (nor never)
check "6. the run waited for the reader's end" [ ! "$scratch/started" -ot "$scratch/read" ]

# ---- 7. compare --confirm interrupted while building the base -------------
# The build runs in its own process group (docs/compare.md); an interrupt
# must stop it too, not leave it writing into the build cache.
mkdir -p "$scratch/q/bench" && cd "$scratch/q" || exit 1
git init -q -b main .
printf '#!/bin/sh\ni=0; while [ $i -lt 3000 ]; do i=$((i+1)); done\n' >bench/spin
chmod +x bench/spin
# the late step runs in a grandchild of perfgate's shell, as make's recipes do
printf '#!/bin/sh\n: >"$1/building"\n(sleep 3; : >"$1/LATE")\n' >bench/build.sh
cat >bench/perfgate.json <<EOS
{ "build": "sh bench/build.sh '$scratch'",
  "benchmarks": [{ "name": "spin", "argv": ["./spin"] }] }
EOS
printf '.perfgate/\n' >.gitignore
git add -A && git commit -qm base
"$pg" run -q --repeat 2 --warmup 0 --no-profile bench/ 2>/dev/null && "$pg" baseline save >/dev/null 2>&1
check_eq "7. the base's baseline is stored" 0 $?
git commit -q --allow-empty -m head
"$pg" run -q --repeat 2 --warmup 0 --no-profile bench/ 2>/dev/null
for sig in TERM INT; do
        rm -rf "$scratch/building" "$scratch/LATE" .perfgate/builds
        "$pg" compare HEAD~1 --confirm=all >/dev/null 2>"$scratch/err" &
        pid=$!
        for _ in $(seq 1200); do [ -e "$scratch/building" ] || sleep 0.05; done
        check "7. SIG$sig: the base build started" [ -e "$scratch/building" ]
        if [ "$sig" = TERM ]; then
                "$pg" compare HEAD~1 --confirm=all >/dev/null 2>"$scratch/err2"
                check_eq "7. a second compare --confirm in the same checkout: exit 2" 2 $?
                check_grep "7. it says why and what to do" \
                        "another 'perfgate compare --confirm' is running in" "$scratch/err2"
        fi
        kill -"$sig" "$pid"
        wait "$pid"
        check_eq "7. compare --confirm, SIG$sig during the build: exit 130" 130 $?
        check_grep "7. SIG$sig: says the build was stopped" "interrupted; the build was stopped" "$scratch/err"
        sleep 4
        check "7. SIG$sig: the build did not go on after perfgate ended" [ ! -e "$scratch/LATE" ]
done
cd "$scratch/p" || exit 1

# ---- 8. a file-size limit ------------------------------------------------
echo old >out/fg.svg
(ulimit -f 4; exec "$pg" flamegraph .perfgate/results/spin.json -o out/fg.svg) 2>"$scratch/err"
check_eq "8. flamegraph past ulimit -f: exit 4" 4 $?
check_grep "8. flamegraph: says why" "File too large" "$scratch/err"
check_eq "8. flamegraph: no temporary left, the old file untouched" "old" "$(leftovers out; cat out/fg.svg)"
(ulimit -f 1; exec "$pg" compare ./.perfgate/results --json rep/f.json) >/dev/null 2>"$scratch/err"
check_eq "8. compare --json past ulimit -f: exit 4" 4 $?
check_grep "8. compare: says why" "File too large" "$scratch/err"
check_eq "8. compare: no temporary, no report" "" "$(leftovers rep; ls rep/f.json 2>/dev/null)"
(ulimit -f 1; exec "$pg" run -q --warmup 0 --repeat 1 --out "$scratch/fsz" bench/spin) 2>"$scratch/err"
check_eq "8. run past ulimit -f: exit 4" 4 $?
check_grep "8. run: says why" "File too large" "$scratch/err"
check_eq "8. run: no temporary left" "" "$(leftovers "$scratch/fsz")"
mkdir -p b8
printf '#!/bin/sh\nhead -c 300000 /dev/zero\n' >b8/big
chmod +x b8/big
(ulimit -f 100; exec "$pg" run -q --warmup 0 --repeat 1 --no-profile --out "$scratch/fsz8" b8/) 2>"$scratch/err"
check_eq "8. a benchmark writing past the limit fails: exit 3" 3 $?
check_grep "8. it died of SIGXFSZ, as without perfgate" "SIGXFSZ" "$scratch/err"

# ---- 9. a full disk ------------------------------------------------------
full=$scratch/full
mkdir -p "$full"
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=1m tmpfs "$full" 2>/dev/null; then
        echo "# 9. skipped: mounting a small tmpfs needs root"
        finish
fi
trap 'umount -l "$full" 2>/dev/null; cleanup' EXIT
# fill FREE_KIB: leave that much of the tmpfs free
fill() {
        rm -f "$full/fill"
        local left=$(($(stat -f -c '%a * %S' "$full") - $1 * 1024))
        [ "$left" -le 0 ] || fallocate -l "$left" "$full/fill"
}
# full_disk WHAT: the message of $scratch/err says the disk is full, what
# to do, and (atomic files) that the old one is unchanged
full_disk() {
        check_grep "9. $1: says the disk is full" "No space left on device" "$scratch/err"
        check_grep "9. $1: says what to do" "free some space, then run this again" "$scratch/err"
}
echo old >"$full/fg.svg"
"$pg" compare ./.perfgate/results --json "$full/r.json" >/dev/null 2>&1
cp "$full/r.json" "$scratch/r.json"
"$pg" history --html "$full/site" 2>"$scratch/err" || fail "9. history --html: $(cat "$scratch/err")"
fill 0
"$pg" flamegraph .perfgate/results/spin.json -o "$full/fg.svg" 2>"$scratch/err"
check_eq "9. flamegraph on a full disk: exit 4" 4 $?
full_disk flamegraph
check_grep "9. flamegraph: says the file is unchanged" "'$full/fg.svg' is unchanged" "$scratch/err"
check_eq "9. flamegraph: no temporary left, the old file untouched" "old" "$(leftovers "$full"; cat "$full/fg.svg")"
"$pg" compare ./.perfgate/results --json "$full/r.json" >/dev/null 2>"$scratch/err"
check_eq "9. compare --json on a full disk: exit 4" 4 $?
full_disk "compare --json"
check_grep "9. compare: says the report is unchanged" "'$full/r.json' is unchanged" "$scratch/err"
check "9. compare: no temporary left, the old report untouched" cmp "$scratch/r.json" "$full/r.json"
check_eq "9. compare: no temporary left" "" "$(leftovers "$full")"
"$pg" compare ./.perfgate/results --markdown "$full/new.md" >/dev/null 2>"$scratch/err"
check_eq "9. compare --markdown, a new file on a full disk: exit 4" 4 $?
check_grep "9. compare --markdown: says the report was not created" "'$full/new.md' was not created" "$scratch/err"
check_eq "9. compare --markdown: no file, no temporary" "" "$(leftovers "$full"; ls "$full/new.md" 2>/dev/null)"
fill 8
"$pg" history --html "$full/site" 2>"$scratch/err"
check_eq "9. history --html on a full disk: exit 4" 4 $?
full_disk "history --html"
check_grep "9. history --html: says the site is unchanged" "'$full/site' is unchanged" "$scratch/err"
check_eq "9. history --html: no partial site left" "" "$(leftovers "$full")"
check "9. history --html: the old site is whole" test -s "$full/site/index.html"
fill 0
"$pg" run -q --warmup 0 --repeat 1 --no-profile --out "$full/out" bench/spin 2>"$scratch/err"
check_eq "9. run on a full disk: exit 4" 4 $?
full_disk run
check_grep "9. run: says what it kept" "kept the 0 finished results in '$full/out'" "$scratch/err"
check_eq "9. run: no temporary left" "" "$(leftovers "$full")"
rm -f "$full/fill"
umount "$full"

finish
