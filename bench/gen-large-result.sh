#!/usr/bin/env bash
# gen-large-result.sh - a perfgate result file whose profile holds many
# distinct stacks, for bench/limits.sh and bench/large-result.sh.
#
#   bench/gen-large-result.sh STACKS NAME MS SHIFT > FILE
#
# STACKS distinct five-frame stacks "x;main;mod_A;fn_B;leaf_I" in the
# generator's order (not perfgate's sorted order), counts 1..7; SHIFT adds
# samples to every 13th stack; the task-clock median is MS milliseconds.
set -euo pipefail
[ $# -eq 4 ] || { sed -n '2,10p' "$0" >&2; exit 2; }
awk -v n="$1" -v name="$2" -v ms="$3" -v shift="$4" 'BEGIN {
  printf "{\"schema\": \"perfgate/result/1\", \"name\": \"%s\", \"command\": [\"x\"],\n", name
  printf " \"created\": \"2026-11-29T10:00:00Z\", \"machine\": \"default\", \"counters\": \"software\",\n"
  printf " \"repeat\": 5, \"warmup\": 1, \"metrics\": {\"task-clock\": {\"unit\": \"ns\", \"values\": ["
  for (i = 0; i < 5; i++) printf "%s%d", i ? ", " : "", (ms + i * 0.1) * 1000000
  printf "]}},\n \"profile\": {\"event\": \"cpu-clock\", \"frequency_hz\": 999, \"call_graph\": \"fp\",\n"
  total = 0
  for (i = 0; i < n; i++) total += 1 + (i % 7) + (i % 13 == 0 ? shift : 0)
  printf "  \"lost\": 0, \"truncated\": 0, \"samples\": %d, \"stacks\": {\n", total
  for (i = 0; i < n; i++) {
    c = 1 + (i % 7) + (i % 13 == 0 ? shift : 0)
    printf "   \"x;main;mod_%d;fn_%d;leaf_%d\": %d%s\n", i % 100, i % 10007, i, c, i + 1 < n ? "," : ""
  }
  printf "  }}}\n"
}'
