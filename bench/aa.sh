#!/bin/sh
# aa.sh - A/A noise check for perfgate compare's defaults (docs/compare.md).
#
#   bench/aa.sh [-a] [-n RUNS] [-p PERFGATE] [-o WORKDIR] [PATH]
#   bench/aa.sh [-a] [-p PERFGATE] --dirs DIR1 DIR2 ...
#
# Runs the same benchmarks RUNS times (default 20) with `perfgate run PATH`
# (PATH: a directory of executables or a perfgate.json; default bench/),
# then compares every run with the first one through `perfgate compare`,
# exactly as CI compares a pull request with a recorded baseline. Nothing
# changed between the runs, so every reported regression is a false alarm.
# With -a, every run is compared with every earlier one (RUNS x (RUNS-1) / 2
# comparisons). With --dirs, the result directories already exist (e.g.
# collected on a CI runner) and are compared the same way, DIR1 being the
# baseline.
#
# Prints the machine's uptime (load average) before and after, then, per
# metric, the largest |change| seen (relative, and in percentage points for
# rates) next to the threshold in force: the noise the defaults must clear;
# and how many benchmark comparisons had a load note (a side on a saturated
# runner, or clearly busier). Exit status: 0 when no comparison reported a
# regression, 1 when one did (the defaults are too tight for this machine),
# 2 on bad usage, 4 when perfgate itself failed.
set -eu

runs=20
pg=""
work=""
mode=run
pairs=first
here=$(cd "$(dirname "$0")/.." && pwd)

usage() {
        sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//' >&2
        exit 2
}

while [ $# -gt 0 ]; do
        case $1 in
        -a) pairs=all; shift ;;
        -n) [ $# -ge 2 ] || usage; runs=$2; shift 2 ;;
        -p) [ $# -ge 2 ] || usage; pg=$2; shift 2 ;;
        -o) [ $# -ge 2 ] || usage; work=$2; shift 2 ;;
        --dirs) mode=dirs; shift; break ;;
        -h | --help) usage ;;
        -*) echo "aa.sh: unknown option '$1'" >&2; usage ;;
        *) break ;;
        esac
done

if [ -z "$pg" ]; then
        for cand in "$here/build/perfgate" "$(command -v perfgate 2>/dev/null || true)"; do
                if [ -n "$cand" ] && [ -x "$cand" ]; then pg=$cand; break; fi
        done
fi
[ -n "$pg" ] && [ -x "$pg" ] || { echo "aa.sh: no perfgate binary; build it or pass -p PATH" >&2; exit 2; }
command -v node >/dev/null 2>&1 || { echo "aa.sh: needs node to summarise the JSON verdicts (ci/install-deps.sh test)" >&2; exit 2; }
case $runs in '' | *[!0-9]*) echo "aa.sh: -n '$runs' is not a number" >&2; exit 2 ;; esac
[ "$runs" -ge 2 ] || { echo "aa.sh: -n needs at least 2 runs" >&2; exit 2; }

[ -n "$work" ] || work=$(mktemp -d "${TMPDIR:-/tmp}/perfgate-aa.XXXXXX")
mkdir -p "$work"

echo "aa.sh: before: $(uptime)" >&2
dirs=""
if [ "$mode" = dirs ]; then
        [ $# -ge 2 ] || { echo "aa.sh: --dirs needs at least two result directories" >&2; exit 2; }
        for d in "$@"; do
                [ -d "$d" ] || { echo "aa.sh: '$d' is not a directory" >&2; exit 2; }
                dirs="$dirs $(cd "$d" && pwd)"
        done
else
        path=${1:-$here/bench}
        i=1
        while [ "$i" -le "$runs" ]; do
                echo "aa.sh: run $i/$runs: perfgate run $path" >&2
                if ! "$pg" run -q --out "$work/run$i" "$path" >"$work/run$i.log" 2>&1; then
                        echo "aa.sh: 'perfgate run' failed (see $work/run$i.log):" >&2
                        tail -n 5 "$work/run$i.log" >&2
                        exit 4
                fi
                dirs="$dirs $work/run$i"
                i=$((i + 1))
        done
fi

echo "aa.sh: after: $(uptime)" >&2
n=0
regressions=0
# compare BASE HEAD: one comparison, counted
compare() {
        n=$((n + 1))
        status=0
        "$pg" compare "$1" --results "$2" --json "$work/verdict$n.json" >"$work/compare$n.txt" 2>&1 || status=$?
        case $status in
        0) ;;
        1) regressions=$((regressions + 1))
           echo "aa.sh: FALSE ALARM in comparison $n ($1 -> $2):" >&2
           cat "$work/compare$n.txt" >&2 ;;
        *) echo "aa.sh: 'perfgate compare' failed with status $status:" >&2
           cat "$work/compare$n.txt" >&2
           exit 4 ;;
        esac
}
set -- $dirs
while [ $# -ge 2 ]; do
        base=$1
        shift
        for d in "$@"; do
                compare "$base" "$d"
        done
        [ "$pairs" = all ] || break
done

node - "$work" "$n" <<'EOF'
const fs = require("fs");
const [work, n] = process.argv.slice(2);
const seen = {};
let inconclusive = 0, benches = 0, loadnotes = 0;
for (let i = 1; i <= Number(n); i++) {
  const v = JSON.parse(fs.readFileSync(`${work}/verdict${i}.json`, "utf8"));
  inconclusive += v.counts.inconclusive;
  for (const b of v.benchmarks) {
    benches++;
    if ((b.host_notes || []).some((x) => x.kind === "load")) loadnotes++;
    for (const m of b.metrics) {
      const s = seen[m.metric] || (seen[m.metric] = { rel: 0, pp: 0, n: 0, thr: m.threshold, gate: m.gate });
      if (m.change.relative !== null) s.rel = Math.max(s.rel, Math.abs(m.change.relative));
      if (m.change.points !== null && m.threshold.kind === "points") s.pp = Math.max(s.pp, Math.abs(m.change.points));
      s.n++;
    }
  }
}
const pad = (x, w) => String(x).padEnd(w);
console.log(`A/A: ${n} comparisons, ${benches} benchmark comparisons, ${inconclusive} inconclusive, ${loadnotes} with a load note`);
console.log(pad("metric", 24) + pad("max |change|", 16) + pad("threshold", 12) + "gates");
for (const k of Object.keys(seen).sort()) {
  const s = seen[k];
  const ch = s.thr.kind === "points" ? `${s.pp.toFixed(3)} pp` : `${(100 * s.rel).toFixed(2)}%`;
  const th = s.thr.kind === "points" ? `${s.thr.value} pp` : `${(100 * s.thr.value).toFixed(1)}%`;
  console.log(pad(k, 24) + pad(ch, 16) + pad(th, 12) + (s.gate ? "yes" : "no"));
}
EOF
echo "A/A: $regressions of $n comparisons reported a regression (work files in $work)"
[ "$regressions" -eq 0 ]
