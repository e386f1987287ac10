# "grew most at" names the user's line, not the inlined library line: real
# Rust, clang++ and Go builds (tests/record/test-compare-inlined-line.sh).
add_test(NAME compare_inlined_line
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/record/test-compare-inlined-line.sh)
set_tests_properties(compare_inlined_line PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 900
                     SKIP_RETURN_CODE 77)
