# The result format: its JSON Schema (docs/result.schema.json) checked with
# ajv-cli against the golden sample, against results written by the library
# for every shape a result can take, against a real `perfgate run` result
# when the runner is built, and shown to reject invalid files
# (tests/schema/check-schema.sh). Also links the result printer into
# test_show, whose colour test calls it directly.
target_sources(test_show PRIVATE ${CMAKE_SOURCE_DIR}/cli/print_result.c)

add_executable(pg-write-results ${CMAKE_SOURCE_DIR}/tests/schema/write-results.c)
target_link_libraries(pg-write-results PRIVATE pgcore)
set_target_properties(pg-write-results PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                      ${CMAKE_CURRENT_BINARY_DIR}/fixtures)

add_test(NAME result_schema
         COMMAND sh ${CMAKE_SOURCE_DIR}/tests/schema/check-schema.sh
                 $<TARGET_FILE:pg-write-results> $<TARGET_FILE:regex>)
set_tests_properties(result_schema PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 120)
