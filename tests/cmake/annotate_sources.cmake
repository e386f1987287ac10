# perfgate annotate with hostile source files: a device, a FIFO, a huge
# sparse file (tests/record/test-annotate-sources.sh).
add_test(NAME annotate_sources
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/record/test-annotate-sources.sh
                 ${CMAKE_C_COMPILER})
set_tests_properties(annotate_sources PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600)

# perfgate annotate of a binary rebuilt, stripped, or a kernel function
# (tests/record/test-annotate-rebuilt.sh).
add_test(NAME annotate_rebuilt
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/record/test-annotate-rebuilt.sh
                 ${CMAKE_C_COMPILER})
set_tests_properties(annotate_rebuilt PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600)
