# Self and hotspots charge inlined code to the function it was inlined into,
# checked against perf report on a real g++ -O2 binary
# (tests/record/test-self-inlined.sh).
add_test(NAME self_inlined
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/record/test-self-inlined.sh)
set_tests_properties(self_inlined PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600
                     SKIP_RETURN_CODE 77)
