#!/usr/bin/env bash
# startup.sh - what `perfgate run` costs before and around the benchmark.
#
#   bench/startup.sh [-n PAIRS] [-p PERFGATE] [BENCHMARK [ARGS...]]
#
# 1. Exec to first benchmark exec: a tiny static program (built here) that
#    only writes the CLOCK_REALTIME microsecond at which its main() starts is
#    run PAIRS (default 11) times bare and PAIRS times as the one benchmark of
#    `perfgate run --repeat 1 --warmup 0 --no-profile -q`, alternating. Each
#    side's delay is that stamp minus bash's $EPOCHREALTIME just before the
#    exec; the bare side's delay (fork + exec + static start, no dynamic
#    loader) is what any runner pays, so perfgate's start-up tax is the
#    difference of the two medians: everything perfgate does from its own
#    exec to the benchmark's (loading its shared libraries, parsing the
#    manifest, probing the host and perf_event_open, forking). The stamp
#    also reads perfgate's on-CPU time so far (/proc/PPID/schedstat, first
#    field, ns; proc(5)): under perfgate that is the CPU perfgate's main
#    thread spent before the benchmark, a figure a loaded machine disturbs
#    far less than the wall-clock delay.
# 2. The whole-run ratio: bench/overhead.sh on BENCHMARK (default the bundled
#    wordfreq, bench/bin/wordfreq, about 0.2-0.5 s), which measures
#    perfgate/bare and the anchor `perf stat -d -d`/bare in rotating rounds.
# perfgate's stderr (-q keeps warnings, docs/run.md, and --repeat 1 warns
# that one repetition cannot gate) goes to a file, shown when a run fails.
# Figures from a loaded machine are noisy; the load average is printed and
# the medians of paired rounds are what to compare.
set -euo pipefail

pairs=11
here=$(cd "$(dirname "$0")/.." && pwd)
pg="$here/build/perfgate"
while getopts "n:p:h" opt; do
  case $opt in
    n) pairs=$OPTARG ;;
    p) pg=$OPTARG ;;
    h) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [-n PAIRS] [-p PERFGATE] [BENCHMARK [ARGS...]]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
case $pairs in ''|*[!0-9]*|0) echo "startup.sh: -n needs a positive number" >&2; exit 2 ;; esac
[ -x "$pg" ] || { echo "startup.sh: '$pg' is not built (cmake --build build)" >&2; exit 2; }
pg=$(cd "$(dirname "$pg")" && pwd)/$(basename "$pg")
if [ $# -eq 0 ]; then
  set -- "$here/bench/bin/wordfreq"
  [ -x "$1" ] || { echo "startup.sh: '$1' is not built (cmake --build build)" >&2; exit 2; }
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-cc}
cat >"$tmp/stamp.c" <<'CEOF'
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
        struct timespec ts;
        char buf[96], path[64];
        long long cpu = -1;
        int fd, n;
        FILE *f;
        clock_gettime(CLOCK_REALTIME, &ts);
        if (argc < 2)
                return 2;
        /* the nearest ancestor named perfgate (it may launch through a helper) */
        for (int pid = (int) getppid(), up = 0; pid > 1 && up < 4; up++) {
                char comm[32] = "";
                int ppid = 0;
                snprintf(path, sizeof(path), "/proc/%d/comm", pid);
                if ((f = fopen(path, "r")) != NULL) {
                        if (!fgets(comm, sizeof(comm), f))
                                comm[0] = '\0';
                        fclose(f);
                }
                if (strcmp(comm, "perfgate\n") == 0) {
                        snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
                        if ((f = fopen(path, "r")) != NULL) {
                                if (fscanf(f, "%lld", &cpu) != 1)
                                        cpu = -1;
                                fclose(f);
                        }
                        break;
                }
                snprintf(path, sizeof(path), "/proc/%d/stat", pid);
                if ((f = fopen(path, "r")) == NULL)
                        break;
                if (fscanf(f, "%*d (%*[^)]) %*c %d", &ppid) != 1)
                        ppid = 0;
                fclose(f);
                pid = ppid;
        }
        n = snprintf(buf, sizeof(buf), "%lld %lld\n",
                     (long long) ts.tv_sec * 1000000 + ts.tv_nsec / 1000, cpu);
        fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || write(fd, buf, (size_t) n) != n)
                return 1;
        return close(fd) != 0;
}
CEOF
static=-static
"$cc" -O2 $static -o "$tmp/stamp" "$tmp/stamp.c" 2>/dev/null ||
  { static=""; "$cc" -O2 -o "$tmp/stamp" "$tmp/stamp.c"; }
printf '{"benchmarks": [{"name": "stamp", "argv": ["%s", "%s"]}]}\n' \
  "$tmp/stamp" "$tmp/t.pg" >"$tmp/manifest.json"

now_us() { local t=$EPOCHREALTIME; echo $(( ${t%[.,]*} * 1000000 + 10#${t#*[.,]} )); }
bare_delay() {
  local t0
  t0=$(now_us)
  "$tmp/stamp" "$tmp/t.bare"
  read -r t _ <"$tmp/t.bare"
  echo $(( t - t0 ))
}
pg_delay() {
  local t0
  t0=$(now_us)
  "$pg" run --repeat 1 --warmup 0 --no-profile -q --out "$tmp/out" "$tmp/manifest.json" \
    2>"$tmp/pg.err" || { cat "$tmp/pg.err" >&2; echo "startup.sh: perfgate run failed" >&2; exit 3; }
  read -r t c <"$tmp/t.pg"
  echo "$(( t - t0 )) $c"
}
median() {
  sort -n | awk '{ v[NR] = $1 }
    END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

bare_delay >/dev/null
pg_delay >/dev/null
bares=()
pgs=()
cpus=()
for ((i = 1; i <= pairs; i++)); do
  if ((i % 2)); then b=$(bare_delay); pc=$(pg_delay); else pc=$(pg_delay); b=$(bare_delay); fi
  p=${pc% *}
  c=${pc#* }
  bares+=("$b")
  pgs+=("$p")
  cpus+=("$c")
  printf 'pair %2d: exec to benchmark main(): bare %6d us  under perfgate run %6d us (perfgate on CPU %6d us)\n' \
    "$i" "$b" "$p" "$((c / 1000))"
done
mb=$(printf '%s\n' "${bares[@]}" | median)
mp=$(printf '%s\n' "${pgs[@]}" | median)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (a loaded machine: medians of pairs)"
echo "median exec to benchmark main(): bare $mb us (fork + exec${static:+ of a static program}), under perfgate $mp us"
awk -v b="$mb" -v p="$mp" 'BEGIN { printf "perfgate start-up before the benchmark: %.2f ms wall (median difference)\n", (p - b) / 1000 }'
awk -v c="$(printf '%s\n' "${cpus[@]}" | median)" \
  'BEGIN { printf "perfgate on CPU before the benchmark: %.2f ms (median; its main thread)\n", c / 1e6 }'
echo
echo "whole run, bench/overhead.sh -n $pairs $*:"
"$here/bench/overhead.sh" -n "$pairs" -p "$pg" "$@"
