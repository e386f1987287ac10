# perfgate record: a long-running multi-threaded service recorded by -p, -a
# and as a command, and the bad-input cases (tests/record/test-record.sh).
find_package(Threads REQUIRED)
add_executable(record_service ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/record/service.c)
set_target_properties(record_service PROPERTIES
  COMPILE_OPTIONS "-O1;-g;-fno-omit-frame-pointer"
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
target_link_libraries(record_service PRIVATE Threads::Threads)
find_program(PG_RECORD_BASH bash REQUIRED)
add_test(NAME record_live
         COMMAND ${PG_RECORD_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/record/test-record.sh
                 $<TARGET_FILE:record_service>)
set_tests_properties(record_live PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600)
