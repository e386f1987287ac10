#!/bin/sh
# check-schema.sh WRITER BENCH - validate result files against
# docs/result.schema.json with ajv-cli (tests/node), and show that the
# schema rejects invalid files.
#   - tests/golden/result-sample.json (the writer's golden file) and the
#     example in docs/result-format.md;
#   - every file WRITER (pg-write-results) produces through pg_result_save;
#   - a real `perfgate run` result of BENCH (bench/regex, one short round),
#     when the runner is built (skipped, saying so, while `run` is a stub);
#   - invalid variants of the sample, each of which must be rejected, for
#     the reason of the edit and not because the schema or the JSON broke.
# Needs PG_SOURCE_DIR and PERFGATE_BIN (set by CTest). Exit 0 when all pass.
set -eu
writer=$1
bench=$2
src=${PG_SOURCE_DIR:?}
ajv=$src/tests/node/node_modules/.bin/ajv
schema=$src/docs/result.schema.json
sample=$src/tests/golden/result-sample.json
if [ ! -x "$ajv" ]; then
  echo "check-schema: ajv-cli is not installed; run tests/node/install.sh" >&2
  exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pg-schema-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
ajv_opts="--spec=draft2020 --strict=true --strict-required=false -c ajv-formats"

# The schema itself must compile in strict mode, or every "rejected" below
# would be meaningless.
# shellcheck disable=SC2086
if ! "$ajv" compile $ajv_opts -s "$schema" >"$tmp/ajv.out" 2>&1; then
  echo "FAIL: docs/result.schema.json does not compile:"; cat "$tmp/ajv.out"; exit 1
fi

# --- files that must be valid ---------------------------------------------
mkdir "$tmp/good" "$tmp/written"
cp "$sample" "$tmp/good/result-sample.json"
# the example in docs/result-format.md (its first ```json block)
awk '/^```json$/ { on = 1; next } /^```$/ { if (on) exit } on' "$src/docs/result-format.md" \
  >"$tmp/good/doc-example.json"
[ -s "$tmp/good/doc-example.json" ] || { echo "FAIL: no JSON example in docs/result-format.md"; fail=1; }
"$writer" "$tmp/written"
n=$(ls "$tmp/written" | wc -l)
[ "$n" -ge 6 ] || { echo "FAIL: the writer produced $n files, expected 6"; fail=1; }
i=0
for f in "$tmp"/written/*.json; do
  i=$((i + 1))
  cp "$f" "$tmp/good/written-$i.json"   # names without spaces or quotes for ajv's globbing
  echo "written-$i.json: $(basename "$f")"
done

# A real result from the runner, once there is one.
cat >"$tmp/perfgate.json" <<JSON
{"benchmarks": [{"name": "regex", "argv": ["$bench", "-n", "1"]}]}
JSON
status=0
"$PERFGATE_BIN" run -q --repeat 2 --warmup 0 --out "$tmp/run" "$tmp/perfgate.json" \
  >"$tmp/run.out" 2>"$tmp/run.err" || status=$?
if [ $status -eq 0 ]; then
  cp "$tmp/run/regex.json" "$tmp/good/perfgate-run-regex.json"
elif grep -q "not implemented" "$tmp/run.err"; then
  echo "skipped: 'perfgate run' is not implemented in this build; runner results not checked"
elif [ $status -eq 3 ]; then
  echo "skipped: this machine cannot measure (perfgate run exit 3); runner results not checked:"
  cat "$tmp/run.err"
else
  echo "FAIL: perfgate run failed with exit $status:"; cat "$tmp/run.err"; fail=1
fi

set --
for f in "$tmp"/good/*.json; do set -- "$@" -d "$f"; done
# shellcheck disable=SC2086
if "$ajv" validate $ajv_opts -s "$schema" "$@" >"$tmp/ajv.out" 2>&1; then
  sed 's/^/ok: /' "$tmp/ajv.out"
else
  echo "FAIL: the schema rejects valid files:"; cat "$tmp/ajv.out"; fail=1
fi

# --- files that must be rejected --------------------------------------------
mkdir "$tmp/bad"
nbad=0
# reject NAME SED-EXPRESSION: the sample edited by SED-EXPRESSION must fail.
reject() {
  nbad=$((nbad + 1))
  out="$tmp/bad/bad-$nbad.json"
  sed "$2" "$sample" >"$out"
  echo "$nbad $1" >>"$tmp/bad/index"
  if cmp -s "$sample" "$out"; then
    echo "FAIL: edit for '$1' changed nothing (test is stale)"; fail=1
  fi
  if ! node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$out"; then
    echo "FAIL: edit for '$1' broke the JSON itself (test is wrong)"; fail=1
  fi
}

reject "newer schema" 's|"perfgate/result/1"|"perfgate/result/2"|'
reject "missing name" '/"name": "parse",/d'
reject "name with a slash" 's|"name": "parse"|"name": "a/b"|'
reject "unknown status" 's|"not-supported"|"unsupported"|'
reject "values on an uncounted metric" 's|"reason": "ENOENT",|"reason": "ENOENT", "values": [0],|'
reject "counted metric without values" 's|"values": \[412100000, 409800000, 415000000\]|"status": "ok"|'
reject "empty values" 's|\[412100000, 409800000, 415000000\]|[]|'
reject "coverage above 1" 's|"coverage": \[1, 0.632, 0.5\]|"coverage": [1.5, 0.632, 0.5]|'
reject "coverage of 0" 's|"coverage": \[1, 0.632, 0.5\]|"coverage": [0, 0.632, 0.5]|'
reject "negative count" 's|\[1000, 1200, 1100\]|[-1000, 1200, 1100]|'
reject "unknown unit" 's|"unit": "ratio"|"unit": "percent"|'
reject "task-clock not in ns" '/"task-clock"/,/}/s|"unit": "ns"|"unit": "count"|'
reject "string where a number belongs" 's|"repeat": 3|"repeat": "3"|'
reject "fractional repeat" 's|"repeat": 3|"repeat": 3.5|'
reject "zero stack count" 's|"parse;main;b": 3|"parse;main;b": 0|'
reject "bad commit" 's|"commit": "9f1c0*"|"commit": "HEAD"|'
reject "bad created time" 's|"2026-11-29T10:00:00Z"|"yesterday"|'
reject "unknown call graph" 's|"call_graph": "fp"|"call_graph": "lbr"|'
reject "unknown counters mode" 's|"counters": "software"|"counters": "magic"|'
reject "unknown top-level field" 's|"warmup": 1|"warmup": 1, "extra": true|'
reject "profile without stacks" '/"stacks": {/,/}/d'
reject "host without exclude_kernel" '/"exclude_kernel": false,/d'

set --
i=0
while [ $i -lt $nbad ]; do i=$((i + 1)); set -- "$@" -d "$tmp/bad/bad-$i.json"; done
# shellcheck disable=SC2086
"$ajv" validate $ajv_opts --errors=line -s "$schema" "$@" >"$tmp/ajv.out" 2>&1 || true
while read -r k name; do
  if grep -q "bad-$k.json invalid" "$tmp/ajv.out"; then
    echo "ok: rejected: $name"
  else
    echo "FAIL: the schema accepts an invalid file: $name"; fail=1
  fi
done <"$tmp/bad/index"
if grep -q "schema .* is invalid" "$tmp/ajv.out"; then
  echo "FAIL: ajv refused the schema:"; cat "$tmp/ajv.out"; fail=1
fi

exit $fail
