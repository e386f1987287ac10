#!/bin/sh
# history-repo.sh REPO COMMITS BENCHMARKS STEP_AT STEP_PCT NOISE_PCT SEED [HUGE_AT]
# Build a git repository at REPO (created) whose branch main has COMMITS
# first-parent commits and whose data branch perfgate-baselines holds a
# baseline of every commit for machine "default": BENCHMARKS benchmarks
# (bench00, bench01, ...), each with task-clock (5 repetitions, about
# 100 ms, relative noise NOISE_PCT percent, Gaussian) and a profile. From
# commit STEP_AT on (1-based; 0: never) bench00 is STEP_PCT percent slower,
# and its function "work" takes the extra samples. SEED seeds awk's rand().
# At commit HUGE_AT (default 0: none) bench01's task-clock is 1.7e308 ns, a
# finite value no chart scale may overflow on.
# Uses git fast-import only: no perfgate code, no checkout.
set -eu
repo=$1 n=$2 nb=$3 step=$4 pct=$5 noise=$6 seed=$7 huge=${8:-0}
git init -q -b main "$repo"
cd "$repo"
awk -v n="$n" 'BEGIN {
  for (i = 1; i <= n; i++) {
    printf "commit refs/heads/main\nmark :%d\ncommitter Dev <dev@example.com> %d +0000\n", i, 1700000000 + 60 * i
    msg = sprintf("change %d", i); printf "data %d\n%s\n", length(msg), msg
    if (i > 1) printf "from :%d\n", i - 1
    body = sprintf("source at commit %d\n", i)
    printf "M 644 inline src.txt\ndata %d\n%s\n", length(body), body
  }
}' | git fast-import --quiet
git rev-list --first-parent --reverse main |
awk -v nb="$nb" -v step="$step" -v pct="$pct" -v noise="$noise" -v seed="$seed" -v huge="$huge" '
function gauss() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand()) }
BEGIN { srand(seed); print "commit refs/heads/perfgate-baselines"
        print "committer perfgate <perfgate@localhost> 1800000000 +0000"
        msg = "perfgate baseline: synthetic history"; printf "data %d\n%s\n", length(msg), msg }
{
  i = NR; sha = $1
  for (b = 0; b < nb; b++) {
    name = sprintf("bench%02d", b)
    f = (b == 0 && step > 0 && i >= step) ? 1 + pct / 100 : 1
    vals = ""
    for (r = 0; r < 5; r++) {
      v = int(100000000 * f * (1 + noise / 100 * gauss()))
      vals = vals (r ? ", " : "") v
    }
    if (b == 1 && i == huge)
      vals = "1.7e308, 1.7e308, 1.7e308, 1.7e308, 1.7e308"
    work = int(300 * f + (f - 1) * 2500)
    j = "{\n  \"counters\": \"software\",\n  \"git\": {\"commit\": \"" sha "\", \"dirty\": false},\n" \
        "  \"machine\": \"default\",\n  \"metrics\": {\n" \
        "    \"task-clock\": {\"unit\": \"ns\", \"values\": [" vals "]}\n  },\n" \
        "  \"name\": \"" name "\",\n" \
        "  \"profile\": {\"call_graph\": \"fp\", \"event\": \"cpu-clock\", \"frequency_hz\": 999, " \
        "\"samples\": " (500 + work) ", \"stacks\": {\"" name ";main;parse\": 400, \"" name \
        ";main;work\": " work ", \"" name ";main;work;helper\": 100}},\n" \
        "  \"repeat\": 5,\n  \"schema\": \"perfgate/result/1\",\n  \"warmup\": 1\n}\n"
    printf "M 644 inline default/%s/%s.json\ndata %d\n%s\n", sha, name, length(j), j
  }
}' | LC_ALL=C git fast-import --quiet
