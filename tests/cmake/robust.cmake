# Robustness: the fuzz corpora of the config loader and the folded
# parser are replayed by tests/cmake/fuzz.cmake (tests/fuzz/corpus/<name>/);
# here the folded parser's replay also runs over the conformance inputs
# (tests/data/conformance: folded text of flamegraph.pl and inferno, fewer
# mutations since they are many), the importer's line limit is checked, and
# a small version of bench/limits.sh asserts fold's memory does not grow
# with its input.
# test_hostile and test_interrupt are ordinary cmocka tests (tests/cli/).
if(TARGET replay_folded)
  add_test(NAME fuzz_replay_folded_conformance
           COMMAND replay_folded --mutations=8
                   ${PG_TEST_DATA}/conformance/flamegraph/results
                   ${PG_TEST_DATA}/conformance/inferno/flamegraph-inputs/fractional-samples
                   ${PG_TEST_DATA}/conformance/inferno/flamegraph-inputs/differential
                   ${PG_TEST_DATA}/conformance/inferno/flamegraph-inputs/multiple-inputs
                   ${PG_TEST_DATA}/conformance/inferno/flamegraph-inputs/narrow-blocks
                   ${PG_TEST_DATA}/conformance/inferno/flamegraph-inputs/base
                   ${PG_TEST_DATA}/conformance/inferno/diff-folded)
  set_tests_properties(fuzz_replay_folded_conformance PROPERTIES
                       ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 300)
endif()

# A line longer than PG_PERFSCRIPT_MAX_LINE_BYTES (16 MiB) is refused, exit 2.
# Its files are its own: robust_limit_errors runs beside it in the same directory.
add_test(NAME robust_fold_line_limit
         COMMAND sh -c "head -c 17000000 /dev/zero | tr '\\\\0' a | \"$0\" fold >fold-limit-out.txt 2>fold-limit-err.txt; rc=$?; cat fold-limit-err.txt; [ $rc -eq 2 ] && grep -q \"line 1 is longer than 16 MiB; this is not 'perf script' output\" fold-limit-err.txt && [ ! -s fold-limit-out.txt ]"
                 $<TARGET_FILE:perfgate>
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(robust_fold_line_limit PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 120)

# bench/limits.sh, small: 32 MB of perf script through a pipe, 20,000 stacks.
add_test(NAME robust_limits_small
         COMMAND sh -c "command -v /usr/bin/time >/dev/null || { echo 'skip: needs /usr/bin/time (Debian package time)'; exit 77; }; exec \"$0\" -p \"$1\" -g 32 -d 2000 -s 20000 -c"
                 ${CMAKE_SOURCE_DIR}/bench/limits.sh $<TARGET_FILE:perfgate>)
set_tests_properties(robust_limits_small PROPERTIES ENVIRONMENT "${PG_TEST_ENV}"
                     SKIP_RETURN_CODE 77 TIMEOUT 300)

# The other limits of docs/limits.md, each with its error (exit 2, no file);
# the deep result is an object (a result file that does not start with '{' is
# refused at its first byte) holding 1000 nested arrays: 1001 levels.
add_test(NAME robust_limit_errors
         COMMAND sh -c "set -e; P=\"$0\"
awk 'BEGIN { printf \"{\\\"x\\\": \"; for (i = 0; i < 1000; i++) printf \"[\"; for (i = 0; i < 1000; i++) printf \"]\"; print \"}\" }' >deep.json
printf 'a;b 18446744073709551615\\na;c 2\\n' >ovf.folded
printf 'a;b 1\\n' >ok.folded
rc=0; \"$P\" show deep.json 2>err.txt || rc=$?; cat err.txt; [ $rc -eq 2 ]; grep -q 'invalid JSON at line 1, column 1006 (byte 1005): nested deeper than 1000 levels' err.txt
rc=0; \"$P\" flamegraph ovf.folded -o o.svg 2>err.txt || rc=$?; cat err.txt; [ $rc -eq 2 ]; grep -q 'add up to more than 2^64' err.txt; [ ! -e o.svg ]
rc=0; \"$P\" flamegraph ok.folded --max-depth 5000 -o o.svg 2>err.txt || rc=$?; cat err.txt; [ $rc -eq 2 ]; grep -q 'makes the image taller than 30000 px; use at most' err.txt; [ ! -e o.svg ]"
                 $<TARGET_FILE:perfgate>
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(robust_limit_errors PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 60)
