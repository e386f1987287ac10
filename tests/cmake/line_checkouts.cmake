# "grew most at FILE:LINE" between two checkouts of one project in different
# directories: line keys relative to the project's root, the change equal to
# the two results' shares (clang++, g++, rustc; tests/record/test-line-checkouts.sh).
add_test(NAME compare_line_checkouts
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/record/test-line-checkouts.sh)
set_tests_properties(compare_line_checkouts PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 900
                     SKIP_RETURN_CODE 77)
