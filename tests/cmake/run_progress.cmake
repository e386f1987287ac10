# perfgate run's progress line on a terminal names the hottest functions so
# far (tests/record/test-run-progress.sh; annotate_hotline_gcc is built by
# record.cmake).
add_test(NAME run_progress_top
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/record/test-run-progress.sh
                 $<TARGET_FILE:annotate_hotline_gcc>)
set_tests_properties(run_progress_top PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 300
                     SKIP_RETURN_CODE 77)
