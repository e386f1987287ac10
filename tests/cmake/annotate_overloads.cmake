# perfgate annotate of C++ overloads sharing a name: selected by mangled
# name, listed when ambiguous (tests/record/test-annotate-overloads.sh).
add_test(NAME annotate_overloads
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/record/test-annotate-overloads.sh)
set_tests_properties(annotate_overloads PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600
                     SKIP_RETURN_CODE 77)
