# Hostile names and data-branch contents against real git repositories
# (tests/baselines/test-data-branch.sh), and the push-retry loop of
# docs/baseline.md run literally in shallow, single-branch and other-remote
# clones (tests/docs/check-push-loop.sh).
find_program(PG_BASH bash REQUIRED)
add_test(NAME store_data_branch
         COMMAND ${PG_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/baselines/test-data-branch.sh)
add_test(NAME docs_push_loop
         COMMAND ${PG_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/docs/check-push-loop.sh)
set_tests_properties(docs_push_loop PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 300
                     LABELS baselines)
# libgit2's own leaks under the sanitizers: store.lsan.supp
set_tests_properties(
  store_data_branch
  PROPERTIES
    ENVIRONMENT
    "${PG_TEST_ENV};ASAN_OPTIONS=fast_unwind_on_malloc=0;LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/cmake/store.lsan.supp:print_suppressions=0"
    TIMEOUT 300
    LABELS baselines)
