# `perfgate bisect` on repository-controlled input (tests/bisect/
# test-bisect-untrusted.sh): a first bad commit whose subject holds escape
# sequences is printed escaped, and a committed `.perfgate` link is refused
# rather than followed by the build cache.
add_test(NAME bisect_untrusted_repo
         COMMAND ${PG_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/bisect/test-bisect-untrusted.sh $<TARGET_FILE:perfgate>)
set_tests_properties(bisect_untrusted_repo PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 300)
