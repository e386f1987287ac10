# perfgate annotate with a function that has no samples of its own: what it
# lists instead (tests/record/test-annotate-near.sh; annotate_hotline_gcc is
# built by record.cmake).
add_test(NAME annotate_near_names
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/record/test-annotate-near.sh
                 $<TARGET_FILE:annotate_hotline_gcc>)
set_tests_properties(annotate_near_names PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 300)
