# What a command printed to a pipe before a signal ended it reaches the
# reader (tests/signals/test-stdout-signal.sh), with the stall shim of
# signals.cmake (pg_stall) holding the command at the step to interrupt.
find_program(PG_BASH bash REQUIRED)
add_test(NAME signals_stdout
         COMMAND ${PG_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/signals/test-stdout-signal.sh
                 $<TARGET_FILE:perfgate> $<TARGET_FILE:pg_stall>)
set_tests_properties(signals_stdout PROPERTIES
  ENVIRONMENT "${PG_TEST_ENV};ASAN_OPTIONS=fast_unwind_on_malloc=0:verify_asan_link_order=0;LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/cmake/store.lsan.supp:print_suppressions=0"
  TIMEOUT 300 LABELS cli)
