# perfgate annotate does not load the debuginfod client unless
# DEBUGINFOD_URLS names a server (tests/record/test-annotate-nodebuginfod.sh).
add_test(NAME annotate_nodebuginfod
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/record/test-annotate-nodebuginfod.sh
                 ${CMAKE_C_COMPILER})
set_tests_properties(annotate_nodebuginfod PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600)
