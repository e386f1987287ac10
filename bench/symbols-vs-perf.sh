#!/bin/sh
# symbols-vs-perf.sh [--check] [--names | --same-run] [--programs DIR] [--modes "fp dwarf"] [--freq HZ] [BUILD_DIR]
#
# Differential test of perfgate's symbolization against perf's: each program
# of a matrix (C by gcc and by clang+lld, C++ by g++ and by clang++ with lld,
# Rust by Debian's rustc linked by lld and by bfd, Go by Debian's go; built by
# tests/fixtures/symbols/diff/build.sh into DIR, default BUILD_DIR/symbols-vs-perf)
# is recorded twice by `perf record -e cpu-clock -g` (or --call-graph dwarf),
# folded by `perfgate fold`, and once by `perfgate run`, at the same
# frequency. Per program and mode it prints:
#   samples   samples of perf's first run / of perfgate's profile
#   L1        sum over functions of |self share perf - self share perfgate|
#   L1pp      the same between perf's two runs (perf's own run-to-run distance)
#   big       the largest self-share difference (points) among functions
#             above 5% self in either profile
#   incl      the largest inclusive-share difference (points) among perf's
#             ten functions of highest inclusive share; in fp mode only a
#             shortfall of perfgate's counts: perf has no leaf fixup, so where
#             a leaf without a frame of its own (libc's memcmp, Go runtime
#             helpers, clang's leaves) hides its caller from perf's chain,
#             perfgate's unwinding one step by CFI finds it; "cut" when perf's
#             own stacks stop at the leaf (perf cannot unwind Go code, which
#             has no .eh_frame, in dwarf mode): no reference then
#   unres     self share (%) of unresolved frames ([module], [unknown]):
#             perf / perfgate
#   verdict   ok when L1 <= L1pp + 0.10, big <= 2 and incl <= 3 points
#             beyond perf's own run-to-run difference for that function (or
#             within 3 standard errors of the sampling noise when the sample
#             counts cannot resolve that), and perfgate's unresolved share is
#             at most perf's + 1 point
# A function is the leaf frame: on perfgate's side the last frame that is not
# inlined (_[i]), since perf report attributes inlined code to its symbol;
# perf script prints inlined frames in dwarf mode, folded as _[i] and
# skipped the same way; kernel frames (_[k]) are dropped on both sides, so a
# system call is charged to its user-space caller. Frame names are compared
# as they are, except that an ELF symbol version suffix (cfree@GLIBC_2.2.5)
# is dropped from perf's names, as perfgate drops it (runner/demangle.h).
#
# --names: the verdict judges names only: every function above 5% self in
# perf's profile is a function of perfgate's, every function above 5% in
# perfgate's is one of perf's (a wrongly named frame fails both ways), and
# perfgate's unresolved share is at most perf's + 1 point; the shares are
# still printed. The share criteria above are statistical (a few thousand
# samples of workloads whose own run-to-run L1 is 0.1-0.26) and fail at
# random on a busy machine; `make test` uses --same-run (below).
#
# --same-run: one execution, two samplers. `perfgate run` runs
# `perf record -- PROGRAM`, so perf and perfgate sample the same run of the
# program at the same frequency: the two profiles differ only by which instants each
# sampler hit, so the shares of a function differ by binomial noise alone
# (no run-to-run drift). The verdict then needs no second perf run: every
# function above 5% self in either profile must be in both, its self share
# within 2 points or 4 standard errors of two independent samplings of the
# same distribution (sqrt(p(1-p)(1/na + 1/ng))), the inclusive shares of
# perf's top ten functions likewise (3 points or 4 standard errors; a
# shortfall only, as perfgate's dwarf chains reach _start where perf's stop
# short), perfgate's unresolved share at most perf's + 1 point, and L1
# within 0.10 of L1pp, which is measured against a second run of the program
# under perf alone (perf's own run-to-run distance).
#
# KEEP=DIR (environment): the folded profiles of each row are copied into
# DIR as NAME.MODE.perf.folded and NAME.MODE.perfgate.folded.
#
# --check: a failing row is measured once more (this machine's load moves
# shares by a few points between runs); exit 1 when it fails twice, 77
# (skipped) when perf cannot record here (no perf, or perf_event not
# permitted), with the reason on stderr.
set -eu
check=0 names=0 same=0 programs="" modes="fp dwarf" freq=9999
while [ $# -gt 0 ]; do
  case $1 in
  --check) check=1 ;;
  --names) names=1 ;;
  --same-run) same=1 ;;
  --programs) programs=$2; shift ;;
  --modes) modes=$2; shift ;;
  --freq) freq=$2; shift ;;
  -*) echo "symbols-vs-perf.sh: unknown option $1" >&2; exit 2 ;;
  *) break ;;
  esac
  shift
