# `perfgate bisect` on scripted git repositories (tests/bisect/): the first
# bad commit named within 6 builds, a range without change, a commit that
# does not build skipped, and `git bisect run` with --run's exit codes.
add_test(NAME bisect_scripted_repo
         COMMAND ${PG_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/bisect/test-bisect.sh $<TARGET_FILE:perfgate> ${CMAKE_SOURCE_DIR})
set_tests_properties(bisect_scripted_repo PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600)
