# A function inlined into a member function of a union (a local union under
# g++) gets its inlined frame, as llvm-addr2line -i lists it
# (tests/record/test-union-scopes.sh).
add_test(NAME union_scopes COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/record/test-union-scopes.sh)
set_tests_properties(union_scopes PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 300
                     SKIP_RETURN_CODE 77)
