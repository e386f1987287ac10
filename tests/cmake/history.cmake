# History tests (test_history is registered by tests/CMakeLists.txt): it reads
# git repositories with libgit2 in-process and through perfgate, so under
# sanitizers it needs the store's suppressions of libgit2 1.5.1's own leaks
# (store.lsan.supp), with the common test environment.
set_tests_properties(test_history PROPERTIES ENVIRONMENT
  "${PG_TEST_ENV};ASAN_OPTIONS=fast_unwind_on_malloc=0;LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/cmake/store.lsan.supp:print_suppressions=0")
