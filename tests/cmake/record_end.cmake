# How a `perfgate record` recording ended, in its result (tests/record/test-record-end.sh;
# record_service is built by record.cmake).
add_test(NAME record_end
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/record/test-record-end.sh
                 $<TARGET_FILE:record_service>)
set_tests_properties(record_end PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 300)