done
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
pg=$build/perfgate
[ -x "$pg" ] || { echo "symbols-vs-perf.sh: $pg not built (make build)" >&2; exit 2; }
if [ -z "$programs" ]; then
  programs=$build/symbols-vs-perf
  sh "$here/tests/fixtures/symbols/diff/build.sh" "$here/tests/fixtures/symbols/diff" "$programs"
fi
[ -s "$programs/programs.txt" ] || { echo "symbols-vs-perf.sh: no programs in $programs" >&2; exit 2; }
programs=$(cd "$programs" && pwd) # the manifest's argv[0] must not be relative
skip() {
  echo "symbols-vs-perf.sh: skipped: $*" >&2
  exit 77
}
command -v perf >/dev/null 2>&1 || skip "perf is not installed (Debian: linux-perf)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
if ! perf record -q -e cpu-clock -o "$tmp/probe.data" true >"$tmp/probe.log" 2>&1; then
  skip "perf record cannot sample here: $(head -3 "$tmp/probe.log" | tr '\n' ' ')"
fi

# folded stacks -> "name self incl" lines (shares of all samples) for one
# profile, and a "#" line: total samples, share of samples with more than one
# function on the stack (below 0.5: the unwinder stopped at the leaf)
shares() {
  awk '
    { n = split($0, w, " "); c = w[n]; line = substr($0, 1, length($0) - length(c) - 1)
      k = split(line, f, ";"); leaf = ""; depth = 0; delete seen; total += c
      for (i = 2; i <= k; i++) {
        if (f[i] ~ /_\[k\]$/ || f[i] == "[truncated]") continue
        if (f[i] ~ /_\[i\]$/) continue
        sub(/@@?[A-Z][A-Z0-9_.]*$/, "", f[i])
        leaf = f[i]; depth++
        if (!(f[i] in seen)) { seen[f[i]] = 1; incl[f[i]] += c }
      }
      if (leaf == "") leaf = "[kernel]"
      if (depth > 1) deep += c
      self[leaf] += c }
    END { for (n in incl) if (!(n in self)) self[n] = 0
          for (n in self) printf "%s\t%.6f\t%.6f\n", n, self[n] / total, incl[n] / total
          printf "#\t%d\t%.6f\n", total, total ? deep / total : 0 }' "$1"
}

# compare A B C (perf run 1, perf run 2, perfgate) share files -> metrics.
# A share difference passes when within its limit (2 points self, 3 points
# inclusive) beyond perf's own run-to-run difference for that function (as
# the L1 criterion is relative to perf's own L1: GC and scheduling make Go's
# and malloc-heavy work differ between runs), or, when the profiles are too
# small to resolve that, within 3 standard errors of two independent
# samplings (sqrt(p(1-p)(1/na + 1/ng))).
# pg_sample ARGV: one `perfgate run` (one counted run, then its sampling run)
# of a benchmark $name whose argv is ARGV (JSON array items), into $tmp/res;
# its output goes to $tmp/run.log. Returns perfgate's exit status.
pg_sample() {
  printf '{"benchmarks": [{"name": "%s", "argv": [%s]}]}\n' "$name" "$1" >"$tmp/perfgate.json"
  "$pg" run -q --out "$tmp/res" --repeat 1 --warmup 0 --counters software \
    --freq "$freq" --call-graph "$mode" --min-samples 1 "$tmp/perfgate.json" \
    >"$tmp/run.log" 2>&1 </dev/null
}

