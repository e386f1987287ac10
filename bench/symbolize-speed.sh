#!/bin/sh
# symbolize-speed.sh [BUILD_DIR] [SAMPLES] [fp|dwarf]
# Records sampling runs of a two-thread fixture at 20 kHz until SAMPLES
# (default 50000) samples are buffered (recording is not timed), then times
# sorting, symbolizing (libdwfl, inlines, libc debuginfo) and folding all of
# them in one pass, as pg_sample_profile() does after each run. Goal: under
# 0.1 s for 50,000 samples.
set -eu
build=${1:-build}
n=${2:-50000}
mode=${3:-fp}
here=$(cd "$(dirname "$0")/.." && pwd)
fix="$here/$build/tests/fixtures"
flag=
[ "$mode" = dwarf ] && flag=--dwarf
out=$("$fix/pg-sample-bench" post $flag --freq 20000 "$n" -- "$fix/sample_threads")
echo "$out"
echo "$out" | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
        END { printf "post-processing: %.3f s for %d samples (%.0f samples/s)\n",
              v["post_ns"] / 1e9, v["samples"], v["samples"] / (v["post_ns"] / 1e9) }'
