# compare --confirm where sched_setaffinity is refused: an LD_PRELOAD shim
# (tests/fixtures/confirm/nopin.c) refuses it as a restricted container
# does, and the real fallback (each run's CPU read while it runs, pairs kept
# within one CPU) must still give a verdict and say it ran unpinned. The shim
# is never sanitizer-instrumented: it is preloaded into the compiler of the
# base build too, where ASan's leak report would fail the build.
find_program(PG_BASH bash REQUIRED)
add_library(pg_nopin SHARED ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/confirm/nopin.c)
set_target_properties(pg_nopin PROPERTIES
  COMPILE_OPTIONS "-O1;-fno-sanitize=all" LINK_OPTIONS "-fno-sanitize=all" PREFIX ""
  OUTPUT_NAME "nopin"
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
add_test(NAME confirm_unpinned
         COMMAND ${PG_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/confirm/unpinned.sh $<TARGET_FILE:perfgate>
                 $<TARGET_FILE:pg_nopin>)
set_tests_properties(confirm_unpinned PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600)

# The cause of a confirmed regression that is a libc function (memcmp) is
# named with its caller in the benchmark's own executable (a real C
# program sorting with qsort and its own comparator; --call-graph dwarf).
add_test(NAME confirm_cause_caller
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/confirm/cause-caller.sh $<TARGET_FILE:perfgate>)
set_tests_properties(confirm_cause_caller PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 900
                     SKIP_RETURN_CODE 77)

# A confirmed hotspot whose own time grew only because its callee's work
# moved into it (its inclusive time flat) does not gate; one whose own work
# grew does (a real C program, both under compare --confirm).
add_test(NAME confirm_moved_work
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/confirm/moved-work.sh $<TARGET_FILE:perfgate>)
set_tests_properties(confirm_moved_work PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 900)
