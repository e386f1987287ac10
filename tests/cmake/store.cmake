# Baseline store tests (test_store, test_baseline_cli are registered by
# tests/CMakeLists.txt): under sanitizers, suppress the leaks libgit2 1.5.1
# (whose frames need the slow unwinder to be named)
# itself has (see store.lsan.supp), keeping the common test environment.
set_tests_properties(test_store test_baseline_cli PROPERTIES ENVIRONMENT
  "${PG_TEST_ENV};ASAN_OPTIONS=fast_unwind_on_malloc=0;LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/cmake/store.lsan.supp:print_suppressions=0")
