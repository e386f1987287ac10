#!/bin/sh
# run-checks.sh schema|aa - the compare area's non-cmocka tests (registered by
# tests/cmake/compare.cmake; CTest sets PERFGATE_BIN and PG_SOURCE_DIR).
#   schema: every JSON verdict perfgate writes for the golden inputs and the
#           field cases validates against verdict.schema.json (ajv, draft-07)
#   aa:     bench/aa.sh reports 0 false alarms for identical runs (each against
#           the first, and with -a every pair) and exits 1
#           when a comparison regresses
# Exit 77 (skip) when a tool the check needs is missing.
set -eu
g="$PG_SOURCE_DIR/tests/golden/compare"
work=$(mktemp -d "${TMPDIR:-/tmp}/perfgate-compare-checks.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
case ${1:-} in
schema)
        ajv="$PG_SOURCE_DIR/tests/node/node_modules/.bin/ajv"
        [ -x "$ajv" ] || { echo "skip: $ajv missing (tests/node/install.sh)"; exit 77; }
        n=0
        for pair in "base head" "cases/26/base cases/26/head" "cases/32/base cases/32/head" \
                    "cases/34/base cases/34/head" "head base" "base base"; do
                set -- $pair
                n=$((n + 1))
                "$PERFGATE_BIN" compare "$g/$1" --results "$g/$2" --strict --json "v$n.json" >/dev/null || [ $? -eq 1 ]
        done
        [ "$n" -eq 6 ] && [ -s v6.json ]
        # one ajv start for all six (node starts slowly)
        "$ajv" validate --spec=draft7 -s "$g/verdict.schema.json" -d "v*.json"
        ;;
aa)
        command -v node >/dev/null 2>&1 || { echo "skip: node missing"; exit 77; }
        "$PG_SOURCE_DIR/bench/aa.sh" -p "$PERFGATE_BIN" -o "$work/aa1" --dirs "$g/base" "$g/base" "$g/base" >out1.txt
        grep -q "A/A: 0 of 2 comparisons reported a regression" out1.txt
        grep -q "^task-clock *0.00% *10.0% *yes$" out1.txt
        # -a: every run against every earlier one, 3 comparisons of 3 runs
        "$PG_SOURCE_DIR/bench/aa.sh" -a -p "$PERFGATE_BIN" -o "$work/aa3" --dirs "$g/base" "$g/base" "$g/base" >out3.txt
        grep -q "A/A: 0 of 3 comparisons reported a regression" out3.txt
        if "$PG_SOURCE_DIR/bench/aa.sh" -p "$PERFGATE_BIN" -o "$work/aa2" --dirs "$g/base" "$g/head" >out2.txt 2>err2.txt; then
                echo "aa.sh passed a run with two regressions"; exit 1
        fi
        grep -q "FALSE ALARM in comparison 1" err2.txt
        grep -q "^task-clock *30.07% *10.0% *yes$" out2.txt
        if "$PG_SOURCE_DIR/bench/aa.sh" -n 1 >/dev/null 2>&1; then echo "aa.sh accepted -n 1"; exit 1; fi
        ;;
*)
        echo "usage: run-checks.sh schema|aa" >&2; exit 2 ;;
esac
echo ok
