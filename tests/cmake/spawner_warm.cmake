# `perfgate run`: the spawner holds the perf warm-up event while the
# benchmarks run (runner/launch.c, pg_spawner_warm_perf).
find_program(PG_SPAWNER_WARM_BASH bash REQUIRED)
add_test(NAME spawner_warm_perf
         COMMAND ${PG_SPAWNER_WARM_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/record/test-spawner-warm.sh)
set_tests_properties(spawner_warm_perf PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 120)
