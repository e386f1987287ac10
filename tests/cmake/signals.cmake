# SIGINT/SIGTERM/SIGHUP and out of memory in every command
# (tests/signals/test-signals.sh): an LD_PRELOAD shim
# (tests/fixtures/signals/stall.c) holds perfgate at the step to interrupt.
# The shim is never sanitizer-instrumented (it is preloaded into perfgate).
find_program(PG_BASH bash REQUIRED)
add_library(pg_stall SHARED ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/signals/stall.c)
set_target_properties(pg_stall PROPERTIES
  COMPILE_OPTIONS "-O1;-fno-sanitize=all" LINK_OPTIONS "-fno-sanitize=all" PREFIX ""
  OUTPUT_NAME "stall"
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
# Under the sanitizers the resource-limit sections are skipped: ASan maps
# terabytes of shadow memory at start-up, which no `ulimit -v` allows, and
# its runtime needs descriptors of its own.
if(PERFGATE_SANITIZE)
  set(pg_signals_limits 0)
else()
  set(pg_signals_limits 1)
endif()
add_test(NAME signals_every_command
         COMMAND ${PG_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/signals/test-signals.sh
                 $<TARGET_FILE:perfgate> $<TARGET_FILE:pg_stall> ${pg_signals_limits})
set_tests_properties(signals_every_command PROPERTIES
  ENVIRONMENT "${PG_TEST_ENV};ASAN_OPTIONS=fast_unwind_on_malloc=0:verify_asan_link_order=0;LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/cmake/store.lsan.supp:print_suppressions=0"
  TIMEOUT 600 LABELS cli)
