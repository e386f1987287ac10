# What `perfgate record` and `top` check before recording, and the length
# they store (tests/record/test-record-checks.sh; record_service is built by
# record.cmake, sched_wakers by sched.cmake).
add_test(NAME record_checks
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/record/test-record-checks.sh
                 $<TARGET_FILE:record_service> $<TARGET_FILE:sched_wakers>)
# Under the sanitizers: ncurses' own allocation in a failed newterm() is not
# perfgate's leak (cmake/ncurses.lsan.supp).
set_tests_properties(record_checks PROPERTIES ENVIRONMENT
  "${PG_TEST_ENV};LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/cmake/ncurses.lsan.supp:print_suppressions=0"
  TIMEOUT 600)
