# `perfgate run` moves its benchmarks' old results and logs aside before the
# first benchmark and removes them after (runner/run.c): names, links, kills.
find_program(PG_RUN_STALE_BASH bash REQUIRED)
add_test(NAME run_stale_files
         COMMAND ${PG_RUN_STALE_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/record/test-run-stale.sh)
set_tests_properties(run_stale_files PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 300)