compare() {
  awk -F '\t' -v mode="$4" -v names_only="$names" -v same="$same" '
    FILENAME == ARGV[1] && $1 == "#" { na = $2; adeep = $3; next }
    FILENAME == ARGV[3] && $1 == "#" { ng = $2; next }
    $1 == "#" { next }
    FILENAME == ARGV[1] { a[$1] = $2; ai[$1] = $3; names[$1] = 1; ina[$1] = 1; next }
    FILENAME == ARGV[2] { b[$1] = $2; bi[$1] = $3; names[$1] = 1; ina[$1] = 1; next }
    { g[$1] = $2; gi[$1] = $3; names[$1] = 1; ing[$1] = 1 }
    function abs(x) { return x < 0 ? -x : x }
    function unres(n) { return n ~ /^\[.*\]$/ && n != "[kernel]" }
    function over(d, p, lim, pp, se) {
      se = (same ? 4 : 3) * sqrt(p * (1 - p) * (1 / na + 1 / ng))
      if (!same) lim += pp
      return d > (lim > se ? lim : se)
    }
    END {
      bigbad = 0; inclbad = 0; namebad = 0
      for (n in names)
        if ((ina[n] && a[n] > 0.05 && !ing[n]) || (ing[n] && g[n] > 0.05 && !ina[n])) {
          namebad = 1; bign = n
        }
      for (n in names) {
        l1 += abs(a[n] - g[n]); l1pp += abs(a[n] - b[n])
        if (a[n] > 0.05 || g[n] > 0.05) {
          d = abs(a[n] - g[n])
          if (d > big) { big = d; bign = n }
          if (over(d, (a[n] + g[n]) / 2, 0.02, abs(a[n] - b[n]))) { bigbad = 1; bign = n; big = d }
        }
        if (unres(n)) { ua += a[n]; ug += g[n] }
      }
      # perf'"'"'s ten functions of highest inclusive share; not comparable when
      # perf'"'"'s unwinder stopped at the leaf (Go without .eh_frame in dwarf mode)
      cut = adeep < 0.5
      for (k = 0; k < 10 && !cut; k++) {
        best = ""; bv = -1
        for (n in ai) if (!(n in used) && !unres(n) && n != "[kernel]" && ai[n] > bv) { best = n; bv = ai[n] }
        if (best == "") break
        used[best] = 1
        # fp: perf has no leaf fixup (a leaf without a frame of its own hides
        # its caller from perf), so only a shortfall of perfgate counts
        # same run: only a shortfall too (perfgate copies more of the stack in
        # dwarf mode, so its chains reach _start where perf'"'"'s stop short)
        d = mode == "fp" || same ? ai[best] - gi[best] : abs(ai[best] - gi[best])
        if (d > incl) { incl = d; incln = best }
        if (over(d, (ai[best] + gi[best]) / 2, 0.03, abs(ai[best] - bi[best]))) { inclbad = 1; incln = best; incl = d }
      }
      ok = l1 <= l1pp + 0.10 && !bigbad && !inclbad && !namebad && ug <= ua + 0.01
      if (names_only) ok = !namebad && ug <= ua + 0.01
      printf "%.3f\t%.3f\t%.1f\t%s\t%.1f/%.1f\t%s\t%s\t%s\n", l1, l1pp, big * 100,
             cut ? "cut" : sprintf("%.1f", incl * 100), ua * 100, ug * 100, ok ? "ok" : "FAIL",
             bign, incln
    }' "$1" "$2" "$3"
}

