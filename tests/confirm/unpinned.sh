#!/bin/sh
# unpinned.sh PERFGATE NOPIN_SO - `perfgate compare --confirm` where
# sched_setaffinity(2) is refused (NOPIN_SO, an LD_PRELOAD shim, refuses it
# with EPERM as a restricted container does). The real fallback runs: each
# run's CPU is read from /proc/PID/stat while it runs and pairs are kept
# within one CPU. A 3x slower head must still be confirmed as a regression
# (exit 1), and the report must say that the runs were not pinned: the
# warning on stderr, "unpinned" in the text line, "cpu" and "cpus": null in JSON. A
# pair whose runs were on different CPUs is dropped (pairs_discarded) and
# the budget counts kept pairs: 16 leaves room for the first look's 8.
set -eu
# shellcheck source=tests/confirm/lib.sh
. "$(dirname "$0")/lib.sh"
shim=$2
# only the shim: preloading a sanitizer runtime too would put it into the
# compiler of the base build, whose leak report then fails that build
preload=$shim

# the shim refuses pinning as the kernel would (taskset reports the errno)
# a sanitized perfgate (make test-sanitize) accepts a preloaded library
# that is not ASan's runtime
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
if LD_PRELOAD=$preload taskset -c 0 true 2>/dev/null; then
        fail "taskset could pin with the shim preloaded: the shim does not work"
fi

scratch
cd "$dir"
sh "$here/init-repo.sh"
sh "$here/spin-project.sh"
build() { sh "$here/spin-project.sh" --build; }
git add -A
git commit -qm base
build
"$pg" run bench/ -q --no-profile
"$pg" baseline save >/dev/null
git checkout -q -b head
sh "$here/spin-project.sh" 60000000
git commit -qam head
build
"$pg" run bench/ -q --no-profile

rc=0
LD_PRELOAD=$preload "$pg" compare main --confirm --confirm-budget 16 --json v.json \
        >out.txt 2>err.txt || rc=$?
[ "$rc" -eq 1 ] || { cat out.txt err.txt >&2; fail "exit $rc, expected 1 (confirmed regression)"; }
grep -q "cannot pin benchmarks to a CPU here (sched_setaffinity refused)" err.txt ||
        { cat err.txt >&2; fail "no warning that pinning was refused"; }
grep -q "confirmed regression: +" out.txt || { cat out.txt >&2; fail "no confirmed regression"; }
grep -q "unpinned: pairs kept within one CPU" out.txt ||
        { cat out.txt >&2; fail "the report does not say the runs were unpinned"; }
grep -q "pinned to CPU" err.txt out.txt && fail "progress or report claims the runs were pinned"
jq -e '.benchmarks[] | select(.name == "spin") | .confirm |
        .confirmed == true and .outcome == "regression" and .cpu == null and .cpus == null and
        .pairs >= 8 and .estimate > 1' v.json >/dev/null ||
        { jq '.benchmarks[].confirm' v.json >&2; fail "JSON: not a confirmed, unpinned regression"; }
echo "ok: unpinned confirmation: $(grep -o 'confirmed regression: [^;]*' out.txt)"
