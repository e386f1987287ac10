# Repositories as CI hands them over, against the git CLI as the oracle:
# another user's checkout opened exactly when git opens it (safe.directory in
# every configuration source git reads; tests/baselines/test-safe-directory.sh,
# needs root), and the fetch hints for a missing base followed literally in a
# depth-1 single-branch clone (tests/docs/check-fetch-hints.sh).
find_program(PG_BASH bash REQUIRED)
add_test(NAME store_safe_directory
         COMMAND ${PG_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/baselines/test-safe-directory.sh)
# libgit2's own leaks under the sanitizers: store.lsan.supp
set_tests_properties(
  store_safe_directory
  PROPERTIES
    ENVIRONMENT
    "${PG_TEST_ENV};ASAN_OPTIONS=fast_unwind_on_malloc=0;LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/cmake/store.lsan.supp:print_suppressions=0"
    TIMEOUT 300
    SKIP_RETURN_CODE 77
    LABELS baselines)
add_test(NAME docs_fetch_hints COMMAND ${PG_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/docs/check-fetch-hints.sh)
# the compares in shallow clones reach git_merge_base's error path, which
# leaks inside libgit2 1.5.1 (store.lsan.supp)
set_tests_properties(
  docs_fetch_hints
  PROPERTIES
    ENVIRONMENT
    "${PG_TEST_ENV};ASAN_OPTIONS=fast_unwind_on_malloc=0;LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/cmake/store.lsan.supp:print_suppressions=0"
    TIMEOUT 300
    LABELS baselines)
