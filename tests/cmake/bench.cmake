# The bundled benchmarks (bench/): each runs and prints its checksum line;
# bad usage and a missing corpus fail as documented; bench/perfgate.json is
# valid and names executables that exist; the injected regression keeps the
# output identical and costs measurable CPU time (bench/check-regression.sh).
foreach(b deflate regex wordfreq)
  add_test(NAME bench_${b}_runs COMMAND $<TARGET_FILE:${b}> -n 1)
  set_tests_properties(bench_${b}_runs PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 60
    PASS_REGULAR_EXPRESSION "^${b}: [0-9]+ files, [0-9]+ bytes, 1 rounds")
endforeach()

add_test(NAME bench_bad_usage COMMAND sh -c
  "$<TARGET_FILE:deflate> -n 0; s=$?; [ $s -eq 2 ] || { echo \"-n 0 gave exit $s, want 2\"; exit 1; }
   $<TARGET_FILE:regex> stray; s=$?; [ $s -eq 2 ] || { echo \"stray arg gave exit $s, want 2\"; exit 1; }
   out=$($<TARGET_FILE:wordfreq> -d /nonexistent-corpus 2>&1); s=$?
   [ $s -eq 1 ] || { echo \"missing corpus gave exit $s, want 1\"; exit 1; }
   case \"$out\" in *\"'/nonexistent-corpus'\"*) ;; *) echo \"message does not name the directory: $out\"; exit 1;; esac
   echo \"bench usage checks passed\"")
set_tests_properties(bench_bad_usage PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 30
  PASS_REGULAR_EXPRESSION "bench usage checks passed")

add_executable(pg-check-bench-config ${CMAKE_SOURCE_DIR}/tests/schema/check-bench-config.c)
target_link_libraries(pg-check-bench-config PRIVATE pgcore)
set_target_properties(pg-check-bench-config PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                      ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
if(PERFGATE_SANITIZE)
  set(pg_bench_in_source 0) # the sanitizer build keeps its benchmarks in the build tree
else()
  set(pg_bench_in_source 1)
endif()
add_test(NAME bench_config COMMAND $<TARGET_FILE:pg-check-bench-config>
         ${CMAKE_SOURCE_DIR}/bench/perfgate.json ${pg_bench_in_source})
set_tests_properties(bench_config PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 30)

add_test(NAME bench_injected_regression
         COMMAND sh ${CMAKE_SOURCE_DIR}/bench/check-regression.sh
                 $<TARGET_FILE:wordfreq-inject0> $<TARGET_FILE:wordfreq-inject1> 40)
set_tests_properties(bench_injected_regression PROPERTIES ENVIRONMENT "${PG_TEST_ENV}"
                     TIMEOUT 120 RUN_SERIAL TRUE)

# The two switches of the injected regression reach the bundled wordfreq:
# it is regressed exactly when bench/regression.h says 1 or the CMake option
# PERFGATE_INJECT_REGRESSION is ON.
file(STRINGS ${CMAKE_SOURCE_DIR}/bench/regression.h pg_regression_h
     REGEX "^#define PERFGATE_INJECT_REGRESSION 1")
if(pg_regression_h OR PERFGATE_INJECT_REGRESSION)
  set(pg_wordfreq_variant "separator scan per byte \\(injected regression\\)")
else()
  set(pg_wordfreq_variant "separator table")
endif()
add_test(NAME bench_wordfreq_switch COMMAND $<TARGET_FILE:wordfreq> --variant)
set_tests_properties(bench_wordfreq_switch PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 30
  PASS_REGULAR_EXPRESSION "^word_split: ${pg_wordfreq_variant}\n$")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/bench/regression.h)
