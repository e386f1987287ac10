# compare --confirm pins as many CPUs as the benchmark's stored runs kept
# busy: real multi-threaded programs (pthreads, Go where installed) report
# the CPU count they were given (tests/confirm/cpus.sh).
find_program(PG_BASH bash REQUIRED)
add_test(NAME confirm_cpus
         COMMAND ${PG_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/confirm/cpus.sh $<TARGET_FILE:perfgate>)
set_tests_properties(confirm_cpus PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600)
