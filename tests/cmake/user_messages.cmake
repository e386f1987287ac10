# A perfgate.json argv[0] that does not exist names the directory it is
# relative to; doctor says where a Rust binary's frame-pointer chains stop
# (tests/record/test-user-messages.sh).
add_test(NAME user_messages COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/record/test-user-messages.sh)
set_tests_properties(user_messages PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 300
                     SKIP_RETURN_CODE 77)