fail=0
printf '%-20s %-5s %13s %6s %6s %5s %5s %11s %s\n' program mode samples L1 L1pp big incl unres verdict
while read -r name scale; do
  bin=$programs/$name
  for mode in $modes; do
   for attempt in 1 2; do
    cg="-g"
    [ "$mode" = dwarf ] && cg="--call-graph dwarf"
    # perf, perfgate, perf: the two perf runs bracket perfgate's, so perf's
    # own run-to-run distance also holds the drift of this loaded machine
    rounds="1 g 2"
    [ "$same" = 1 ] && rounds="s 2"
    for r in $rounds; do
      if [ "$r" = s ]; then
        # one execution under both samplers: the benchmark's command is
        # `perf record -- PROGRAM`, so perfgate samples perf and its child
        # while perf samples the child alone (perf script then never meets
        # perfgate's own mappings: perf 6.1's perf script aborts on them now
        # and then, "stack smashing detected"). perfgate runs the command
        # twice (the counted run, then its sampling run, runner/run.c): the
        # second run's perf.data is the one left.
        rm -rf "$tmp/res" "$tmp/p1.data"
        cgj='"-g"'
        [ "$mode" = dwarf ] && cgj='"--call-graph", "dwarf"'
        # -B: no build-id collection when perf record ends (perf 6.1 aborts
        # in it now and then, "assertion failed at util/build-id.c")
        perfrc=0
        if ! pg_sample "\"perf\", \"record\", \"-q\", \"-B\", \"-e\", \"cpu-clock\", \"-F\", \"$freq\", $cgj, \"-o\", \"$tmp/p1.data\", \"--\", \"$bin\", \"$scale\""; then
          # perf record itself crashing is perf's failure (the row is
          # measured again); anything else is perfgate's
          grep -q "was killed by signal" "$tmp/run.log" || { cat "$tmp/run.log" >&2; exit 4; }
          grep "was killed by signal" "$tmp/run.log" | head -1 >"$tmp/p1.err"
          perfrc=record
          : >"$tmp/p1.folded"
          : >"$tmp/g.folded"
        fi
        # --no-inline: perf 6.1 drops the leaf frame of some dwarf-mode
        # samples when it adds inlined frames (a sample in glibc's memmove
        # called from Rust code is printed with the caller as its leaf); the
        # inlined frames are not compared anyway (above)
        if [ "$perfrc" = 0 ]; then
          perf script --no-inline -i "$tmp/p1.data" >"$tmp/p1.txt" 2>"$tmp/p1.err" || perfrc=$?
          "$pg" fold -q --kernel --inlined --weight samples "$tmp/p1.txt" >"$tmp/p1.folded"
        fi
        shares "$tmp/p1.folded" >"$tmp/p1.shares"
        # perfgate's profile of the child alone (perf's own stacks have
        # the root perf or perf-exec)
        [ "$perfrc" = record ] ||
          { "$pg" show --stacks "$tmp/res/$name.json" | grep -v '^perf\(-exec\)\?;' >"$tmp/g.folded" || true; }
        shares "$tmp/g.folded" >"$tmp/g.shares"
        continue
      fi
      if [ "$r" = g ]; then
        rm -rf "$tmp/res"
        pg_sample "\"$bin\", \"$scale\"" || { cat "$tmp/run.log" >&2; exit 4; }
        "$pg" show --stacks "$tmp/res/$name.json" >"$tmp/g.folded"
        shares "$tmp/g.folded" >"$tmp/g.shares"
        continue
      fi
      # -B as above; perf record crashing (killed by a signal: perf 6.1's
      # build-id or stack-smashing aborts) is perf's failure: once more
      for try in 1 2; do
        prc=0
        # shellcheck disable=SC2086
        perf record -q -B -e cpu-clock -F "$freq" $cg -o "$tmp/p$r.data" "$bin" "$scale" \
          >/dev/null 2>"$tmp/p$r.log" || prc=$?
        [ "$prc" -gt 128 ] && [ "$try" = 1 ] && continue
        break
      done
      [ "$prc" = 0 ] || { echo "perf record exited $prc:" >&2; cat "$tmp/p$r.log" >&2; exit 4; }
      perf script -i "$tmp/p$r.data" 2>/dev/null |
        "$pg" fold -q --kernel --inlined --weight samples >"$tmp/p$r.folded"
      shares "$tmp/p$r.folded" >"$tmp/p$r.shares"
    done
    ps=$(awk '{ s += $NF } END { print s + 0 }' "$tmp/p1.folded")
    gs=$(awk '{ s += $NF } END { print s + 0 }' "$tmp/g.folded")
    m=$(compare "$tmp/p1.shares" "$tmp/p2.shares" "$tmp/g.shares" "$mode")
    if [ "$same" = 1 ] && [ "$perfrc" != 0 ]; then
      m="0	0	0	0	0/0	PERF-FAILED	perf exit $perfrc: $(grep -v 'assertion failed' "$tmp/p1.err" | head -1)	-"
    fi
    if [ -n "${KEEP:-}" ]; then # KEEP=DIR: the folded profiles of each row
      mkdir -p "$KEEP"
      cp "$tmp/p1.folded" "$KEEP/$name.$mode.perf.folded"
      cp "$tmp/g.folded" "$KEEP/$name.$mode.perfgate.folded"
    fi
    echo "$m" | awk -F '\t' -v n="$name" -v mode="$mode" -v s="$ps/$gs" '
      { printf "%-20s %-5s %13s %6s %6s %5s %5s %11s %s", n, mode, s, $1, $2, $3, $4, $5, $6
        if ($6 != "ok") printf " (big: %s; incl: %s)", $7, $8
        printf "\n" }'
    case $m in
    *PERF-FAILED*) [ "$attempt" = 1 ] && continue ;; # perf's crash, not perfgate's
    *FAIL*) [ "$check" = 1 ] && [ "$attempt" = 1 ] && continue
      fail=1 ;;
    esac
    break
   done
  done
done <"$programs/programs.txt"
[ "$check" = 1 ] && [ "$fail" = 1 ] && exit 1
exit 0
